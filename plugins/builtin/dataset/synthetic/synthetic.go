package synthetic

import (
	"context"
	"errors"
	"fmt"
	"sync"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Name is the composer's registry name.
const Name = "synthetic"

// Composer builds synthetic conversations of one or more turns. It is safe for
// concurrent use once configured.
type Composer struct {
	// Warn, when set, is told about each prompt that could not be made to
	// re-encode to its exact length (the closest text is sent instead).
	Warn func(msg string)
	// Config is the composer's own settings: the multi-turn session shape.
	Config Config
}

var _ sdk.DatasetComposer = (*Composer)(nil)

// New returns a synthetic composer.
func New() *Composer { return &Composer{} }

// turnPlan is everything drawn from the RNGs for one turn. Drawing all of it
// up front, in order, keeps the output identical however the prompt work is
// spread over goroutines.
type turnPlan struct {
	isl       int
	start     int
	maxTokens *int
	delayMs   *float64
}

// convPlan is one conversation: its session id and the index of its first
// turn in the flat turn list.
type convPlan struct {
	sessionID string
	firstTurn int
	numTurns  int
}

// Compose implements sdk.DatasetComposer: opts.NumEntries conversations of
// Config.SessionTurnsMean (± stddev) turns each, one turn when multi-turn is
// off. InputFile is ignored (it belongs to file-based composers).
func (c *Composer) Compose(ctx context.Context, opts sdk.DatasetOptions) ([]sdk.Conversation, error) {
	if err := validate(opts); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil { // for callers that skip the lifecycle
		return nil, err
	}
	tokens, err := CorpusTokens(opts.Tokenizer)
	if err != nil {
		return nil, err
	}

	convs, turns := plan(c.Config, opts, len(tokens))
	prompts := make([]string, len(turns))
	var (
		mu       sync.Mutex
		firstErr error
	)
	parallelFor(len(turns), func(i int) {
		if ctx.Err() != nil {
			return
		}
		text, err := ExactLengthPrompt(opts.Tokenizer, tokens, turns[i].start, turns[i].isl)
		if err != nil && !errors.Is(err, ErrInexact) {
			mu.Lock()
			firstErr = cmpErr(firstErr, fmt.Errorf("synthetic: turn %d: %w", i, err))
			mu.Unlock()
			return
		}
		if err != nil && c.Warn != nil {
			c.Warn(fmt.Sprintf("turn %d: %v", i, err))
		}
		prompts[i] = text
	})
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("synthetic: compose cancelled: %w", err)
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return assemble(opts, convs, turns, prompts), nil
}

// assemble builds the conversations. With several models, turns take them
// round robin in dataset order (for single-turn data: one per entry).
func assemble(opts sdk.DatasetOptions, convs []convPlan, turns []turnPlan, prompts []string) []sdk.Conversation {
	out := make([]sdk.Conversation, len(convs))
	for i, cp := range convs {
		ts := make([]sdk.Turn, cp.numTurns)
		for j := range ts {
			k := cp.firstTurn + j
			ts[j] = sdk.Turn{Texts: []string{prompts[k]}, MaxTokens: turns[k].maxTokens, DelayMs: turns[k].delayMs}
			if len(opts.Models) > 1 {
				ts[j].Model = opts.Models[k%len(opts.Models)]
			}
		}
		out[i] = sdk.Conversation{SessionID: cp.sessionID, Turns: ts}
	}
	return out
}

func cmpErr(have, next error) error {
	if have != nil {
		return have
	}
	return next
}

// plan draws every random choice in dataset order. Each concern has its own
// stream, so single-turn datasets draw exactly what they always did: the
// turn-count and delay streams are only read for multi-turn settings.
func plan(cfg Config, opts sdk.DatasetOptions, corpusLen int) ([]convPlan, []turnPlan) {
	lengths := NewStream(opts.RandomSeed, "dataset.prompt.length")
	offsets := NewStream(opts.RandomSeed, "dataset.prompt.corpus")
	outputs := NewStream(opts.RandomSeed, "dataset.output.length")
	sessions := NewStream(opts.RandomSeed, "dataset.session_id")
	shape := newSessionShape(cfg, opts)

	convs := make([]convPlan, opts.NumEntries)
	turns := make([]turnPlan, 0, opts.NumEntries)
	for i := range convs {
		convs[i] = convPlan{sessionID: NewUUID(sessions), firstTurn: len(turns), numTurns: shape.turns()}
		for j := range convs[i].numTurns {
			t := turnPlan{
				isl:   PositiveNormalInt(lengths, float64(opts.InputTokensMean), opts.InputTokensStddev),
				start: offsets.IntN(corpusLen),
			}
			if opts.OutputTokensMean > 0 {
				osl := PositiveNormalInt(outputs, float64(opts.OutputTokensMean), opts.OutputTokensStddev)
				t.maxTokens = &osl
			}
			if j > 0 {
				t.delayMs = shape.delay()
			}
			turns = append(turns, t)
		}
	}
	return convs, turns
}

func validate(opts sdk.DatasetOptions) error {
	var problems []error
	if opts.NumEntries < 1 {
		problems = append(problems, fmt.Errorf("NumEntries %d, want at least 1", opts.NumEntries))
	}
	if opts.InputTokensMean < 0 {
		problems = append(problems, fmt.Errorf("InputTokensMean %d, want at least 0", opts.InputTokensMean))
	}
	if opts.OutputTokensMean < 0 {
		problems = append(problems, fmt.Errorf("OutputTokensMean %d, want at least 0", opts.OutputTokensMean))
	}
	if bad(opts.InputTokensStddev) {
		problems = append(problems, fmt.Errorf("InputTokensStddev %v, want a finite value >= 0", opts.InputTokensStddev))
	}
	if bad(opts.OutputTokensStddev) {
		problems = append(problems, fmt.Errorf("OutputTokensStddev %v, want a finite value >= 0", opts.OutputTokensStddev))
	}
	if opts.Tokenizer == nil {
		problems = append(problems, errors.New("no Tokenizer"))
	}
	if bad(opts.TurnDelayRatio) {
		problems = append(problems, fmt.Errorf("TurnDelayRatio %v, want a finite value >= 0", opts.TurnDelayRatio))
	}
	if len(problems) > 0 {
		return fmt.Errorf("synthetic: invalid options: %w", errors.Join(problems...))
	}
	return nil
}
