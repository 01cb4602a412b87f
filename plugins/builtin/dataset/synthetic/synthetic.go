package synthetic

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Name is the composer's registry name.
const Name = "synthetic"

// Composer builds synthetic single-turn conversations. It is safe for
// concurrent use.
type Composer struct {
	// Warn, when set, is told about each prompt that could not be made to
	// re-encode to its exact length (the closest text is sent instead).
	Warn func(msg string)
}

var _ sdk.DatasetComposer = (*Composer)(nil)

// New returns a synthetic composer.
func New() *Composer { return &Composer{} }

// entryPlan is everything drawn from the RNGs for one entry. Drawing all of
// it up front, in entry order, keeps the output identical however the prompt
// work is spread over goroutines.
type entryPlan struct {
	sessionID string
	isl       int
	start     int
	maxTokens *int
}

// Compose implements sdk.DatasetComposer: opts.NumEntries conversations of
// one turn each. InputFile is ignored (it belongs to file-based composers).
func (c *Composer) Compose(ctx context.Context, opts sdk.DatasetOptions) ([]sdk.Conversation, error) {
	if err := validate(opts); err != nil {
		return nil, err
	}
	tokens, err := corpusTokens(opts.Tokenizer)
	if err != nil {
		return nil, err
	}

	plans := plan(opts, len(tokens))
	prompts := make([]string, len(plans))
	var (
		mu       sync.Mutex
		firstErr error
	)
	parallelFor(len(plans), func(i int) {
		if ctx.Err() != nil {
			return
		}
		text, err := ExactLengthPrompt(opts.Tokenizer, tokens, plans[i].start, plans[i].isl)
		if err != nil && !errors.Is(err, ErrInexact) {
			mu.Lock()
			firstErr = cmpErr(firstErr, fmt.Errorf("synthetic: entry %d: %w", i, err))
			mu.Unlock()
			return
		}
		if err != nil && c.Warn != nil {
			c.Warn(fmt.Sprintf("entry %d: %v", i, err))
		}
		prompts[i] = text
	})
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("synthetic: compose cancelled: %w", err)
	}
	if firstErr != nil {
		return nil, firstErr
	}

	convs := make([]sdk.Conversation, len(plans))
	for i, p := range plans {
		turn := sdk.Turn{Texts: []string{prompts[i]}, MaxTokens: p.maxTokens}
		if len(opts.Models) > 1 {
			turn.Model = opts.Models[i%len(opts.Models)]
		}
		convs[i] = sdk.Conversation{SessionID: p.sessionID, Turns: []sdk.Turn{turn}}
	}
	return convs, nil
}

func cmpErr(have, next error) error {
	if have != nil {
		return have
	}
	return next
}

func plan(opts sdk.DatasetOptions, corpusLen int) []entryPlan {
	lengths := newStream(opts.RandomSeed, "dataset.prompt.length")
	offsets := newStream(opts.RandomSeed, "dataset.prompt.corpus")
	outputs := newStream(opts.RandomSeed, "dataset.output.length")
	sessions := newStream(opts.RandomSeed, "dataset.session_id")

	plans := make([]entryPlan, opts.NumEntries)
	for i := range plans {
		p := &plans[i]
		p.sessionID = newUUID(sessions)
		p.isl = positiveNormalInt(lengths, float64(opts.InputTokensMean), opts.InputTokensStddev)
		p.start = offsets.IntN(corpusLen)
		if opts.OutputTokensMean > 0 {
			osl := positiveNormalInt(outputs, float64(opts.OutputTokensMean), opts.OutputTokensStddev)
			p.maxTokens = &osl
		}
	}
	return plans
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
	if len(problems) > 0 {
		return fmt.Errorf("synthetic: invalid options: %w", errors.Join(problems...))
	}
	return nil
}

func bad(stddev float64) bool { return stddev < 0 || math.IsNaN(stddev) || math.IsInf(stddev, 0) }
