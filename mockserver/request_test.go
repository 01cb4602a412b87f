package mockserver

import (
	"errors"
	"strings"
	"testing"
)

func TestDecodeRequestRejectsBadInput(t *testing.T) {
	const msgs = `"messages":[{"role":"user","content":"hi"}]`
	cases := []struct {
		name    string
		kind    endpointKind
		body    string
		wantErr string
	}{
		{"truncated JSON", kindChat, `{"model":"m",`, "invalid JSON body"},
		{"not an object", kindChat, `[1,2]`, "invalid JSON body"},
		{"wrong field type", kindChat, `{"model":"m",` + msgs + `,"stream":"yes"}`, "invalid JSON body"},
		{"missing model", kindChat, `{` + msgs + `}`, `"model"`},
		{"missing messages", kindChat, `{"model":"m"}`, `"messages"`},
		{"empty messages", kindChat, `{"model":"m","messages":[]}`, `"messages"`},
		{"numeric content", kindChat, `{"model":"m","messages":[{"role":"user","content":5}]}`, "messages[0].content"},
		{"bad part list", kindChat, `{"model":"m","messages":[{"role":"user","content":"a"},{"role":"user","content":[1]}]}`, "messages[1].content"},
		{"zero max_tokens", kindChat, `{"model":"m",` + msgs + `,"max_tokens":0}`, `"max_tokens" must be >= 1, got 0`},
		{"negative max_completion_tokens", kindChat, `{"model":"m",` + msgs + `,"max_completion_tokens":-3}`, `"max_completion_tokens" must be >= 1, got -3`},
		{"negative min_tokens", kindChat, `{"model":"m",` + msgs + `,"min_tokens":-1}`, `"min_tokens" must be >= 0`},
		{"min above max", kindChat, `{"model":"m",` + msgs + `,"max_tokens":5,"min_tokens":6}`, `"min_tokens" (6) must not exceed "max_tokens" (5)`},
		{"missing prompt", kindCompletions, `{"model":"m"}`, `"prompt"`},
		{"object prompt", kindCompletions, `{"model":"m","prompt":{}}`, "prompt must be a string"},
		{"empty prompt list", kindCompletions, `{"model":"m","prompt":[]}`, "empty array"},
		{"mixed prompt list", kindCompletions, `{"model":"m","prompt":["a",1]}`, "prompt must be a string"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := decodeRequest([]byte(tc.body), tc.kind)
			if err == nil {
				t.Fatalf("accepted %s as %+v", tc.body, req)
			}
			var bad *badRequestError
			if !errors.As(err, &bad) {
				t.Fatalf("error %v is not a badRequestError", err)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %q does not mention %q", err, tc.wantErr)
			}
		})
	}
}

func TestDecodeRequestAcceptsOpenAIShapes(t *testing.T) {
	cases := []struct {
		name       string
		kind       endpointKind
		body       string
		wantText   string
		wantIDs    int
		wantMax    int
		wantMin    int
		wantStream bool
		wantUsage  bool
		wantIgnore bool
		wantEffort string
	}{
		{name: "string content", kind: kindChat,
			body:     `{"model":"m","messages":[{"role":"user","content":"hello"}],"stream":true,"stream_options":{"include_usage":true}}`,
			wantText: "hello", wantIDs: -1, wantStream: true, wantUsage: true},
		{name: "text parts only", kind: kindChat,
			body:     `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"b"}]}]}`,
			wantText: "ab", wantIDs: -1},
		{name: "all messages joined", kind: kindChat,
			body:     `{"model":"m","messages":[{"role":"system","content":"sys"},{"role":"assistant","content":null},{"role":"user","content":"hi"}]}`,
			wantText: "sys\n\nhi", wantIDs: -1},
		{name: "max_completion_tokens wins", kind: kindChat,
			body:     `{"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":9,"max_completion_tokens":7,"min_tokens":3,"ignore_eos":true,"reasoning_effort":"low"}`,
			wantText: "x", wantIDs: -1, wantMax: 7, wantMin: 3, wantIgnore: true, wantEffort: "low"},
		{name: "completion string", kind: kindCompletions,
			body: `{"model":"m","prompt":"once upon","max_tokens":4}`, wantText: "once upon", wantIDs: -1, wantMax: 4},
		{name: "completion string list", kind: kindCompletions,
			body: `{"model":"m","prompt":["a","b"]}`, wantText: "a\nb", wantIDs: -1},
		{name: "completion token ids", kind: kindCompletions,
			body: `{"model":"m","prompt":[1,2,3]}`, wantText: "[1,2,3]", wantIDs: 3},
		{name: "completion token id batches", kind: kindCompletions,
			body: `{"model":"m","prompt":[[1,2],[3]]}`, wantText: "[[1,2],[3]]", wantIDs: 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := decodeRequest([]byte(tc.body), tc.kind)
			if err != nil {
				t.Fatal(err)
			}
			if req.promptText != tc.wantText || req.promptTokenIDs != tc.wantIDs {
				t.Errorf("prompt = %q/%d, want %q/%d", req.promptText, req.promptTokenIDs, tc.wantText, tc.wantIDs)
			}
			if req.maxTokens != tc.wantMax || req.minTokens != tc.wantMin {
				t.Errorf("max/min = %d/%d, want %d/%d", req.maxTokens, req.minTokens, tc.wantMax, tc.wantMin)
			}
			if req.stream != tc.wantStream || req.includeUsage != tc.wantUsage || req.ignoreEOS != tc.wantIgnore {
				t.Errorf("stream/usage/ignore = %v/%v/%v, want %v/%v/%v",
					req.stream, req.includeUsage, req.ignoreEOS, tc.wantStream, tc.wantUsage, tc.wantIgnore)
			}
			if req.reasoningEffort != tc.wantEffort || req.model != "m" {
				t.Errorf("effort/model = %q/%q", req.reasoningEffort, req.model)
			}
		})
	}
}

func TestAppendJSONStringEscapes(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain", `"plain"`},
		{`a"b\c`, `"a\"b\\c"`},
		{"l1\nl2\tx\r", `"l1\nl2\tx\r"`},
		{"\x01", `"\u0001"`},
		{"héllo✓", `"héllo✓"`},
		{"bad\xffbyte", `"bad\ufffdbyte"`},
	}
	for _, tc := range cases {
		if got := string(appendJSONString(nil, tc.in)); got != tc.want {
			t.Errorf("appendJSONString(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
