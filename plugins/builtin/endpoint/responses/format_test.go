package responses

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func intp(n int) *int { return &n }

// capture is one line of testdata/captures.jsonl: a request AIPerf sent and
// the turn it was built from.
type capture struct {
	Capture      string   `json:"capture"`
	Request      int      `json:"request"`
	Model        string   `json:"model"`
	Streaming    bool     `json:"streaming"`
	IncludeUsage bool     `json:"include_usage"`
	Texts        []string `json:"texts"`
	Images       []string `json:"images"`
	System       string   `json:"system"`
	MaxTokens    *int     `json:"max_tokens"`
	Body         string   `json:"body"`
}

func loadCaptures(t *testing.T) []capture {
	t.Helper()
	f, err := os.Open("testdata/captures.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []capture
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c capture
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// The request info the engine hands over for a captured request: the
// --system-prompt arrives as the conversation's system message.
func (c capture) requestInfo() sdk.RequestInfo {
	req := sdk.RequestInfo{Model: c.Model, Streaming: c.Streaming, IncludeUsage: c.IncludeUsage,
		Turn: sdk.Turn{Texts: c.Texts, Images: c.Images, MaxTokens: c.MaxTokens}}
	req.SystemMessage = c.System
	return req
}

func TestFormatPayloadMatchesCaptures(t *testing.T) {
	caps := loadCaptures(t)
	seen := map[string]bool{}
	for _, c := range caps {
		seen[c.Capture] = true
		got, err := New().FormatPayload(c.requestInfo())
		if err != nil {
			t.Fatalf("%s #%d: %v", c.Capture, c.Request, err)
		}
		if string(got) != c.Body {
			t.Errorf("%s #%d:\n got %s\nwant %s", c.Capture, c.Request, got, c.Body)
		}
	}
	for _, name := range []string{"responses", "responses_stream"} {
		if !seen[name] {
			t.Errorf("testdata has no request of capture %s", name)
		}
	}
}

func TestFormatPayloadGolden(t *testing.T) {
	hello := sdk.Turn{Texts: []string{"Hello"}, MaxTokens: intp(100)}
	cases := []struct {
		name string
		req  sdk.RequestInfo
		want string
	}{
		{
			name: "non-streaming, no max tokens",
			req:  sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"Hello"}}},
			want: `{"input":[{"role":"user","content":"Hello","type":"message"}],"model":"m","stream":false}`,
		},
		{
			name: "streaming without server token counts has no stream_options",
			req:  sdk.RequestInfo{Model: "m", Streaming: true, Turn: hello},
			want: `{"input":[{"role":"user","content":"Hello","type":"message"}],"model":"m","stream":true,"max_output_tokens":100}`,
		},
		{
			name: "streaming with server token counts asks for usage last",
			req:  sdk.RequestInfo{Model: "m", Streaming: true, IncludeUsage: true, Turn: hello, ExtraInputs: map[string]any{"top_p": 0.9}},
			want: `{"input":[{"role":"user","content":"Hello","type":"message"}],"model":"m","stream":true,"max_output_tokens":100,"top_p":0.9,"stream_options":{"include_usage":true}}`,
		},
		{
			name: "include usage alone does nothing without streaming",
			req:  sdk.RequestInfo{Model: "m", IncludeUsage: true, Turn: hello},
			want: `{"input":[{"role":"user","content":"Hello","type":"message"}],"model":"m","stream":false,"max_output_tokens":100}`,
		},
		{
			name: "author stream_options object kept, include_usage appended",
			req: sdk.RequestInfo{Model: "m", Streaming: true, IncludeUsage: true, Turn: hello,
				ExtraInputs: map[string]any{"stream_options": map[string]any{"continuous_usage_stats": true}}},
			want: `{"input":[{"role":"user","content":"Hello","type":"message"}],"model":"m","stream":true,"max_output_tokens":100,"stream_options":{"continuous_usage_stats":true,"include_usage":true}}`,
		},
		{
			name: "author include_usage false wins",
			req: sdk.RequestInfo{Model: "m", Streaming: true, IncludeUsage: true, Turn: hello,
				ExtraInputs: map[string]any{"stream_options": map[string]any{"include_usage": false}}},
			want: `{"input":[{"role":"user","content":"Hello","type":"message"}],"model":"m","stream":true,"max_output_tokens":100,"stream_options":{"include_usage":false}}`,
		},
		{
			name: "a stream_options that is not an object is replaced in place",
			req: sdk.RequestInfo{Model: "m", Streaming: true, IncludeUsage: true, Turn: hello,
				ExtraInputs: map[string]any{"stream_options": "yes", "top_k": 5}},
			want: `{"input":[{"role":"user","content":"Hello","type":"message"}],"model":"m","stream":true,"max_output_tokens":100,"stream_options":{"include_usage":true},"top_k":5}`,
		},
		{
			name: "extra inputs override in place, turn extra after them",
			req: sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"Hello"}, Extra: map[string]any{"temperature": 0.0, "seed": 7.0}},
				ExtraInputs: map[string]any{"model": "other", "temperature": 0.5, "store": true}},
			want: `{"input":[{"role":"user","content":"Hello","type":"message"}],"model":"other","stream":false,"store":true,"temperature":0,"seed":7}`,
		},
		{
			name: "system prompt, multi-turn history and turn model",
			req: sdk.RequestInfo{Model: "m",
				History: []sdk.HistoryEntry{{Role: "system", Text: "Be brief."}, {Role: "user", Text: "Hi"}, {Role: "assistant", Text: "Hello!"}},
				Turn:    sdk.Turn{Texts: []string{"More"}, Model: "m2", MaxTokens: intp(8)}},
			want: `{"input":[{"role":"user","content":"Hi","type":"message"},{"role":"assistant","content":"Hello!","type":"message"},{"role":"user","content":"More","type":"message"}],"model":"m2","stream":false,"instructions":"Be brief.","max_output_tokens":8}`,
		},
		{
			name: "system prompt is the instructions; user context is the first item",
			req: sdk.RequestInfo{Model: "m", SystemMessage: "Be brief.", UserContextMessage: "Ctx.",
				History: []sdk.HistoryEntry{{Role: "system", Text: "Own."}}, Turn: sdk.Turn{Texts: []string{"More"}}},
			want: `{"input":[{"role":"user","content":"Ctx.","type":"message"},{"role":"user","content":"More","type":"message"}],"model":"m","stream":false,"instructions":"Be brief.\n\nOwn."}`,
		},
		{
			name: "verbatim items without the replay-unsafe output types, tools last",
			req: sdk.RequestInfo{Model: "m", History: []sdk.HistoryEntry{{Role: "user", Text: "ignored"}},
				Turn: sdk.Turn{RawMessages: json.RawMessage(`[{"role":"user","content":"q"},{"type":"reasoning","summary":[]},{"type":"function_call","name":"f","arguments":"{}","call_id":"c"},{"type":"web_search_call","id":"w"}]`),
					RawTools: json.RawMessage(`[{"type":"function","name":"f"}]`), MaxTokens: intp(9)}},
			want: `{"input":[{"role":"user","content":"q"},{"type":"function_call","name":"f","arguments":"{}","call_id":"c"}],"model":"m","stream":false,"max_output_tokens":9,"tools":[{"type":"function","name":"f"}]}`,
		},
		{
			name: "empty system prompt is no instructions; an empty history role is user",
			req:  sdk.RequestInfo{Model: "m", History: []sdk.HistoryEntry{{Role: "system"}, {Text: "Hi"}}, Turn: sdk.Turn{Texts: []string{"x"}, Role: "developer"}},
			want: `{"input":[{"role":"user","content":"Hi","type":"message"},{"role":"developer","content":"x","type":"message"}],"model":"m","stream":false}`,
		},
		{
			name: "several texts become input_text parts, empty skipped",
			req:  sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"one", "", "two"}}},
			want: `{"input":[{"role":"user","content":[{"type":"input_text","text":"one"},{"type":"input_text","text":"two"}],"type":"message"}],"model":"m","stream":false}`,
		},
		{
			name: "text groups follow the texts as parts",
			req: sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"a"},
				TextGroups: []sdk.TextGroup{{Name: "query", Contents: []string{"q", ""}}, {Name: "passages", Contents: []string{"p"}}}}},
			want: `{"input":[{"role":"user","content":[{"type":"input_text","text":"a"},{"type":"input_text","text":"q"},{"type":"input_text","text":"p"}],"type":"message"}],"model":"m","stream":false}`,
		},
		{
			name: "a lone text group of one text is bare",
			req:  sdk.RequestInfo{Model: "m", Turn: sdk.Turn{TextGroups: []sdk.TextGroup{{Name: "query", Contents: []string{"q"}}}}},
			want: `{"input":[{"role":"user","content":"q","type":"message"}],"model":"m","stream":false}`,
		},
		{
			name: "no part at all degrades to an empty string",
			req:  sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Images: []string{""}}},
			want: `{"input":[{"role":"user","content":"","type":"message"}],"model":"m","stream":false}`,
		},
		{
			name: "texts, images then audios; audio as chat's input_audio",
			req: sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"look"},
				Audios: []string{"wav,UklGRg==", "data:audio/mp3;base64,SUQz", "data:audio/;base64,AAAA"},
				Images: []string{"data:image/png;base64,iVBOR", "https://example.com/a.jpg"}}},
			want: `{"input":[{"role":"user","content":[{"type":"input_text","text":"look"},` +
				`{"type":"input_image","image_url":"data:image/png;base64,iVBOR"},{"type":"input_image","image_url":"https://example.com/a.jpg"},` +
				`{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}},` +
				`{"type":"input_audio","input_audio":{"data":"SUQz","format":"mp3"}},` +
				`{"type":"input_audio","input_audio":{"data":"AAAA","format":"wav"}}],"type":"message"}],"model":"m","stream":false}`,
		},
		{
			name: "no HTML escaping",
			req:  sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{`<b>&"x"</b>`}}},
			want: `{"input":[{"role":"user","content":"<b>&\"x\"</b>","type":"message"}],"model":"m","stream":false}`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := New().FormatPayload(c.req)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("\n got %s\nwant %s", got, c.want)
			}
			if !json.Valid(got) {
				t.Errorf("invalid JSON: %s", got)
			}
		})
	}
}

func TestFormatPayloadRejects(t *testing.T) {
	cases := []struct {
		name string
		req  sdk.RequestInfo
		want string
	}{
		{"no model", sdk.RequestInfo{Turn: sdk.Turn{Texts: []string{"x"}}}, "no model"},
		{"video", sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"x"}, Videos: []string{"data:video/webm;base64,GkXf"}}},
			"does not support video"},
		{"audio without format", sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Audios: []string{"UklGRg"}}}, "<format>,<base64>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := New().FormatPayload(c.req)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "responses: ") {
				t.Fatalf("got %s, %v; want an error containing %q", got, err, c.want)
			}
		})
	}
	// An empty video entry is skipped like any empty part, as in AIPerf.
	if _, err := New().FormatPayload(sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"x"}, Videos: []string{""}}}); err != nil {
		t.Errorf("empty video entry: %v", err)
	}
}
