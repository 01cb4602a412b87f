package videogen

import (
	"bytes"
	"os"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

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
		{"video_generation.payload.json", sdk.RequestInfo{Model: "mock-model", Turn: turn,
			ExtraInputs: map[string]any{"seconds": 4, "size": "64x64"}}},
		{"video_generation_download.payload.json", sdk.RequestInfo{Model: "mock-model", Turn: turn}},
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

func TestFormatPayload(t *testing.T) {
	cases := []struct {
		name string
		req  sdk.RequestInfo
		want string
	}{
		{"streaming asks nothing, only the first text",
			sdk.RequestInfo{Model: "m", Streaming: true, Turn: sdk.Turn{Texts: []string{"a <b> & c", "ignored"}}},
			`{"prompt":"a <b> & c","model":"m"}`},
		{"turn model, extras then turn extra",
			sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"p"}, Model: "m2", Extra: map[string]any{"seed": 9, "fps": 24}},
				ExtraInputs: map[string]any{"seed": 1, "size": "1280x720", "prompt": "override"}},
			`{"prompt":"override","model":"m2","seed":9,"size":"1280x720","fps":24}`},
		{"first text group when there are no texts",
			sdk.RequestInfo{Model: "m", Turn: sdk.Turn{TextGroups: []sdk.TextGroup{{Name: "x", Contents: []string{"g"}}}}},
			`{"prompt":"g","model":"m"}`},
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
	for want, req := range map[string]sdk.RequestInfo{
		"requires a text prompt": {Model: "m"},
		"no model":               {Turn: sdk.Turn{Texts: []string{"p"}}},
	} {
		if _, err := New().FormatPayload(req); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
}

func TestMetadata(t *testing.T) {
	want := sdk.EndpointMetadata{EndpointPath: "/v1/videos", ServiceKind: "openai", TokenizesInput: true,
		MetricsTitle: "Video Generation Metrics", ProducesVideos: true, RequiresPolling: true, RequiresFormData: true}
	if got := New().Metadata(); got != want {
		t.Errorf("metadata %+v, want %+v", got, want)
	}
}
