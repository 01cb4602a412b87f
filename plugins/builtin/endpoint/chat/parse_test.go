package chat

import (
	"strings"
	"testing"
)

// Chunks below are shaped like vLLM's OpenAI server output.
const (
	vllmRoleChunk      = `{"id":"chatcmpl-a1","object":"chat.completion.chunk","created":1718000000,"model":"Qwen/Qwen3-0.6B","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`
	vllmContentChunk   = `{"id":"chatcmpl-a1","object":"chat.completion.chunk","created":1718000000,"model":"Qwen/Qwen3-0.6B","choices":[{"index":0,"delta":{"content":" thee"},"logprobs":null,"finish_reason":null}]}`
	vllmReasoningChunk = `{"id":"chatcmpl-a1","object":"chat.completion.chunk","created":1718000000,"model":"Qwen/Qwen3-0.6B","choices":[{"index":0,"delta":{"reasoning_content":"Let me think"},"logprobs":null,"finish_reason":null}]}`
	vllmUsageChunk     = `{"id":"chatcmpl-a1","object":"chat.completion.chunk","created":1718000000,"model":"Qwen/Qwen3-0.6B","choices":[],"usage":{"prompt_tokens":12,"total_tokens":17,"completion_tokens":5}}`
)

func TestParseResponse(t *testing.T) {
	cases := []struct {
		name                string
		data                string
		text, reasoning     string
		prompt, completion  int // -1 = no usage
		reasoningTokens     int // -1 = absent
		hasContent, noUsage bool
	}{
		{name: "role-only first delta", data: vllmRoleChunk, noUsage: true},
		{name: "content", data: vllmContentChunk, text: " thee", hasContent: true, noUsage: true},
		{name: "reasoning_content", data: vllmReasoningChunk, reasoning: "Let me think", hasContent: true, noUsage: true},
		{name: "reasoning (newer vLLM)", data: `{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":null,"reasoning":"hmm"}}]}`,
			reasoning: "hmm", hasContent: true, noUsage: true},
		{name: "both content and reasoning", data: `{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"A","reasoning_content":"B"}}]}`,
			text: "A", reasoning: "B", hasContent: true, noUsage: true},
		{name: "reasoning_content wins over reasoning", data: `{"object":"chat.completion.chunk","choices":[{"delta":{"reasoning_content":"rc","reasoning":"r"}}]}`,
			reasoning: "rc", hasContent: true, noUsage: true},
		{name: "usage-only chunk", data: vllmUsageChunk, prompt: 12, completion: 5, reasoningTokens: -1},
		// The trailing usage chunk some gateways send with a choice and an
		// empty delta instead of choices [] (issue 16): usage, no content.
		{name: "usage chunk with an empty-delta choice", data: `{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{}}],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}`,
			prompt: 10, completion: 2, reasoningTokens: -1},
		{name: "sglang null usage on content chunk", data: `{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":null,"content":"x"}}],"usage":null}`,
			text: "x", hasContent: true, noUsage: true},
		{name: "non-streaming body",
			data: `{"id":"chatcmpl-b2","object":"chat.completion","created":1718000000,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Shall I compare thee","reasoning_content":null,"tool_calls":[]},"logprobs":null,"finish_reason":"length","stop_reason":null}],"usage":{"prompt_tokens":9,"total_tokens":14,"completion_tokens":5,"prompt_tokens_details":null}}`,
			text: "Shall I compare thee", hasContent: true, prompt: 9, completion: 5, reasoningTokens: -1},
		{name: "non-streaming with reasoning tokens",
			data: `{"object":"chat.completion","choices":[{"message":{"role":"assistant","content":"42","reasoning_content":"compute"}}],"usage":{"prompt_tokens":3,"completion_tokens":8,"completion_tokens_details":{"reasoning_tokens":6}}}`,
			text: "42", reasoning: "compute", hasContent: true, prompt: 3, completion: 8, reasoningTokens: 6},
		{name: "chat.completion ignores a stray delta", data: `{"object":"chat.completion","choices":[{"delta":{"content":"no"},"message":{"content":"yes"}}]}`,
			text: "yes", hasContent: true, noUsage: true},
		{name: "object missing uses delta", data: `{"choices":[{"delta":{"content":"d"}}]}`, text: "d", hasContent: true, noUsage: true},
		{name: "object missing falls back to message", data: `{"choices":[{"message":{"content":"m"}}]}`, text: "m", hasContent: true, noUsage: true},
		{name: "tool call delta counts as text", data: `{"object":"chat.completion.chunk","choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"get_weather","arguments":"{\"city\""}}]}}]}`,
			text: `get_weather{"city"`, hasContent: true, noUsage: true},
		{name: "error object", data: `{"error":{"message":"overloaded","code":503}}`, noUsage: true},
		{name: "content of wrong type is skipped", data: `{"object":"chat.completion.chunk","choices":[{"delta":{"content":[1,2],"reasoning":"r"}}]}`,
			reasoning: "r", hasContent: true, noUsage: true},
		{name: "done", data: "[DONE]", noUsage: true},
		{name: "empty", data: "", noUsage: true},
		{name: "whitespace", data: " \n", noUsage: true},
	}
	ep := New()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ep.ParseResponse([]byte(c.data))
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != c.text || got.Reasoning != c.reasoning {
				t.Errorf("text=%q reasoning=%q, want %q %q", got.Text, got.Reasoning, c.text, c.reasoning)
			}
			if got.HasContent() != c.hasContent {
				t.Errorf("HasContent = %v, want %v", got.HasContent(), c.hasContent)
			}
			if c.noUsage {
				if got.Usage != nil {
					t.Errorf("usage = %+v, want nil", got.Usage)
				}
				return
			}
			u := got.Usage
			if u == nil || u.PromptTokens == nil || u.CompletionTokens == nil {
				t.Fatalf("usage = %+v, want prompt %d completion %d", u, c.prompt, c.completion)
			}
			if *u.PromptTokens != c.prompt || *u.CompletionTokens != c.completion {
				t.Errorf("usage prompt=%d completion=%d, want %d %d", *u.PromptTokens, *u.CompletionTokens, c.prompt, c.completion)
			}
			switch {
			case c.reasoningTokens < 0 && u.ReasoningTokens != nil:
				t.Errorf("reasoning tokens = %d, want absent", *u.ReasoningTokens)
			case c.reasoningTokens >= 0 && (u.ReasoningTokens == nil || *u.ReasoningTokens != c.reasoningTokens):
				t.Errorf("reasoning tokens = %v, want %d", u.ReasoningTokens, c.reasoningTokens)
			}
		})
	}
}

func TestParseResponseMalformed(t *testing.T) {
	bad := `{"object":"chat.completion.chunk","choices":[{"delta":{"content":"` + strings.Repeat("y", 400)
	_, err := New().ParseResponse([]byte(bad))
	if err == nil {
		t.Fatal("want an error for truncated JSON")
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "chat: malformed response JSON") {
		t.Errorf("error should name the endpoint: %s", msg)
	}
	if !strings.Contains(msg, `{\"object\":\"chat.completion.chunk\"`) || strings.Contains(msg, strings.Repeat("y", 200)) {
		t.Errorf("error should quote the first 200 bytes only: %s", msg)
	}
}
