package messages

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/rawexport"
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
	for _, name := range []string{"messages", "messages_stream"} {
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
			name: "no output length sends 1024, no stream key",
			req:  sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"Hello"}}},
			want: `{"model":"m","messages":[{"role":"user","content":"Hello"}],"max_tokens":1024}`,
		},
		{
			name: "streaming, no stream_options even with server token counts",
			req:  sdk.RequestInfo{Model: "m", Streaming: true, IncludeUsage: true, Turn: hello},
			want: `{"model":"m","messages":[{"role":"user","content":"Hello"}],"max_tokens":100,"stream":true}`,
		},
		{
			name: "max tokens 0 is sent as asked",
			req:  sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"Hello"}, MaxTokens: intp(0)}},
			want: `{"model":"m","messages":[{"role":"user","content":"Hello"}],"max_tokens":0}`,
		},
		{
			name: "extra inputs override in place, turn extra after them",
			req: sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"Hello"}, Extra: map[string]any{"temperature": 0.0, "top_k": 5}},
				ExtraInputs: map[string]any{"max_tokens": 64, "temperature": 0.5, "thinking": map[string]any{"type": "enabled", "budget_tokens": 1024}}},
			want: `{"model":"m","messages":[{"role":"user","content":"Hello"}],"max_tokens":64,"temperature":0,"thinking":{"budget_tokens":1024,"type":"enabled"},"top_k":5}`,
		},
		{
			name: "system prompt, multi-turn history and turn model",
			req: sdk.RequestInfo{Model: "m", Streaming: true,
				History: []sdk.HistoryEntry{{Role: "system", Text: "Be brief."}, {Role: "user", Text: "Hi"}, {Role: "assistant", Text: "Hello!"}},
				Turn:    sdk.Turn{Texts: []string{"More"}, Model: "m2", MaxTokens: intp(8)}},
			want: `{"model":"m2","messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello!"},{"role":"user","content":"More"}],"max_tokens":8,"stream":true,"system":"Be brief."}`,
		},
		{
			name: "system prompt joins a leading system entry; user context leads the messages",
			req: sdk.RequestInfo{Model: "m", SystemMessage: "Be brief.", UserContextMessage: "Ctx.",
				History: []sdk.HistoryEntry{{Role: "system", Text: "Own."}, {Role: "user", Text: "Hi"}, {Role: "assistant", Text: "Yo"}},
				Turn:    sdk.Turn{Texts: []string{"More"}}},
			want: `{"model":"m","messages":[{"role":"user","content":"Ctx."},{"role":"user","content":"Hi"},{"role":"assistant","content":"Yo"},{"role":"user","content":"More"}],"max_tokens":1024,"system":"Be brief.\n\nOwn."}`,
		},
		{
			name: "verbatim messages and tools replace history and turn",
			req: sdk.RequestInfo{Model: "m", SystemMessage: "S", History: []sdk.HistoryEntry{{Role: "user", Text: "ignored"}},
				Turn: sdk.Turn{RawMessages: json.RawMessage(`[{"role":"user","content":[{"type":"text","text":"q"}]}]`),
					RawTools: json.RawMessage(`[{"name":"f","input_schema":{}}]`), MaxTokens: intp(9)}},
			want: `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"q"}]}],"max_tokens":9,"system":"S","tools":[{"name":"f","input_schema":{}}]}`,
		},
		{
			name: "empty system prompt is no system; an empty role is user",
			req:  sdk.RequestInfo{Model: "m", History: []sdk.HistoryEntry{{Role: "system"}, {Text: "Hi"}}, Turn: sdk.Turn{Texts: []string{"x"}}},
			want: `{"model":"m","messages":[{"role":"user","content":"Hi"},{"role":"user","content":"x"}],"max_tokens":1024}`,
		},
		{
			name: "several texts become text blocks, empty skipped",
			req:  sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"one", "", "two"}}},
			want: `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"one"},{"type":"text","text":"two"}]}],"max_tokens":1024}`,
		},
		{
			name: "text groups follow the texts as blocks",
			req: sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"a"},
				TextGroups: []sdk.TextGroup{{Name: "query", Contents: []string{"q", ""}}, {Name: "passages", Contents: []string{"p"}}}}},
			want: `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"q"},{"type":"text","text":"p"}]}],"max_tokens":1024}`,
		},
		{
			name: "a lone text group of one text is bare",
			req:  sdk.RequestInfo{Model: "m", Turn: sdk.Turn{TextGroups: []sdk.TextGroup{{Name: "query", Contents: []string{"q"}}}}},
			want: `{"model":"m","messages":[{"role":"user","content":"q"}],"max_tokens":1024}`,
		},
		{
			name: "no block at all degrades to an empty string",
			req:  sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{""}, Images: []string{""}, Audios: []string{""}}},
			want: `{"model":"m","messages":[{"role":"user","content":""}],"max_tokens":1024}`,
		},
		{
			name: "images: data URIs as base64 sources, anything else as url sources",
			req: sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"look"},
				Images: []string{"data:image/jpeg;base64,/9j/4AAQ", "https://example.com/cat.png", "data:;base64,iVBOR"}}},
			want: `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"look"},` +
				`{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"/9j/4AAQ"}},` +
				`{"type":"image","source":{"type":"url","url":"https://example.com/cat.png"}},` +
				`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBOR"}}]}],"max_tokens":1024}`,
		},
		{
			name: "no HTML escaping",
			req:  sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{`<b>&"x"</b>`}}},
			want: `{"model":"m","messages":[{"role":"user","content":"<b>&\"x\"</b>"}],"max_tokens":1024}`,
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
		{"audio", sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"x"}, Audios: []string{"wav,UklGR"}}}, "does not support audio"},
		{"video", sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"x"}, Videos: []string{"https://example.com/v.mp4"}}},
			"does not support video"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := New().FormatPayload(c.req)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "messages: ") {
				t.Fatalf("got %s, %v; want an error containing %q", got, err, c.want)
			}
		})
	}
}

func TestHeaders(t *testing.T) {
	h := New().Headers("sk-test")
	if len(h) != 2 || h["x-api-key"] != "sk-test" || h["anthropic-version"] != "2023-06-01" {
		t.Errorf("Headers(key) = %v", h)
	}
	h = New().Headers("")
	if len(h) != 1 || h["anthropic-version"] != "2023-06-01" {
		t.Errorf("Headers(\"\") = %v, want only anthropic-version", h)
	}
	// Whatever carries the key must be redacted in the raw export.
	for name, v := range New().Headers("sk-secret") {
		if strings.Contains(v, "sk-secret") && !rawexport.SensitiveHeader(name) {
			t.Errorf("header %s carries the API key but the raw export would not redact it", name)
		}
	}
}
