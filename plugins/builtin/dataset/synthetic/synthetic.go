package synthetic

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/internal/sample"
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
	// prompts are the turn's text batch, indexes into the flat prompt list.
	firstPrompt, numPrompts int
	maxTokens               *int
	delayMs                 *float64
}

// promptPlan is one prompt: its length, corpus offset and the pool index
// of its prefix (-1: none).
type promptPlan struct {
	isl    int
	start  int
	prefix int
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
// off. Every turn carries Config.PromptBatchSize prompts (none when
// InputTokensMean is 0) and the images, audio clips and videos the media
// settings enable. InputFile is ignored (it belongs to file-based
// composers).
func (c *Composer) Compose(ctx context.Context, opts sdk.DatasetOptions) ([]sdk.Conversation, error) {
	if err := validate(opts); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil { // for callers that skip the lifecycle
		return nil, err
	}
	mp := c.Config.mediaPlan()
	if opts.InputTokensMean == 0 && !mp.any() {
		return nil, errors.New("synthetic: all synthetic data are disabled: set a positive input length (--isl) or enable images, audio or video")
	}
	tokens, err := CorpusTokens(opts.Tokenizer)
	if err != nil {
		return nil, err
	}

	convs, turns, prompts := plan(c.Config, opts, len(tokens))
	mediaOut, err := generateMedia(ctx, c.Config, mp, opts.RandomSeed, len(turns))
	if err != nil {
		return nil, err
	}
	var pool [][]int
	if len(prompts) > 0 {
		if pool, err = c.prefixPool(opts.Tokenizer, tokens, opts.RandomSeed); err != nil {
			return nil, err
		}
	}
	texts, err := c.prompts(ctx, opts.Tokenizer, tokens, pool, prompts)
	if err != nil {
		return nil, err
	}
	out := assemble(opts, convs, turns, texts, mediaOut)
	if err := c.addContextPrompts(ctx, out, opts.Tokenizer, tokens, opts.RandomSeed); err != nil {
		return nil, err
	}
	return out, nil
}

// prompts builds every prompt of the dataset, in parallel.
func (c *Composer) prompts(ctx context.Context, tok sdk.Tokenizer, tokens []int, pool [][]int, plans []promptPlan) ([]string, error) {
	texts := make([]string, len(plans))
	var (
		mu       sync.Mutex
		firstErr error
	)
	parallelFor(len(plans), func(i int) {
		if ctx.Err() != nil {
			return
		}
		var (
			text string
			err  error
		)
		if p := plans[i]; p.prefix >= 0 {
			text, err = PrefixedPrompt(tok, tokens, pool[p.prefix], p.start, p.isl)
		} else {
			text, err = ExactLengthPrompt(tok, tokens, p.start, p.isl)
		}
		if err != nil && !errors.Is(err, ErrInexact) {
			mu.Lock()
			firstErr = cmpErr(firstErr, fmt.Errorf("synthetic: prompt %d: %w", i, err))
			mu.Unlock()
			return
		}
		if err != nil && c.Warn != nil {
			c.Warn(fmt.Sprintf("prompt %d: %v", i, err))
		}
		texts[i] = text
	})
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("synthetic: compose cancelled: %w", err)
	}
	return texts, firstErr
}

// assemble builds the conversations. With several models, turns take them
// round robin in dataset order (for single-turn data: one per entry).
func assemble(opts sdk.DatasetOptions, convs []convPlan, turns []turnPlan, texts []string, media []turnMedia) []sdk.Conversation {
	out := make([]sdk.Conversation, len(convs))
	for i, cp := range convs {
		ts := make([]sdk.Turn, cp.numTurns)
		for j := range ts {
			k := cp.firstTurn + j
			tp, m := turns[k], media[k]
			ts[j] = sdk.Turn{
				Images:    m.images,
				Audios:    m.audios,
				Videos:    m.videos,
				MaxTokens: tp.maxTokens,
				DelayMs:   tp.delayMs,
				// The first clip's length (AIPerf: audio_duration, RTFx).
				AudioDurationS: m.audioDurationS,
			}
			if end := tp.firstPrompt + tp.numPrompts; tp.numPrompts > 0 {
				ts[j].Texts = texts[tp.firstPrompt:end:end]
			}
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
// turn-count and delay streams are only read for multi-turn settings, and
// a batch of N prompts takes the next N draws of the length and offset
// streams (AIPerf's batch: consecutive generate calls), so its prompts are
// the ones N single-prompt turns would get.
//
// With a sequence distribution each turn draws one (ISL, OSL) pair (AIPerf's
// _get_turn_sequence_lengths, cached per turn): every prompt of the batch
// has exactly that ISL and max_tokens is that OSL; the length and output
// streams and --isl-stddev/--osl are not used. With a prefix pool, each
// prompt of a conversation's first turn draws its prefix from the pool
// (AIPerf: with_prefix = is_first, one choice per generate call).
func plan(cfg Config, opts sdk.DatasetOptions, corpusLen int) ([]convPlan, []turnPlan, []promptPlan) {
	lengths := sample.NewStream(opts.RandomSeed, "dataset.prompt.length")
	offsets := sample.NewStream(opts.RandomSeed, "dataset.prompt.corpus")
	outputs := sample.NewStream(opts.RandomSeed, "dataset.output.length")
	sessions := sample.NewStream(opts.RandomSeed, "dataset.session_id")
	shape := newSessionShape(cfg, opts)
	dist := newSeqDist(cfg.SequenceDistribution, opts.RandomSeed)
	prefixes := sample.NewStream(opts.RandomSeed, "dataset.prompt.prefix")
	prefixOn := cfg.prefixOn()
	batch := 0 // AIPerf sends no text when the input length mean is 0
	if opts.InputTokensMean > 0 {
		batch = max(1, cfg.PromptBatchSize)
	}

	convs := make([]convPlan, opts.NumEntries)
	turns := make([]turnPlan, 0, opts.NumEntries)
	prompts := make([]promptPlan, 0, opts.NumEntries*batch)
	for i := range convs {
		convs[i] = convPlan{sessionID: sample.NewUUID(sessions), firstTurn: len(turns), numTurns: shape.turns()}
		for j := range convs[i].numTurns {
			t := turnPlan{firstPrompt: len(prompts), numPrompts: batch}
			var distISL, distOSL int
			if dist != nil {
				distISL, distOSL = dist.sample()
			}
			for range batch {
				p := promptPlan{isl: distISL, prefix: -1}
				if dist == nil {
					p.isl = sample.PositiveNormalInt(lengths, float64(opts.InputTokensMean), opts.InputTokensStddev)
				}
				p.start = offsets.IntN(corpusLen)
				if prefixOn && j == 0 {
					p.prefix = prefixes.IntN(cfg.PrefixPromptPoolSize)
				}
				prompts = append(prompts, p)
			}
			if dist != nil {
				osl := distOSL
				t.maxTokens = &osl
			} else if opts.OutputTokensMean > 0 {
				osl := sample.PositiveNormalInt(outputs, float64(opts.OutputTokensMean), opts.OutputTokensStddev)
				t.maxTokens = &osl
			}
			if j > 0 {
				t.delayMs = shape.delay()
			}
			turns = append(turns, t)
		}
	}
	return convs, turns, prompts
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

var _ sdk.Logging = (*Composer)(nil)

// SetLogger implements sdk.Logging: notes go to the run's log.
func (c *Composer) SetLogger(log *slog.Logger) {
	c.Warn = func(msg string) { log.Warn(msg) }
}
