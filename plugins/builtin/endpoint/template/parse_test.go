package template

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// configured returns an endpoint that has formatted one payload with extra
// (the response_field it parses with comes from there).
func configured(t *testing.T, extra map[string]any) *Endpoint {
	t.Helper()
	ep := New()
	if _, err := ep.FormatPayload(sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"x"}}, ExtraInputs: extra}); err != nil {
		t.Fatal(err)
	}
	return ep
}

// want describes a parsed unit: text, or a result kind and count, or
// nothing (the zero value: no content).
type want struct {
	text  string
	kind  string
	count int
	err   bool
}

func check(t *testing.T, ep *Endpoint, data string, w want) {
	t.Helper()
	got, err := ep.ParseResponse([]byte(data))
	if w.err {
		if err == nil {
			t.Errorf("%s: no error, want one (AIPerf raises)", data)
		}
		return
	}
	if err != nil {
		t.Errorf("%s: %v", data, err)
		return
	}
	if got.Text != w.text || got.Reasoning != "" || got.Usage != nil {
		t.Errorf("%s: text %q reasoning %q usage %v, want text %q", data, got.Text, got.Reasoning, got.Usage, w.text)
	}
	switch {
	case w.kind == "" && got.Result != nil:
		t.Errorf("%s: result %+v, want none", data, *got.Result)
	case w.kind != "" && (got.Result == nil || got.Result.Kind != w.kind || got.Result.Count != w.count):
		t.Errorf("%s: result %+v, want %s x%d", data, got.Result, w.kind, w.count)
	}
	if content := w.text != "" || w.kind != ""; got.HasContent() != content {
		t.Errorf("%s: HasContent %v, want %v", data, got.HasContent(), content)
	}
}

func TestParseResponseAutoDetect(t *testing.T) {
	cases := []struct {
		data string
		want want
	}{
		// fakeserver.py's answer to template requests
		{`{"text": "Hello from the fake server.", "custom": {"answer": "Hello from the fake server."}}`, want{text: "Hello from the fake server."}},
		{`{"text": ["A", "B", "C"]}`, want{text: "ABC"}},
		{`{"text": ""}`, want{}},
		{`{"text": "", "content": "not reached"}`, want{}},
		{`{"content": "c"}`, want{text: "c"}},
		{`{"response": "r"}`, want{text: "r"}},
		{`{"output": "o"}`, want{text: "o"}},
		{`{"result": "res"}`, want{text: "res"}},
		{`{"text": [1, "a"], "content": "c"}`, want{text: "c"}},
		{`{"text": 5, "output": ["x", "y"]}`, want{text: "xy"}},
		{`{"choices": [{"text": "completion"}]}`, want{text: "completion"}},
		{`{"choices": [{"message": {"role": "assistant", "content": "chat"}}]}`, want{text: "chat"}},
		{`{"choices": [{"delta": {"content": "delta"}}]}`, want{text: "delta"}},
		{`{"choices": [{"text": "", "message": {"content": ""}, "delta": {"content": "d"}}]}`, want{text: "d"}},
		{`{"choices": [{"delta": {"role": "assistant"}}]}`, want{}},
		{`{"choices": []}`, want{}},
		{`{"choices": ["x"]}`, want{err: true}},
		{`{"choices": [{"message": "x"}]}`, want{err: true}},
		{`{"choices": [{"text": 5}]}`, want{err: true}},
		{`{"usage": {"completion_tokens": 5}}`, want{}},
		// embeddings before rankings before text
		{`{"object": "list", "data": [{"object": "embedding", "embedding": [0.1], "index": 0}, {"object": "embedding", "embedding": [0.2], "index": 1}], "text": "t"}`,
			want{kind: sdk.ResultEmbeddings, count: 2}},
		{`{"data": [{"object": "embedding", "embedding": [0.1]}, {"index": 1}]}`, want{kind: sdk.ResultEmbeddings, count: 1}},
		{`{"data": [{"object": "embedding"}], "results": [{"index": 0}]}`, want{kind: sdk.ResultRankings, count: 1}},
		{`{"data": [{"object": "embedding", "embedding": [1]}, 5]}`, want{err: true}},
		{`{"data": [{"embedding": [0.1]}], "text": "t"}`, want{text: "t"}},
		{`{"embeddings": [[1, 2], [3, 4], [5, 6]]}`, want{kind: sdk.ResultEmbeddings, count: 3}},
		{`{"embedding": [0.5, 0.1]}`, want{kind: sdk.ResultEmbeddings, count: 1}},
		{`{"embeddings": [], "embedding": [true]}`, want{kind: sdk.ResultEmbeddings, count: 1}},
		{`{"embeddings": ["a"], "text": "t"}`, want{text: "t"}},
		{`{"rankings": [{"index": 1, "logit": 0.3}, {"index": 0, "logit": 0.1}]}`, want{kind: sdk.ResultRankings, count: 2}},
		{`{"results": [], "text": "t"}`, want{kind: sdk.ResultRankings, count: 0}},
		{`{"rankings": {"index": 0}, "results": [{"index": 0, "relevance_score": 0.9}]}`, want{kind: sdk.ResultRankings, count: 1}},
		// top-level values that are not objects
		{`[{"index": 0, "score": 0.9}, {"index": 1, "score": 0.1}]`, want{kind: sdk.ResultRankings, count: 2}},
		{`[[0.1, 0.2], [0.3, 0.4]]`, want{kind: sdk.ResultEmbeddings, count: 2}},
		{`[0.1, 0.2]`, want{kind: sdk.ResultEmbeddings, count: 1}},
		{`["a", "b"]`, want{}},
		{`"a JSON string"`, want{text: "a JSON string"}},
		{`42`, want{}},
		// not JSON, or JSON that Python finds false: the raw text
		{`plain text answer`, want{text: "plain text answer"}},
		{`[DONE]`, want{}}, // the end marker, not text (AIPerf differs)
		{`{}`, want{text: "{}"}},
		{`[]`, want{text: "[]"}},
		{`null`, want{text: "null"}},
		{`0`, want{text: "0"}},
		{`""`, want{text: `""`}},
		{``, want{}},
	}
	unconfigured := New()
	textField := configured(t, map[string]any{KeyPayloadTemplate: `{}`, KeyResponseField: "text"})
	for _, c := range cases {
		check(t, unconfigured, c.data, c.want)
		check(t, textField, c.data, c.want)
	}
}

