package imagegen

import (
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

// The capture server's answers (fakeserver.py images()).
const (
	usageJSON    = `{"input_tokens":12,"output_tokens":256,"total_tokens":268,"input_tokens_details":{"text_tokens":12,"image_tokens":0}}`
	wholeBody    = `{"created":1700000000,"data":[{"b64_json":"` + png + `","revised_prompt":"rp"}],"size":"1024x1024","quality":"low","output_format":"png","background":"opaque","usage":` + usageJSON + `}`
	partialEvent = `{"type":"image_generation.partial_image","b64_json":"` + png + `","partial_image_index":0,"created_at":1700000000,"size":"1024x1024","quality":"low","background":"opaque","output_format":"png"}`
	finalEvent   = `{"type":"image_generation.completed","b64_json":"` + png + `","created_at":1700000000,"size":"1024x1024","quality":"low","background":"opaque","output_format":"png","usage":` + usageJSON + `}`
)

func TestParseResponse(t *testing.T) {
	cases := []struct {
		name                      string
		data                      string
		images                    int // -1: no result
		prompt, completion, total int // -1: absent
	}{
		{"whole body", wholeBody, 1, 12, 256, 268},
		{"partial image event", partialEvent, 1, -1, -1, -1},
		{"completed event with usage", finalEvent, 1, 12, 256, 268},
		{"several images", `{"data":[{"url":"http://x/1.png"},{"b64_json":"` + png + `"},{}]}`, 3, -1, -1, -1},
		{"b64_json wins over data, even null", `{"b64_json":null,"data":[{},{}]}`, 1, -1, -1, -1},
		{"no images is still content", `{"created":1700000000}`, 0, -1, -1, -1},
		{"empty data list", `{"data":[]}`, 0, -1, -1, -1},
		{"empty data object", `{"data":{}}`, 0, -1, -1, -1},
		{"usage only", `{"usage":{"input_tokens":3}}`, 0, 3, -1, -1},
		{"empty usage is none", `{"data":[],"usage":{}}`, 0, -1, -1, -1},
		{"ill-typed usage is none", `{"data":[],"usage":"n/a"}`, 0, -1, -1, -1},
		{"empty object", `{}`, -1, -1, -1, -1},
		{"done", `[DONE]`, -1, -1, -1, -1},
		{"empty", ``, -1, -1, -1, -1},
		{"null", `null`, -1, -1, -1, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := New().ParseResponse([]byte(c.data))
			if err != nil {
				t.Fatal(err)
			}
			if p.Text != "" || p.Reasoning != "" {
				t.Errorf("text %q reasoning %q, want none", p.Text, p.Reasoning)
			}
			switch {
			case c.images < 0 && (p.Result != nil || p.HasContent()):
				t.Errorf("result %+v, want none", p.Result)
			case c.images >= 0 && (p.Result == nil || p.Result.Kind != sdk.ResultImages || p.Result.Count != c.images || !p.HasContent()):
				t.Errorf("result %+v, want %d images", p.Result, c.images)
			}
			checkCount(t, "prompt", p.Usage, func(u *sdk.Usage) *int { return u.PromptTokens }, c.prompt)
			checkCount(t, "completion", p.Usage, func(u *sdk.Usage) *int { return u.CompletionTokens }, c.completion)
			checkCount(t, "total", p.Usage, func(u *sdk.Usage) *int { return u.TotalTokens }, c.total)
		})
	}
}

func checkCount(t *testing.T, what string, u *sdk.Usage, get func(*sdk.Usage) *int, want int) {
	t.Helper()
	var got *int
	if u != nil {
		got = get(u)
	}
	switch {
	case want < 0 && got != nil:
		t.Errorf("%s tokens = %d, want absent", what, *got)
	case want >= 0 && (got == nil || *got != want):
		t.Errorf("%s tokens = %v, want %d", what, got, want)
	}
}

// What AIPerf's dict lookups raise on is an error here.
func TestParseResponseErrors(t *testing.T) {
	cases := map[string]string{
		`{"`:                       "malformed response JSON",
		`{not json}`:               "malformed response JSON",
		`[{"b64_json":"x"}]`:       "not a JSON object",
		`"text"`:                   "not a JSON object",
		`{"data":null}`:            `"data" is not a list`,
		`{"data":"abc"}`:           `"data" is not a list`,
		`{"data":{"a":1}}`:         `"data" is not a list`,
		`{"data":[{"url":"u"},1]}`: "data[1] is not an image object",
	}
	for in, want := range cases {
		if p, err := New().ParseResponse([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseResponse(%s) = %+v, %v; want an error with %q", in, p, err, want)
		}
	}
}
