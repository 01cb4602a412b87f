package mockserver

import (
	"fmt"
	"strings"
	"testing"
)

const testPrompt = "Explain how a benchmark measures time to first token."

func TestChatStreamEventsAndUsage(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	cases := []struct {
		name         string
		extra        string
		maxTokens    int
		includeUsage bool
	}{
		{"with include_usage", `"stream":true,"stream_options":{"include_usage":true},"max_tokens":50,"ignore_eos":true`, 50, true},
		{"without usage chunk", `"stream":true,"max_completion_tokens":23,"ignore_eos":true`, 23, false},
		{"include_usage false", `"stream":true,"stream_options":{"include_usage":false},"max_tokens":5,"ignore_eos":true`, 5, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			events := readSSE(t, post(t, base+"/v1/chat/completions", chatBody("mock-model", testPrompt, tc.extra)))
			// role + tokens + finish (+ usage) + [DONE]
			wantEvents := 1 + tc.maxTokens + 1 + 1
			if tc.includeUsage {
				wantEvents++
			}
			if len(events) != wantEvents {
				t.Fatalf("got %d events, want %d", len(events), wantEvents)
			}
			first := decodeChunk(t, events[0].data)
			if d := first.Choices[0].Delta; d == nil || d.Role == nil || *d.Role != "assistant" || d.Content == nil || *d.Content != "" {
				t.Fatalf("first event is not the role delta: %s", events[0].data)
			}
			s := summarize(t, events)
			if !s.done || s.finish != "length" || s.contentEvents != tc.maxTokens || s.roleEvents != 1 {
				t.Fatalf("done=%v finish=%q content events=%d role=%d", s.done, s.finish, s.contentEvents, s.roleEvents)
			}
			if len(s.ids) != 1 || !s.objects["chat.completion.chunk"] || len(s.objects) != 1 {
				t.Fatalf("ids %v objects %v: want one id and only chat.completion.chunk", s.ids, s.objects)
			}
			if got := countTokens(s.content.String()); got != tc.maxTokens {
				t.Fatalf("client re-tokenizes content to %d tokens, server emitted %d", got, tc.maxTokens)
			}
			if !tc.includeUsage {
				if s.usage != nil {
					t.Fatal("usage chunk sent without stream_options.include_usage")
				}
				return
			}
			if s.usage == nil || s.usageChunkHadChoices {
				t.Fatalf("usage chunk missing or has choices: %+v", s.usage)
			}
			want := wireUsage{PromptTokens: countTokens(testPrompt), CompletionTokens: tc.maxTokens, TotalTokens: countTokens(testPrompt) + tc.maxTokens}
			if *s.usage != want {
				t.Fatalf("usage = %+v, want %+v", *s.usage, want)
			}
		})
	}
}

func TestCompletionsStream(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	body := completionBody("mock-model", testPrompt, `"stream":true,"stream_options":{"include_usage":true},"max_tokens":12,"ignore_eos":true`)
	events := readSSE(t, post(t, base+"/v1/completions", body))
	s := summarize(t, events)
	if s.roleEvents != 0 || s.contentEvents != 12 || s.finish != "length" || !s.done {
		t.Fatalf("role=%d content=%d finish=%q done=%v", s.roleEvents, s.contentEvents, s.finish, s.done)
	}
	if !s.objects["text_completion"] || len(s.objects) != 1 {
		t.Fatalf("objects %v, want only text_completion", s.objects)
	}
	if s.firstContentEventIndex != 0 {
		t.Fatalf("first text at event %d, want 0 (completions has no role delta)", s.firstContentEventIndex)
	}
	if got := countTokens(s.content.String()); got != 12 {
		t.Fatalf("re-tokenized %d, want 12", got)
	}
	if s.usage == nil || s.usage.PromptTokens != countTokens(testPrompt) || s.usage.CompletionTokens != 12 {
		t.Fatalf("usage %+v", s.usage)
	}
}

// Exact lengths for many ignore_eos values, streaming and not: the client's
// re-tokenization must always equal the server's count.
func TestIgnoreEOSExactLengths(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	for _, n := range []int{1, 2, 3, 17, 64, 100, 333, 1024} {
		for _, stream := range []bool{true, false} {
			t.Run(fmt.Sprintf("n=%d stream=%v", n, stream), func(t *testing.T) {
				prompt := fmt.Sprintf("prompt number %d: %s", n, testPrompt)
				extra := fmt.Sprintf(`"stream":%v,"max_tokens":%d,"ignore_eos":true,"stream_options":{"include_usage":true}`, stream, n)
				resp := post(t, base+"/v1/chat/completions", chatBody("mock-model", prompt, extra))
				var text, finish string
				var u *wireUsage
				if stream {
					s := summarize(t, readSSE(t, resp))
					text, finish, u = s.content.String(), s.finish, s.usage
					if s.contentEvents != n {
						t.Fatalf("%d content events, want %d", s.contentEvents, n)
					}
				} else {
					c := decodeBody(t, resp)
					text, finish, u = c.Choices[0].Message.Content, *c.Choices[0].FinishReason, c.Usage
				}
				if got := countTokens(text); got != n {
					t.Fatalf("re-tokenized %d tokens, want %d", got, n)
				}
				if finish != "length" || u == nil || u.CompletionTokens != n {
					t.Fatalf("finish %q usage %+v", finish, u)
				}
			})
		}
	}
}

