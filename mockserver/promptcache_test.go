package mockserver

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
)

// callCounter wraps the real tokenizer and counts Count calls.
type callCounter struct {
	*tiktoken.Tokenizer
	calls atomic.Int64
}

func (c *callCounter) Count(text string) int {
	c.calls.Add(1)
	return c.Tokenizer.Count(text)
}

func TestPromptCacheMemoizesAndStaysCorrect(t *testing.T) {
	tok := &callCounter{Tokenizer: tiktoken.New()}
	c := newPromptCache(tok)
	prompts := []string{"", "hello world", "The quick brown fox jumps over the lazy dog.", strings.Repeat("token ", 300)}
	for round := range 3 {
		for _, p := range prompts {
			got := c.lookup(p)
			if want := tiktoken.New().Count(p); got.tokens != want || got.seed != promptSeed(p) {
				t.Fatalf("round %d %q: got %+v, want %d tokens", round, p, got, want)
			}
		}
	}
	if n := tok.calls.Load(); n != int64(len(prompts)) {
		t.Fatalf("tokenizer called %d times for %d distinct prompts over 3 rounds", n, len(prompts))
	}

	// Overfilling evicts whole shards but never returns a wrong count, and
	// prompts over a quarter shard are not cached at all.
	c = newPromptCache(tok)
	c.shardBytes = 4096
	for i := range 600 {
		p := strings.Repeat("word ", 20+i%50) + strings.Repeat("x", i%40) + " " + string(rune('a'+i%26)) + strings.Repeat("z", i/26)
		if got, want := c.lookup(p).tokens, tiktoken.New().Count(p); got != want {
			t.Fatalf("prompt %d: %d tokens, want %d", i, got, want)
		}
	}
	for i := range c.shards {
		if c.shards[i].bytes > c.shardBytes {
			t.Fatalf("shard %d holds %d bytes, limit %d", i, c.shards[i].bytes, c.shardBytes)
		}
	}
	huge := strings.Repeat("y ", 1000)
	c.lookup(huge)
	for i := range c.shards {
		if _, ok := c.shards[i].m[huge]; ok {
			t.Fatal("a prompt over a quarter shard was cached")
		}
	}
}