func TestParseResponseField(t *testing.T) {
	cases := []struct {
		field, data string
		want        want
	}{
		{"custom.answer", `{"text": "Hello", "custom": {"answer": "Hello from the fake server."}}`, want{text: "Hello from the fake server."}},
		{"custom.answer", `{"text": "auto-detect would find me"}`, want{}},
		{"custom.answer", `{"custom": {"answer": ""}}`, want{}},
		{"data[*].embedding", `{"data": [{"embedding": [0.1, 0.2]}, {"embedding": [0.3, 0.4]}, {"embedding": [0.5, 0.6]}]}`,
			want{kind: sdk.ResultEmbeddings, count: 3}},
		{"vec", `{"vec": [0.1, 0.2, 0.3]}`, want{kind: sdk.ResultEmbeddings, count: 1}},
		{"out.ranked", `{"out": {"ranked": [{"i": 0}, {"i": 1}]}}`, want{kind: sdk.ResultRankings, count: 2}},
		{"out.ranked[0].label", `{"out": {"ranked": [{"label": "first"}]}}`, want{text: "first"}},
		{"n", `{"n": 5}`, want{}},
		{"obj", `{"obj": {"a": 1}}`, want{}},
		{"words", `{"words": ["a", "b"]}`, want{}},
		{"length(words)", `{"words": "abc"}`, want{}},
		{"custom.answer", `not json`, want{text: "not json"}},
		{"custom.answer", `[DONE]`, want{}},
		{"custom.answer", `{}`, want{text: "{}"}},
	}
	for _, c := range cases {
		ep := configured(t, map[string]any{KeyPayloadTemplate: `{}`, KeyResponseField: c.field})
		check(t, ep, c.data, c.want)
	}
}

// TestStreamingOverLoopback sends the rendered body to a server that
// answers like the capture server (fakeserver.py) does for template
// streams, and parses every SSE event: each word is a content response;
// the final [DONE] is not (AIPerf counted it: 8 output tokens for
// "Hello from the fake server.[DONE]" in the template_stream capture).
func TestStreamingOverLoopback(t *testing.T) {
	words := []string{"Hello", " from", " the", " fake", " server", "."}
	for _, c := range []struct {
		name, field string
		event       func(w string) any
	}{
		{"auto-detected", "", func(w string) any { return map[string]any{"text": w} }},
		{"response_field", "custom.answer", func(w string) any { return map[string]any{"custom": map[string]any{"answer": w}} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got map[string]any
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				raw, _ := io.ReadAll(r.Body)
				if err := json.Unmarshal(raw, &got); err != nil {
					http.Error(w, err.Error(), http.StatusBadRequest)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				for _, word := range words {
					ev, _ := json.Marshal(c.event(word))
					io.WriteString(w, "data: "+string(ev)+"\n\n")
				}
				io.WriteString(w, "data: [DONE]\n\n")
			}))
			defer srv.Close()

			extra := map[string]any{KeyPayloadTemplate: "testdata/custom.j2"}
			if c.field != "" {
				extra[KeyResponseField] = c.field
			}
			ep := New()
			body, err := ep.FormatPayload(sdk.RequestInfo{Model: "mock-model", Streaming: true,
				Turn: sdk.Turn{Texts: []string{"hi"}}, ExtraInputs: extra})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.Post(srv.URL+"/custom/generate", "application/json", bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("status %d: %s", resp.StatusCode, b)
			}
			if got["stream"] != true || got["prompt"] != "hi" {
				t.Errorf("server got %v, want stream true and the prompt", got)
			}

			var text strings.Builder
			content := 0
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				data, ok := strings.CutPrefix(sc.Text(), "data: ")
				if !ok {
					continue
				}
				p, err := ep.ParseResponse([]byte(data))
				if err != nil {
					t.Fatalf("event %q: %v", data, err)
				}
				if p.HasContent() {
					content++
				}
				text.WriteString(p.Text)
			}
			if want := "Hello from the fake server."; text.String() != want || content != len(words) {
				t.Errorf("parsed %q in %d content events, want %q in %d", text.String(), content, want, len(words))
			}
		})
	}
}
