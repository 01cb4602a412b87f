package mockserver

import (
	"hash/maphash"
	"sync"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// promptInfo is what a prompt text determines: its token count and the seed
// of its output walk.
type promptInfo struct {
	tokens int
	seed   uint64
}

const (
	promptCacheShards = 16
	// promptCacheShardBytes bounds the prompt text held per shard; a full
	// shard is simply cleared (benchmarks cycle through a fixed dataset, so
	// the cache refills at once).
	promptCacheShardBytes = 4 << 20
)

// promptCache memoizes tokenization: benchmark clients resend the same
// dataset prompts, and BPE-encoding each one again would make the mock, not
// the client, the bottleneck.
type promptCache struct {
	tok  sdk.Tokenizer
	seed maphash.Seed
	// shardBytes is promptCacheShardBytes; tests lower it.
	shardBytes int
	shards     [promptCacheShards]promptShard
}

type promptShard struct {
	mu    sync.Mutex
	bytes int
	m     map[string]promptInfo
}

func newPromptCache(tok sdk.Tokenizer) *promptCache {
	c := &promptCache{tok: tok, seed: maphash.MakeSeed(), shardBytes: promptCacheShardBytes}
	for i := range c.shards {
		c.shards[i].m = make(map[string]promptInfo)
	}
	return c
}

// lookup returns the prompt's info, tokenizing it on a miss.
func (c *promptCache) lookup(text string) promptInfo {
	sh := &c.shards[maphash.String(c.seed, text)%promptCacheShards]
	sh.mu.Lock()
	info, ok := sh.m[text]
	sh.mu.Unlock()
	if ok {
		return info
	}
	// Tokenize outside the lock so a long prompt does not stall the shard.
	info = promptInfo{tokens: c.tok.Count(text), seed: promptSeed(text)}
	if len(text) > c.shardBytes/4 {
		return info
	}
	sh.mu.Lock()
	if sh.bytes+len(text) > c.shardBytes {
		clear(sh.m)
		sh.bytes = 0
	}
	if _, dup := sh.m[text]; !dup {
		sh.m[text] = info
		sh.bytes += len(text)
	}
	sh.mu.Unlock()
	return info
}
