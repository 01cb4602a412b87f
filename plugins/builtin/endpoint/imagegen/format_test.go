package imagegen

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// The first prompt of every capture (synthetic, --isl 8, seed 1).
const capturedPrompt = " I think thou art enamoured Upon his"

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFormatPayloadMatchesCaptures(t *testing.T) {
	turn := sdk.Turn{Texts: []string{capturedPrompt}}
	cases := []struct {
		capture string
		req     sdk.RequestInfo
	}{
		{"image_generation_empty.body.json", sdk.RequestInfo{Model: "mock-model", Turn: turn}},
		{"image_generation_stream.body.json", sdk.RequestInfo{Model: "mock-model", Turn: turn, Streaming: true,
			ExtraInputs: map[string]any{"partial_images": 1}}},
	}
	for _, c := range cases {
		t.Run(c.capture, func(t *testing.T) {
			got, err := New().FormatPayload(c.req)
			if err != nil {
				t.Fatal(err)
			}
			if want := fixture(t, c.capture); !bytes.Equal(got, want) {
				t.Errorf("body\n got %s\nwant %s", got, want)
			}
		})
	}
}

// AIPerf appends --extra-inputs in command-line order; RequestInfo's map
// has no order, so new keys come sorted (quality before size here). The
// body is otherwise the captured one, key for key.
func TestFormatPayloadTwoExtrasComeSorted(t *testing.T) {
	got, err := New().FormatPayload(sdk.RequestInfo{Model: "mock-model", Turn: sdk.Turn{Texts: []string{capturedPrompt}},
		ExtraInputs: map[string]any{"size": "512x512", "quality": "low"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"prompt":" I think thou art enamoured Upon his","model":"mock-model","response_format":"b64_json","n":1,"quality":"low","size":"512x512"}`
	if string(got) != want {
		t.Errorf("body\n got %s\nwant %s", got, want)
	}
	var g, c map[string]any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(fixture(t, "image_generation.body.json"), &c); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, c) {
		t.Errorf("body %v, captured %v", g, c)
	}
}

func TestFormatPayload(t *testing.T) {
	cases := []struct {
		name string
		req  sdk.RequestInfo
		want string
	}{
		{"only the first text is the prompt",
			sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"first", "second"}}},
			`{"prompt":"first","model":"m","response_format":"b64_json","n":1}`},
		{"first text group when there are no texts",
			sdk.RequestInfo{Model: "m", Turn: sdk.Turn{TextGroups: []sdk.TextGroup{{Name: "q", Contents: []string{"grouped", "x"}}}}},
			`{"prompt":"grouped","model":"m","response_format":"b64_json","n":1}`},
		{"an empty text is still a prompt",
			sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{""}}},
			`{"prompt":"","model":"m","response_format":"b64_json","n":1}`},
		{"turn model wins, no HTML escaping",
			sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"a <cat> & \"dog\""}, Model: "m2"}},
			`{"prompt":"a <cat> & \"dog\"","model":"m2","response_format":"b64_json","n":1}`},
		{"extras override in place, turn extra last",
			sdk.RequestInfo{Model: "m", Streaming: true, Turn: sdk.Turn{Texts: []string{"p"}, Extra: map[string]any{"n": 2, "seed": 5}},
				ExtraInputs: map[string]any{"response_format": "url", "n": 4, "stream": false}},
			`{"prompt":"p","model":"m","response_format":"url","n":2,"stream":false,"seed":5}`},
		{"max tokens are not sent",
			sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"p"}, MaxTokens: new(int)}},
			`{"prompt":"p","model":"m","response_format":"b64_json","n":1}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := New().FormatPayload(c.req)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("body\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestFormatPayloadErrors(t *testing.T) {
	cases := map[string]sdk.RequestInfo{
		"requires a text prompt": {Model: "m", Turn: sdk.Turn{TextGroups: []sdk.TextGroup{{Name: "q"}}}},
		"no model":               {Turn: sdk.Turn{Texts: []string{"p"}}},
	}
	for want, req := range cases {
		if _, err := New().FormatPayload(req); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
	if _, err := New().FormatPayload(sdk.RequestInfo{Model: "m"}); err == nil {
		t.Error("a turn without text must be refused")
	}
}

func TestMetadata(t *testing.T) {
	want := sdk.EndpointMetadata{EndpointPath: "/v1/images/generations", StreamingPath: "/v1/images/generations",
		ServiceKind: "openai", SupportsStreaming: true, TokenizesInput: true,
		MetricsTitle: "Image Generation Metrics", ProducesImages: true}
	if got := New().Metadata(); got != want {
		t.Errorf("metadata %+v, want %+v", got, want)
	}
}
