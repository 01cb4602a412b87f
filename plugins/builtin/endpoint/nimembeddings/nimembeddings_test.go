package nimembeddings

import (
	"encoding/json"
	"errors"
	"github.com/aiperf-go/aiperf/internal/capturetest"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/embeddings"
)

func TestMetadata(t *testing.T) {
	want := sdk.EndpointMetadata{EndpointPath: "/v1/embeddings", ServiceKind: "openai", TokenizesInput: true,
		MetricsTitle: "NIM Embeddings Metrics", SupportsImages: true}
	if got := New().Metadata(); got != want {
		t.Errorf("metadata = %+v, want %+v", got, want)
	}
}

// nim_embeddings: -b 2 --extra-inputs input_type:query; nim_embeddings_images:
// -b 2 with two 8x8 JPEGs, sent as "<text> <data URI>" pairs.
func TestFormatPayloadCaptures(t *testing.T) {
	cases := []struct {
		capture string
		extra   map[string]any
	}{
		{capture: "nim_embeddings", extra: map[string]any{"input_type": "query"}},
		{capture: "nim_embeddings_images"},
	}
	for _, c := range cases {
		t.Run(c.capture, func(t *testing.T) {
			for i, want := range capturetest.Bodies(t, c.capture) {
				var b struct{ Input []string }
				if err := json.Unmarshal([]byte(want), &b); err != nil {
					t.Fatal(err)
				}
				var turn sdk.Turn
				for _, in := range b.Input {
					text, image, ok := strings.Cut(in, " data:image/")
					turn.Texts = append(turn.Texts, text)
					if ok {
						turn.Images = append(turn.Images, "data:image/"+image)
					}
				}
				got, err := New().FormatPayload(sdk.RequestInfo{Model: "mock-model", ExtraInputs: c.extra, Turn: turn})
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != want {
					t.Errorf("body %d:\ngot  %.300s\nwant %.300s", i, got, want)
				}
			}
		})
	}
}

func TestFormatPayload(t *testing.T) {
	cases := []struct {
		name string
		turn sdk.Turn
		want string
	}{
		{name: "texts only", turn: sdk.Turn{Texts: []string{"a", "", "b"}}, want: `{"model":"m","input":["a","b"]}`},
		{name: "images only", turn: sdk.Turn{Images: []string{"data:image/png;base64,AA==", "", "https://x/i.png"}},
			want: `{"model":"m","input":["data:image/png;base64,AA==","https://x/i.png"]}`},
		{name: "pairs after dropping empty strings", turn: sdk.Turn{Texts: []string{"a", ""}, Images: []string{"", "u"}},
			want: `{"model":"m","input":["a u"]}`},
		{name: "nothing", turn: sdk.Turn{Images: []string{""}}, want: `{"model":"m","input":[]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := New().FormatPayload(sdk.RequestInfo{Model: "m", Turn: c.turn})
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
	_, err := New().FormatPayload(sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"a", "b"}, Images: []string{"u"}}})
	if err == nil || !strings.Contains(err.Error(), "nim_embeddings: format payload: when both texts and images are provided, they must have the same length. Got 2 texts and 1 images") {
		t.Errorf("count mismatch: err = %v", err)
	}
	_, err = New().FormatPayload(sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"a"}},
		History: []sdk.HistoryEntry{{Role: "user", Text: "x"}}})
	if !errors.Is(err, embeddings.ErrMultiTurn) || !strings.HasPrefix(err.Error(), "nim_embeddings: ") {
		t.Errorf("second turn: err = %v, want nim_embeddings: ... ErrMultiTurn", err)
	}
}

func TestParseResponse(t *testing.T) {
	p, err := New().ParseResponse([]byte(`{"object":"list","data":[{"index":0,"embedding":[0.1],"object":"embedding"},{"index":1,"embedding":[0.2],"object":"embedding"}]}`))
	if err != nil || p.Result == nil || p.Result.Kind != sdk.ResultEmbeddings || p.Result.Count != 2 {
		t.Errorf("two vectors: %+v, %v", p.Result, err)
	}
	p, err = New().ParseResponse([]byte(`{"data":[]}`))
	if err != nil || p.HasContent() {
		t.Errorf("empty data: %+v, %v; want no content", p, err)
	}
	_, err = New().ParseResponse([]byte(`{"data":[{"embedding":[0.1]}]}`))
	if err == nil || !strings.HasPrefix(err.Error(), "nim_embeddings: Received invalid list in response: data[0]") {
		t.Errorf("item without object: err = %v", err)
	}
}