func TestMinTokensAndNaturalStop(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	cases := []struct {
		name       string
		extra      string
		wantTokens int
		wantFinish string
	}{
		{"min_tokens above natural", `"max_tokens":200,"min_tokens":120`, 120, "stop"},
		{"min_tokens equals max", `"max_tokens":40,"min_tokens":40`, 40, "length"},
		// A 3-token prompt has a natural length of exactly 16.
		{"natural stop under max", `"max_tokens":200`, 16, "stop"},
		{"no max at all", ``, 16, "stop"},
		{"max below natural", `"max_tokens":9`, 9, "length"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := decodeBody(t, post(t, base+"/v1/chat/completions", chatBody("mock-model", "hello there friend", tc.extra)))
			got := countTokens(c.Choices[0].Message.Content)
			if got != tc.wantTokens || c.Usage.CompletionTokens != tc.wantTokens || *c.Choices[0].FinishReason != tc.wantFinish {
				t.Fatalf("tokens %d (usage %d) finish %q, want %d %q",
					got, c.Usage.CompletionTokens, *c.Choices[0].FinishReason, tc.wantTokens, tc.wantFinish)
			}
		})
	}
}

func TestReasoningModelStreamsReasoningFirst(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	extra := `"stream":true,"stream_options":{"include_usage":true},"max_tokens":150,"ignore_eos":true,"reasoning_effort":"low"`
	events := readSSE(t, post(t, base+"/v1/chat/completions", chatBody("Qwen/Qwen3-8B", testPrompt, extra)))
	s := summarize(t, events)
	if s.reasoningEvents != 100 || s.contentEvents != 50 {
		t.Fatalf("reasoning events %d, content events %d; want 100 and 50", s.reasoningEvents, s.contentEvents)
	}
	// Order: role, 100 reasoning deltas, then content deltas.
	for i := 1; i <= 100; i++ {
		d := decodeChunk(t, events[i].data).Choices[0].Delta
		if d.ReasoningContent == nil || d.Content != nil {
			t.Fatalf("event %d is not a reasoning delta: %s", i, events[i].data)
		}
	}
	if d := decodeChunk(t, events[101].data).Choices[0].Delta; d.Content == nil {
		t.Fatalf("event 101 is not content: %s", events[101].data)
	}
	if countTokens(s.reasoning.String()) != 100 || countTokens(s.content.String()) != 50 {
		t.Fatal("reasoning/content text does not re-tokenize to 100/50")
	}
	want := wireUsage{PromptTokens: countTokens(testPrompt), CompletionTokens: 150, TotalTokens: countTokens(testPrompt) + 150}
	want.CompletionTokensDetails.ReasoningTokens = 100
	if s.usage == nil || *s.usage != want {
		t.Fatalf("usage %+v, want %+v", s.usage, want)
	}

	c := decodeBody(t, post(t, base+"/v1/chat/completions", chatBody("gpt-oss-20b", testPrompt, `"max_tokens":1000,"ignore_eos":true`)))
	msg := c.Choices[0].Message
	if msg.ReasoningContent == nil || countTokens(*msg.ReasoningContent) != 250 || countTokens(msg.Content) != 750 {
		t.Fatalf("non-streaming reasoning/content lengths wrong: %+v", c.Usage)
	}
	if c.Usage.CompletionTokensDetails.ReasoningTokens != 250 || c.Usage.CompletionTokens != 1000 {
		t.Fatalf("usage %+v", c.Usage)
	}
}

func TestIdenticalPromptsGiveIdenticalOutput(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	get := func(prompt string) string {
		c := decodeBody(t, post(t, base+"/v1/chat/completions", chatBody("mock-model", prompt, `"max_tokens":64`)))
		return c.Choices[0].Message.Content
	}
	a, b, other := get(testPrompt), get(testPrompt), get(testPrompt+"!")
	if a != b {
		t.Fatalf("same prompt, different output:\n%q\n%q", a, b)
	}
	if a == other {
		t.Fatal("different prompts gave identical output")
	}
	// A second server (another process in real use) answers the same.
	base2 := startServer(t, Config{Fast: true})
	c := decodeBody(t, post(t, base2+"/v1/chat/completions", chatBody("mock-model", testPrompt, `"max_tokens":64`)))
	if c.Choices[0].Message.Content != a {
		t.Fatal("another server instance produced different output for the same prompt")
	}
	// The streamed text equals the non-streamed text.
	s := summarize(t, readSSE(t, post(t, base+"/v1/chat/completions", chatBody("mock-model", testPrompt, `"max_tokens":64,"stream":true`))))
	if s.content.String() != a {
		t.Fatal("streaming and non-streaming outputs differ")
	}
	if !strings.HasPrefix(a, " ") {
		t.Fatalf("output %q should start with a space-prefixed word", a)
	}
}
