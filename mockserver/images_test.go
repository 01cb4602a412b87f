package mockserver

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"strings"
	"testing"
)

type wireImageUsage struct {
	TotalTokens        int `json:"total_tokens"`
	InputTokens        int `json:"input_tokens"`
	OutputTokens       int `json:"output_tokens"`
	InputTokensDetails struct {
		TextTokens  int `json:"text_tokens"`
		ImageTokens int `json:"image_tokens"`
	} `json:"input_tokens_details"`
}

type wireImages struct {
	Created int64 `json:"created"`
	Data    []struct {
		B64JSON *string `json:"b64_json"`
		URL     *string `json:"url"`
	} `json:"data"`
	Background   string         `json:"background"`
	OutputFormat string         `json:"output_format"`
	Quality      string         `json:"quality"`
	Size         string         `json:"size"`
	Usage        wireImageUsage `json:"usage"`
}

type wireImageEvent struct {
	Type              string          `json:"type"`
	B64JSON           string          `json:"b64_json"`
	CreatedAt         int64           `json:"created_at"`
	Size              string          `json:"size"`
	Quality           string          `json:"quality"`
	Background        string          `json:"background"`
	OutputFormat      string          `json:"output_format"`
	PartialImageIndex *int            `json:"partial_image_index"`
	Usage             *wireImageUsage `json:"usage"`
}

// decodePNG checks b64 is a PNG of the given size and returns its bytes.
func decodePNG(t *testing.T, b64 string, w, h int) []byte {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatalf("image is not base64: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("image is not a valid PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("image is %dx%d, want %dx%d", b.Dx(), b.Dy(), w, h)
	}
	return raw
}

const imagePrompt = " I think thou art enamoured Upon his"

func TestImagesNonStreaming(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	var r wireImages
	postOK(t, base+"/v1/images/generations", `{"prompt":"`+imagePrompt+`","model":"mock-model","response_format":"b64_json","n":2,"size":"1024x1536","quality":"low"}`, &r)
	if len(r.Data) != 2 || r.Size != "1024x1536" || r.Quality != "low" || r.OutputFormat != "png" || r.Background != "opaque" || r.Created == 0 {
		t.Fatalf("body %+v", r)
	}
	first := decodePNG(t, *r.Data[0].B64JSON, 1024, 1536)
	second := decodePNG(t, *r.Data[1].B64JSON, 1024, 1536)
	if bytes.Equal(first, second) {
		t.Fatal("the two images of one request are identical")
	}
	if len(first) > 2048 {
		t.Fatalf("a 1024x1536 image takes %d bytes; a solid colour should stay tiny", len(first))
	}
	// gpt-image-1: 272 tokens for a low 1024×1024 image, scaled by area.
	p := countTokens(imagePrompt)
	want := wireImageUsage{TotalTokens: p + 2*408, InputTokens: p, OutputTokens: 2 * 408}
	want.InputTokensDetails.TextTokens = p
	if r.Usage != want {
		t.Fatalf("usage %+v, want %+v", r.Usage, want)
	}

	// Defaults, and the url response format (a data URL).
	var d wireImages
	postOK(t, base+"/v1/images/generations", `{"prompt":"x","response_format":"url"}`, &d)
	if d.Size != "1024x1024" || d.Quality != "medium" || len(d.Data) != 1 || d.Data[0].URL == nil || d.Usage.OutputTokens != 1056 {
		t.Fatalf("defaults %+v", d)
	}
	url := *d.Data[0].URL
	if !strings.HasPrefix(url, "data:image/png;base64,") {
		t.Fatalf("url %.40q", url)
	}
	decodePNG(t, strings.TrimPrefix(url, "data:image/png;base64,"), 1024, 1024)
}

