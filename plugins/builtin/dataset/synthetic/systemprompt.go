package synthetic

import (
	"context"
	"errors"
	"fmt"
	"sync"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/internal/sample"
)

// addContextPrompts sets the conversations' system prompt and user context
// (AIPerf's _inject_context_prompts): one shared system prompt of
// SharedSystemPromptLength tokens, the same for every conversation, and one
// user context of UserContextPromptLength tokens per conversation, each a
// corpus window at its own seeded offset, exact under the run's tokenizer.
// The endpoint sends them ahead of the turns (sdk.RequestInfo); they add to
// each request's ISL rather than taking from --isl, as in AIPerf.
func (c *Composer) addContextPrompts(ctx context.Context, convs []sdk.Conversation, tok sdk.Tokenizer, tokens []int, seed int64) error {
	cfg := c.Config
	if cfg.SharedSystemPromptLength > 0 {
		offsets := sample.NewStream(seed, "dataset.prompt.shared_system")
		system, err := c.exactPrompt(tok, tokens, offsets.IntN(len(tokens)), cfg.SharedSystemPromptLength, "shared system prompt")
		if err != nil {
			return err
		}
		for i := range convs {
			convs[i].SystemMessage = system
		}
	}
	if cfg.UserContextPromptLength <= 0 {
		return nil
	}
	offsets := sample.NewStream(seed, "dataset.prompt.user_context")
	starts := make([]int, len(convs))
	for i := range starts {
		starts[i] = offsets.IntN(len(tokens))
	}
	var (
		mu       sync.Mutex
		firstErr error
	)
	parallelFor(len(convs), func(i int) {
		if ctx.Err() != nil {
			return
		}
		text, err := c.exactPrompt(tok, tokens, starts[i], cfg.UserContextPromptLength, fmt.Sprintf("user context %d", i))
		if err != nil {
			mu.Lock()
			firstErr = cmpErr(firstErr, err)
			mu.Unlock()
			return
		}
		convs[i].UserContextMessage = text
	})
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("synthetic: compose cancelled: %w", err)
	}
	return firstErr
}

// exactPrompt is ExactLengthPrompt with the composer's error policy: an
// inexact length is a warning, anything else an error naming what.
func (c *Composer) exactPrompt(tok sdk.Tokenizer, tokens []int, start, n int, what string) (string, error) {
	text, err := ExactLengthPrompt(tok, tokens, start, n)
	if err != nil && !errors.Is(err, ErrInexact) {
		return "", fmt.Errorf("synthetic: %s: %w", what, err)
	}
	if err != nil && c.Warn != nil {
		c.Warn(fmt.Sprintf("%s: %v", what, err))
	}
	return text, nil
}
