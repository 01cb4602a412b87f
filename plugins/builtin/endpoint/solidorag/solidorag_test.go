package solidorag

import (
	"encoding/json"
	"github.com/aiperf-go/aiperf/internal/capturetest"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func TestMetadata(t *testing.T) {
	want := sdk.EndpointMetadata{EndpointPath: "/rag/api/prompt", StreamingPath: "/rag/api/prompt", ServiceKind: "openai",
		SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true, MetricsTitle: "SOLIDO RAG Metrics"}
	if got := New().Metadata(); got != want {
		t.Errorf("metadata = %+v, want %+v", got, want)
	}
}

// solido_rag: --isl 8; solido_rag_stream: --isl 8 --streaming (same body).
func TestFormatPayloadCaptures(t *testing.T) {
	for _, c := range []struct {
		capture   string
		streaming bool
	}{{"solido_rag", false}, {"solido_rag_stream", true}} {
		t.Run(c.capture, func(t *testing.T) {
			for i, want := range capturetest.Bodies(t, c.capture) {
				var b struct{ Query []string }
				if err := json.Unmarshal([]byte(want), &b); err != nil {
					t.Fatal(err)
				}
				got, err := New().FormatPayload(sdk.RequestInfo{Model: "mock-model", Streaming: c.streaming, Turn: sdk.Turn{Texts: b.Query}})
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
		{name: "batch of texts, empty dropped, max tokens ignored",
			req:  sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"a", "", "b"}, MaxTokens: intp(8)}},
			want: `{"query":["a","b"],"filters":{"family":"Solido","tool":"SDE"},"inference_model":"m"}`},
		{name: "later turn sends only itself",
			req: sdk.RequestInfo{Model: "m", History: []sdk.HistoryEntry{{Role: "user", Text: "old"}, {Role: "assistant", Text: "reply"}},
				Turn: sdk.Turn{Texts: []string{"new"}}},
			want: `{"query":["new"],"filters":{"family":"Solido","tool":"SDE"},"inference_model":"m"}`},
		{name: "turn model, extras override filters in place, turn extra last",
			req: sdk.RequestInfo{Model: "m", ExtraInputs: map[string]any{"filters": map[string]any{"family": "X"}, "top_k": 4},
				Turn: sdk.Turn{Texts: []string{"<q>&"}, Model: "tm", Extra: map[string]any{"top_k": 2}}},
			want: `{"query":["<q>&"],"filters":{"family":"X"},"inference_model":"tm","top_k":2}`},
		{name: "no text", req: sdk.RequestInfo{Model: "m"},
			want: `{"query":[],"filters":{"family":"Solido","tool":"SDE"},"inference_model":"m"}`},
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
	if _, err := New().FormatPayload(sdk.RequestInfo{Turn: sdk.Turn{Texts: []string{"a"}}}); err == nil ||
		!strings.Contains(err.Error(), "solido_rag: format payload: no model") {
		t.Errorf("no model: err = %v", err)
	}
}

func TestParseResponse(t *testing.T) {
	cases := []struct {
		name, data, text, err string
	}{
		// What the fake server answered in solido_rag and solido_rag_stream.
		{name: "body", data: `{"content":" the quick fox","sources":[{"doc":"a.pdf","score":0.5}]}`, text: " the quick fox"},
		{name: "event", data: `{"content":" the"}`, text: " the"},
		{name: "closing event with sources only", data: `{"content":"","sources":[{"doc":"a.pdf"}]}`},
		{name: "no content", data: `{"sources":[]}`},
		{name: "content not a string", data: `{"content":["a"]}`},
		{name: "empty object", data: `{}`},
		{name: "done", data: `[DONE]`},
		{name: "list", data: `[{"content":"a"}]`, err: "solido_rag: response is not a JSON object"},
		{name: "malformed", data: `{"content":"a`, err: "solido_rag: malformed response JSON"},
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
			if p.Text != c.text || p.Usage != nil || p.Result != nil {
				t.Errorf("parsed %+v, want text %q only", p, c.text)
			}
		})
	}
}
