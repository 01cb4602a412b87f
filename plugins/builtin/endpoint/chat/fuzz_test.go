package chat

import (
	"reflect"
	"testing"

	"github.com/aiperf-go/aiperf/internal/fuzzcheck"
)

func FuzzParseResponse(f *testing.F) {
	fuzzcheck.Endpoint(f, New(), vllmRoleChunk, vllmContentChunk, vllmReasoningChunk, vllmUsageChunk,
		`{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hi","reasoning_content":"r"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5,"completion_tokens_details":{"reasoning_tokens":1}}}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"f","arguments":"{\"a\":1}"}}]}}]}`,
		`{"object":"chat.completion.chunk","choices":[{"delta":{"content":"h\u00e9 \ud83c\udfad\n"}}],"usage":null}`)
}

// FuzzFastPath checks the hand-written scanner against encoding/json: an
// input the fast path accepts is valid JSON and parses the same both ways.
func FuzzFastPath(f *testing.F) {
	for _, s := range []string{vllmRoleChunk, vllmContentChunk, vllmReasoningChunk, vllmUsageChunk,
		`{"choices":[{"delta":{"content":"d","tool_calls":null}}],"extra":[true,false,null,1.5e-3,-2E+2,"s"]}`,
		`{"usage":{"prompt_tokens":01}}`, `{"obj\u0065ct":"x"}`, "{\"a\":\"ctl\x01\"}",
		// encoding/json lets the last of repeated keys win, or merges them.
		`{"choices":[{"delta":{"content":"x"}}],"choices":[]}`,
		`{"choices":[{"delta":{"content":"x"},"delta":null,"delta":{"reasoning":"r"}}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fr flatResponse
		if !scanResponse(data, &fr) {
			return
		}
		fast, err := New().ParseResponse(data)
		if err != nil {
			t.Fatalf("fast path accepted what ParseResponse refuses: %v", err)
		}
		slow, err := parseSlow(data)
		if err != nil {
			t.Fatalf("fast path accepted what encoding/json refuses: %v", err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("fast %+v, slow %+v", fast, slow)
		}
	})
}
