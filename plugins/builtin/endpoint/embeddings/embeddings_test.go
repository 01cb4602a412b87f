package embeddings

import (
	"encoding/json"
	"errors"
	"github.com/aiperf-go/aiperf/internal/capturetest"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func TestMetadata(t *testing.T) {
	want := sdk.EndpointMetadata{EndpointPath: "/v1/embeddings", ServiceKind: "openai", TokenizesInput: true,
		MetricsTitle: "Embeddings Metrics"}
	if got := New().Metadata(); got != want {
		t.Errorf("metadata = %+v, want %+v", got, want)
	}
}

// The captured bodies, rebuilt from the texts they carry and the run's flags.
func TestFormatPayloadCaptures(t *testing.T) {
	cases := []struct {
		capture   string
		streaming bool
		extra     map[string]any
	}{
		{capture: "embeddings_b3", extra: map[string]any{"encoding_format": "float"}}, // -b 3 --extra-inputs encoding_format:float
		{capture: "embeddings_streaming_flag", streaming: true},                       // --streaming is dropped
		{capture: "embeddings_no_object"},
	}
	for _, c := range cases {
		t.Run(c.capture, func(t *testing.T) {
			for i, want := range capturetest.Bodies(t, c.capture) {
				var b struct{ Input []string }
				if err := json.Unmarshal([]byte(want), &b); err != nil {
					t.Fatal(err)
				}
				got, err := New().FormatPayload(sdk.RequestInfo{Model: "mock-model", Streaming: c.streaming,
					ExtraInputs: c.extra, Turn: sdk.Turn{Texts: b.Input}})
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != want {
					t.Errorf("body %d:\ngot  %s\nwant %s", i, got, want)
				}
			}
		})
	}
}

func intp(n int) *int { return &n }

func TestFormatPayload(t *testing.T) {
	cases := []struct {
		name string
		req  sdk.RequestInfo
		want string
	}{
		{name: "one text is still a list, max tokens ignored",
			req:  sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"a"}, MaxTokens: intp(9)}},
			want: `{"model":"m","input":["a"]}`},
		{name: "empty texts dropped, groups after texts",
			req: sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"", "a"},
				TextGroups: []sdk.TextGroup{{Name: "query", Contents: []string{"q", ""}}}}},
			want: `{"model":"m","input":["a","q"]}`},
		{name: "no text sends an empty list", req: sdk.RequestInfo{Model: "m"}, want: `{"model":"m","input":[]}`},
		{name: "images are not sent", req: sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"a"}, Images: []string{"u"}}},
			want: `{"model":"m","input":["a"]}`},
		{name: "turn model, extras then turn extra",
			req: sdk.RequestInfo{Model: "m", ExtraInputs: map[string]any{"dimensions": 8.0, "input_type": "query", "model": "x"},
				Turn: sdk.Turn{Texts: []string{"<a&b>"}, Model: "tm", Extra: map[string]any{"input_type": "passage"}}},
			want: `{"model":"x","input":["<a&b>"],"dimensions":8,"input_type":"passage"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := New().FormatPayload(c.req)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestFormatPayloadErrors(t *testing.T) {
	_, err := New().FormatPayload(sdk.RequestInfo{Turn: sdk.Turn{Texts: []string{"a"}}})
	if err == nil || !strings.Contains(err.Error(), "embeddings: format payload: no model") {
		t.Errorf("no model: err = %v", err)
	}
	_, err = New().FormatPayload(sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"a"}},
		History: []sdk.HistoryEntry{{Role: "user", Text: "x"}, {Role: "assistant", Text: "y"}}})
	if !errors.Is(err, ErrMultiTurn) {
		t.Errorf("second turn: err = %v, want ErrMultiTurn", err)
	}
}

func TestParseResponse(t *testing.T) {
	cases := []struct {
		name  string
		data  string
		count int    // vectors; 0 = no content
		err   string // substring of the expected error
	}{
		{name: "fake server", data: `{"object":"list","data":[{"object":"embedding","embedding":[0.1,0.2],"index":0},{"object":"embedding","embedding":[0.1,0.2],"index":1},{"object":"embedding","embedding":[0.1,0.2],"index":2}],"model":"mock-model","usage":{"prompt_tokens":15,"total_tokens":15}}`, count: 3},
		{name: "base64 vectors", data: `{"data":[{"object":"embedding","embedding":"AAAA","index":0}]}`, count: 1},
		{name: "null embeddings are not counted", data: `{"data":[{"object":"embedding","embedding":null},{"object":"embedding","embedding":[1]}]}`, count: 1},
		{name: "only null embeddings", data: `{"data":[{"object":"embedding"}]}`},
		{name: "empty data", data: `{"object":"list","data":[]}`},
		{name: "null data", data: `{"data":null}`},
		{name: "no data", data: `{"object":"list"}`},
		{name: "empty object", data: `{}`},
		{name: "done", data: `[DONE]`},
		{name: "empty", data: ``},
		// embeddings_no_object: what the fake server sent with --embeddings-no-object.
		{name: "item without object", data: `{"object":"list","data":[{"embedding":[0.1,0.2],"index":0}],"model":"mock-model"}`,
			err: `embeddings: Received invalid list in response: data[0] has no "object":"embedding"`},
		{name: "second item wrong object", data: `{"data":[{"object":"embedding","embedding":[1]},{"object":"list","embedding":[1]}]}`,
			err: `data[1] has no "object":"embedding"`},
		{name: "object not a string", data: `{"data":[{"object":1,"embedding":[1]}]}`, err: `data[0] has no "object":"embedding"`},
		{name: "item not an object", data: `{"data":[[0.1,0.2]]}`, err: "data[0] is not an object"},
		{name: "data not a list", data: `{"data":{"object":"embedding"}}`, err: `"data" is not a list`},
		{name: "top-level list", data: `[{"object":"embedding","embedding":[1]}]`, err: "not a JSON object"},
		{name: "malformed", data: `{"data":[`, err: "malformed response JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := New().ParseResponse([]byte(c.data))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Usage != nil || p.Text != "" {
				t.Errorf("parsed %+v: want no usage and no text", p)
			}
			if c.count == 0 {
				if p.HasContent() {
					t.Errorf("parsed %+v, want no content", p)
				}
				return
			}
			if p.Result == nil || p.Result.Kind != sdk.ResultEmbeddings || p.Result.Count != c.count {
				t.Errorf("result = %+v, want %d embeddings", p.Result, c.count)
			}
		})
	}
}
