package chatembeddings

import (
	"encoding/json"
	"github.com/aiperf-go/aiperf/internal/capturetest"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/sdktest"
)

func TestMetadata(t *testing.T) {
	want := sdk.EndpointMetadata{EndpointPath: "/v1/embeddings", ServiceKind: "openai", TokenizesInput: true,
		MetricsTitle: "Embeddings Metrics", SupportsImages: true, ConsumesSystemMessage: true, SendsRawMessages: true}
	if got := New().Metadata(); got != want {
		t.Errorf("metadata = %+v, want %+v", got, want)
	}
}

// chat_embeddings: --isl 8 with one 8x8 JPEG per turn; the body is chat's.
func TestFormatPayloadCapture(t *testing.T) {
	for i, want := range capturetest.Bodies(t, "chat_embeddings") {
		var b struct {
			Messages []struct {
				Content []map[string]json.RawMessage
			}
		}
		if err := json.Unmarshal([]byte(want), &b); err != nil {
			t.Fatal(err)
		}
		var turn sdk.Turn
		var text string
		var image struct{ URL string }
		parts := b.Messages[0].Content
		if len(parts) != 2 || json.Unmarshal(parts[0]["text"], &text) != nil || json.Unmarshal(parts[1]["image_url"], &image) != nil {
			t.Fatalf("unexpected captured content %s", want)
		}
		turn.Texts, turn.Images = []string{text}, []string{image.URL}
		// Streaming asked for anyway: the endpoint does not stream.
		got, err := New().FormatPayload(sdk.RequestInfo{Model: "mock-model", Streaming: true, Turn: turn})
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("body %d:\ngot  %.300s\nwant %.300s", i, got, want)
		}
	}
}

func TestFormatPayloadErrorsNameTheEndpoint(t *testing.T) {
	_, err := New().FormatPayload(sdk.RequestInfo{Turn: sdk.Turn{Texts: []string{"a"}}})
	if err == nil || !strings.HasPrefix(err.Error(), "chat_embeddings: format payload: no model") {
		t.Errorf("err = %v", err)
	}
}

func TestParseResponse(t *testing.T) {
	cases := []struct {
		name  string
		data  string
		count int
		err   string
	}{
		{name: "openai list", data: `{"object":"list","data":[{"object":"embedding","embedding":[0.1,0.2],"index":0},{"object":"embedding","embedding":[0.3],"index":1}],"usage":{"prompt_tokens":3}}`, count: 2},
		{name: "openai list counts items with an embedding key", data: `{"data":[{"object":"embedding","embedding":null},{"index":1},5]}`, count: 1},
		{name: "first item decides: not embeddings, falls through", data: `{"data":[{"object":"other","embedding":[1]}],"embedding":[0.5,0.25]}`, count: 1},
		{name: "embeddings list of lists", data: `{"embeddings":[[0.1],[0.2],[0.3]]}`, count: 3},
		{name: "embeddings flat vector", data: `{"embeddings":[0.1,0.2]}`, count: 1},
		{name: "embedding flat vector", data: `{"embedding":[-1,2]}`, count: 1},
		{name: "embedding of strings is not a vector", data: `{"embedding":["a"]}`},
		{name: "empty data", data: `{"data":[]}`},
		{name: "no known field", data: `{"object":"list","model":"m"}`},
		{name: "empty object", data: `{}`},
		{name: "done", data: `[DONE]`},
		{name: "top-level list", data: `[[0.1]]`, err: "chat_embeddings: response is not a JSON object"},
		{name: "malformed", data: `{"data":`, err: "chat_embeddings: malformed response JSON"},
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

func TestConformance(t *testing.T) {
	sdktest.Endpoint(t, New(), sdktest.EndpointCase{SampleUnits: []sdktest.SampleUnit{
		{Name: "vLLM embeddings", Data: []byte(`{"id":"embd-1","object":"list","created":1,"model":"m","data":[{"index":0,"object":"embedding","embedding":[0.1,0.2]}],"usage":{"prompt_tokens":12,"total_tokens":12,"completion_tokens":0}}`)},
	}})
}
