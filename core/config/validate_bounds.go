package config

// Upper bounds AIPerf 0.13 does not have (its --concurrency and
// --num-dataset-entries are only ge=1): values past them cannot be served
// or built on one host, and used to hang the run or kill the runtime with
// an out-of-memory fatal error instead of failing with a message.
const (
	// MaxConcurrency caps every concurrency flag. One client host cannot
	// hold more simultaneous connections: each needs a socket and file
	// descriptor, and a source IP has about 64K ephemeral ports per server.
	MaxConcurrency = 1_000_000
	// MaxNumDatasetEntries caps --num-dataset-entries: the dataset is
	// composed up front in memory, a few hundred bytes of bookkeeping per
	// entry before any prompt text.
	MaxNumDatasetEntries = 10_000_000
	// MaxDatasetPromptTokens caps --num-dataset-entries times
	// --prompt-input-tokens-mean, the prompt text composed up front
	// (about 4 bytes a token, so a few GB).
	MaxDatasetPromptTokens = 1_000_000_000
)

// validateBounds rejects sizes no single host can serve or build.
func (c *RunConfig) validateBounds(add func(string, ...any)) {
	for _, f := range []struct {
		flag string
		v    *int
	}{
		{"--concurrency", c.Concurrency},
		{"--prefill-concurrency", c.PrefillConcurrency},
		{"--warmup-concurrency", c.WarmupConcurrency},
		{"--warmup-prefill-concurrency", c.WarmupPrefillConcurrency},
	} {
		if f.v != nil && *f.v > MaxConcurrency {
			add("%s must be <= %d (got %d): one host cannot hold more connections in flight (sockets, file descriptors, ports); split the load across machines", f.flag, MaxConcurrency, *f.v)
		}
	}
	n := c.NumDatasetEntries
	if n > MaxNumDatasetEntries {
		add("--num-dataset-entries must be <= %d (got %d): the dataset is built in memory up front; entries are reused across requests, so fewer suffice", MaxNumDatasetEntries, n)
	} else if isl := int64(c.InputTokensMean); n > 0 && isl > 0 && int64(n)*isl > MaxDatasetPromptTokens {
		add("--num-dataset-entries (%d) times --prompt-input-tokens-mean (%d) must be <= %d prompt tokens (got %d): the dataset's prompts are built in memory up front", n, isl, MaxDatasetPromptTokens, int64(n)*isl)
	}
}
