package synthetic

import (
	"errors"
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/internal/sample"
)

// prefixOn reports whether prompts get prefixes: AIPerf builds the pool only
// for a positive pool size and prepends only for a positive length
// (initialize_prefix_pool, prefix_prompt_enabled).
func (cfg Config) prefixOn() bool {
	return cfg.PrefixPromptPoolSize > 0 && cfg.PrefixPromptLength > 0
}

// prefixPool builds the pool of shared prefixes as token ids, like AIPerf's
// PromptGenerator.initialize_prefix_pool: each is a corpus window of
// PrefixPromptLength tokens at an offset from its own stream, decoded to
// text that re-encodes to exactly that length, then re-encoded. Nil when
// prefixes are off.
func (c *Composer) prefixPool(tok sdk.Tokenizer, tokens []int, seed int64) ([][]int, error) {
	cfg := c.Config
	if !cfg.prefixOn() {
		return nil, nil
	}
	offsets := sample.NewStream(seed, "dataset.prompt.prefix_pool")
	pool := make([][]int, cfg.PrefixPromptPoolSize)
	for i := range pool {
		text, err := ExactLengthPrompt(tok, tokens, offsets.IntN(len(tokens)), cfg.PrefixPromptLength)
		if err != nil && !errors.Is(err, ErrInexact) {
			return nil, fmt.Errorf("synthetic: prefix prompt %d: %w", i, err)
		}
		if err != nil && c.Warn != nil {
			c.Warn(fmt.Sprintf("prefix prompt %d: %v", i, err))
		}
		pool[i] = tok.Encode(text)
	}
	return pool, nil
}

// PrefixedPrompt returns a prompt that starts with the prefix (token ids)
// and then has n tokens of its own: the prefix ids and the corpus window of
// n tokens at start are joined at the token level, decoded, and the whole
// is corrected at its end to len(prefix)+n tokens, as AIPerf's
// generate_prompt(prefix_tokens=...) does. Joining the decoded texts
// instead would let the tokenizer merge across the seam, the "may be off
// by one" of AIPerf's --prefix-prompt-length help. On failure it returns
// the closest text and an error wrapping ErrInexact.
func PrefixedPrompt(tok sdk.Tokenizer, tokens, prefix []int, start, n int) (string, error) {
	switch {
	case tok == nil:
		return "", errors.New("synthetic: prefixed prompt: nil tokenizer")
	case len(tokens) == 0:
		return "", errors.New("synthetic: prefixed prompt: empty token source")
	case n < 1:
		return "", fmt.Errorf("synthetic: prefixed prompt: length %d, want at least 1", n)
	case start < 0 || start >= len(tokens):
		return "", fmt.Errorf("synthetic: prefixed prompt: start %d outside [0, %d)", start, len(tokens))
	}
	ids := append(append(make([]int, 0, len(prefix)+n), prefix...), window(tokens, start, n)...)
	return FitLength(tok, tok.Decode(ids), len(ids), tokens, (start+n)%len(tokens))
}