// Streaming sends, per image, partial_images partial events then one
// completed event carrying the usage so far, each named by an event: line
// equal to its "type".
func TestImagesStream(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	body := `{"prompt":"` + imagePrompt + `","model":"mock-model","response_format":"b64_json","n":2,"stream":true,"partial_images":2,"size":"64x32","quality":"high"}`
	events := streamOK(t, base+"/v1/images/generations", body, map[string]string{"Accept": "text/event-stream"})
	type want struct {
		typ     string
		partial int // -1: the completed event
	}
	wants := []want{
		{"image_generation.partial_image", 0}, {"image_generation.partial_image", 1}, {"image_generation.completed", -1},
		{"image_generation.partial_image", 0}, {"image_generation.partial_image", 1}, {"image_generation.completed", -1},
	}
	if len(events) != len(wants) {
		t.Fatalf("%d events, want %d", len(events), len(wants))
	}
	// high 4160 × (64·32 / 1024²) rounds to 8, plus 100 per partial image.
	const perImage = 8 + 2*100
	p := countTokens(imagePrompt)
	completed := 0
	for i, ev := range events {
		var e wireImageEvent
		strictJSON(t, ev.data, &e)
		if e.Type != wants[i].typ || ev.event != e.Type || e.Size != "64x32" || e.Quality != "high" || e.OutputFormat != "png" {
			t.Fatalf("event %d: %s", i, ev.data)
		}
		decodePNG(t, e.B64JSON, 64, 32)
		if wants[i].partial >= 0 {
			if e.PartialImageIndex == nil || *e.PartialImageIndex != wants[i].partial || e.Usage != nil {
				t.Fatalf("partial event %d: %s", i, ev.data)
			}
			continue
		}
		completed++
		if e.PartialImageIndex != nil || e.Usage == nil || e.Usage.InputTokens != p || e.Usage.OutputTokens != completed*perImage {
			t.Fatalf("completed event %d: usage %+v, want %d output tokens", i, e.Usage, completed*perImage)
		}
	}
}

func TestImagesDeterministic(t *testing.T) {
	s1 := startServer(t, Config{Fast: true, RandomSeed: 2})
	s2 := startServer(t, Config{Fast: true, RandomSeed: 2})
	body := `{"prompt":"a red fox","n":2,"size":"16x16"}`
	a := sameRunIndependent(postOK(t, s1+"/v1/images/generations", body, nil))
	b := sameRunIndependent(postOK(t, s2+"/v1/images/generations", body, nil))
	if a != b {
		t.Fatalf("two servers drew different images:\n%s\n%s", a, b)
	}
	other := sameRunIndependent(postOK(t, s1+"/v1/images/generations", `{"prompt":"a blue fox","n":2,"size":"16x16"}`, nil))
	if other == a {
		t.Fatal("different prompts drew the same images")
	}
}

func TestImagesBadRequests(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	cases := []struct{ body, wantMsg string }{
		{`{"prompt":`, "invalid JSON body"},
		{`{"model":"m"}`, `"prompt"`},
		{`{"prompt":""}`, `"prompt"`},
		{`{"prompt":"x","n":0}`, `"n" must be in [1, 10]`},
		{`{"prompt":"x","n":11}`, `"n" must be in [1, 10]`},
		{`{"prompt":"x","size":"big"}`, `"size"`},
		{`{"prompt":"x","size":"0x10"}`, `"size"`},
		{`{"prompt":"x","size":"5000x10"}`, `"size"`},
		{`{"prompt":"x","quality":"ultra"}`, `"quality"`},
		{`{"prompt":"x","response_format":"jpeg"}`, `"response_format"`},
		{`{"prompt":"x","stream":true,"partial_images":4}`, `"partial_images"`},
	}
	for _, tc := range cases {
		t.Run(tc.body, func(t *testing.T) {
			e := decodeAPIError(t, post(t, base+"/v1/images/generations", tc.body), 400)
			if !strings.Contains(e.Error.Message, tc.wantMsg) {
				t.Fatalf("error %+v, want it to mention %q", e.Error, tc.wantMsg)
			}
		})
	}
}
