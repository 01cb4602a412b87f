package videogen

import (
	"fmt"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// The capture server's job answers (fakeserver.py).
const (
	submitAnswer    = `{"id": "video_7ecc8602", "object": "video", "status": "queued", "progress": 0, "model": "mock-model", "created_at": 1700000000}`
	completedAnswer = `{"id": "video_7ecc8602", "object": "video", "status": "completed", "progress": 100, "model": "mock-model", "size": "64x64", "seconds": "1", "created_at": 1700000000, "completed_at": 1700000001, "inference_time_s": 1.25, "peak_memory_mb": 2048.5}`
)

func fp(v float64) *float64 { return &v }

func TestParseResponse(t *testing.T) {
	cases := []struct {
		name string
		data string
		want *sdk.VideoJob // nil: no content
	}{
		{"submit answer", submitAnswer, &sdk.VideoJob{ID: "video_7ecc8602", Status: "queued"}},
		{"completed answer", completedAnswer, &sdk.VideoJob{ID: "video_7ecc8602", Status: "completed", InferenceTimeS: fp(1.25), PeakMemoryMB: fp(2048.5)}},
		{"integer metrics", `{"id":"v","status":"completed","inference_time_s":3,"peak_memory_mb":0}`,
			&sdk.VideoJob{ID: "v", Status: "completed", InferenceTimeS: fp(3), PeakMemoryMB: fp(0)}},
		{"failed job", `{"id":"v","status":"failed","error":{"message":"oom"}}`, &sdk.VideoJob{ID: "v", Status: "failed"}},
		{"numeric id, odd metric types", `{"id":42,"status":null,"inference_time_s":"1.5","peak_memory_mb":null}`, &sdk.VideoJob{ID: "42"}},
		{"no job fields is still content", `{"object":"video"}`, &sdk.VideoJob{}},
		{"empty object", `{}`, nil},
		{"done", `[DONE]`, nil},
		{"empty", ``, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := New().ParseResponse([]byte(c.data))
			if err != nil {
				t.Fatal(err)
			}
			if c.want == nil {
				if p.Result != nil || p.HasContent() || p.Usage != nil {
					t.Errorf("parsed %+v, want nothing", p)
				}
				return
			}
			if p.Result == nil || p.Result.Kind != sdk.ResultVideo || p.Result.Video == nil || !p.HasContent() {
				t.Fatalf("result %+v, want a video job", p.Result)
			}
			got := p.Result.Video
			if got.ID != c.want.ID || got.Status != c.want.Status || !sameFloat(got.InferenceTimeS, c.want.InferenceTimeS) || !sameFloat(got.PeakMemoryMB, c.want.PeakMemoryMB) {
				t.Errorf("job %s, want %s", show(got), show(c.want))
			}
		})
	}
}

func sameFloat(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func show(j *sdk.VideoJob) string {
	f := func(p *float64) string {
		if p == nil {
			return "nil"
		}
		return fmt.Sprint(*p)
	}
	return fmt.Sprintf("{id %q status %q inference %s memory %s}", j.ID, j.Status, f(j.InferenceTimeS), f(j.PeakMemoryMB))
}

func TestParseResponseUsage(t *testing.T) {
	p, err := New().ParseResponse([]byte(`{"id":"v","status":"completed","usage":{"input_tokens":7,"output_tokens":0}}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Usage == nil || p.Usage.PromptTokens == nil || *p.Usage.PromptTokens != 7 || p.Usage.CompletionTokens == nil || *p.Usage.CompletionTokens != 0 {
		t.Errorf("usage %+v, want prompt 7 completion 0", p.Usage)
	}
	if p, _ := New().ParseResponse([]byte(completedAnswer)); p.Usage != nil {
		t.Errorf("usage %+v, want none", p.Usage)
	}
}

func TestParseResponseErrors(t *testing.T) {
	for in, want := range map[string]string{
		`{"`:           "malformed response JSON",
		`{not json}`:   "malformed response JSON",
		`[{"id":"v"}]`: "not a JSON object",
		`"queued"`:     "not a JSON object",
	} {
		if p, err := New().ParseResponse([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseResponse(%s) = %+v, %v; want an error with %q", in, p, err, want)
		}
	}
}
