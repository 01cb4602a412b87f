package chat

import (
	"testing"
)

// firstTokenInputs covers the chunk shapes the fast path reads, the ones it
// hands to the full parse, and malformed data.
var firstTokenInputs = []struct {
	data string
	want bool
}{
	{"", false},
	{"[DONE]", false},
	{" [DONE]\n", false},
	{vllmRoleChunk, false},
	{vllmContentChunk, true},
	{vllmReasoningChunk, true},
	{vllmUsageChunk, false},
	{`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":null,"reasoning":"hmm"}}]}`, true},
	{`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":null,"content":"x"}}],"usage":null}`, true},
	{`{"object":"chat.completion.chunk","choices":[{"delta":{"content":"\n"}}]}`, true},
	{`{"object":"chat.completion.chunk","choices":[{"delta":{"content":"\q"}}]}`, false}, // malformed escape
	{`{"object":"chat.completion.chunk","choices":[{"delta":{"content":""},"finish_reason":"stop"}]}`, false},
	// The object decides which message counts.
	{`{"object":"chat.completion","choices":[{"delta":{"content":"d"},"message":{"content":""}}]}`, false},
	{`{"object":"chat.completion","choices":[{"message":{"content":"whole body"}}]}`, true},
	{`{"object":"chat.completion.chunk","choices":[{"delta":null,"message":{"content":"m"}}]}`, false},
	{`{"choices":[{"delta":null,"message":{"content":"m"}}]}`, true},
	{`{"choices":[{"delta":{"content":""},"message":{"content":"m"}}]}`, false},
	{`{"object":"text_completion","choices":[{"delta":{"content":"any"}}]}`, true},
	{`{"object":"chat.completion.chunk","choices":[{"delta":{"content":""}},{"delta":{"content":"second"}}]}`, false},
	{`{"choices":null}`, false},
	{`{"choices":[]}`, false},
	{`{}`, false},
	{`{"usage":{"prompt_tokens":1.5}}`, false},
	// Handed to the full parse: tool calls, wrong types, bad syntax.
	{`{"choices":[{"delta":{"tool_calls":[{"function":{"name":"f"}}]}}]}`, true},
	{`{"choices":[{"delta":{"tool_calls":[{"function":{"name":""}}]}}]}`, false},
	{`{"choices":[{"delta":{"content":[1]}}]}`, false},
	{`{"choices":[{"delta":{"content":"x"}}]`, false},
	{`{"choices":[{"delta":{"content":"x"}}]}x`, false},
	{`not json`, false},
}

func TestIsFirstToken(t *testing.T) {
	ep := New()
	for _, c := range firstTokenInputs {
		if got := ep.IsFirstToken([]byte(c.data)); got != c.want {
			t.Errorf("IsFirstToken(%s) = %v, want %v", c.data, got, c.want)
		}
	}
}

// The detector is ParseResponse(data).HasContent() without the parse: the
// prefill slot is released exactly where metrics see the first token.
func TestIsFirstTokenAgreesWithParseResponse(t *testing.T) {
	ep := New()
	for _, c := range firstTokenInputs {
		p, err := ep.ParseResponse([]byte(c.data))
		if want := err == nil && p.HasContent(); ep.IsFirstToken([]byte(c.data)) != want {
			t.Errorf("%s: IsFirstToken %v, ParseResponse content %v (err %v)", c.data, !want, want, err)
		}
	}
}

func TestIsFirstTokenDoesNotAllocate(t *testing.T) {
	ep := New()
	for _, data := range []string{vllmRoleChunk, vllmContentChunk, vllmUsageChunk, "[DONE]",
		`{"object":"chat.completion.chunk","choices":[{"delta":{"content":"\n"}}]}`} {
		b := []byte(data)
		if n := testing.AllocsPerRun(100, func() { ep.IsFirstToken(b) }); n != 0 {
			t.Errorf("%s: %v allocations per call", data, n)
		}
	}
}

func BenchmarkIsFirstToken(b *testing.B) {
	ep := New()
	for _, c := range []struct{ name, data string }{{"role", vllmRoleChunk}, {"content", vllmContentChunk}, {"done", "[DONE]"}} {
		data := []byte(c.data)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ep.IsFirstToken(data)
			}
		})
	}
}
