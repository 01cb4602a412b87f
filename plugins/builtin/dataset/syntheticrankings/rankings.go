// Package syntheticrankings is the "synthetic_rankings" dataset composer:
// one single-turn conversation per entry, each turn a query and a list of
// passages for the rankings endpoint types (AIPerf 0.13's
// SyntheticRankingsDatasetComposer, dataset/composer/synthetic_rankings.py).
// The core selects it for synthetic data when the endpoint type's name
// contains "rankings".
//
// Per entry, as AIPerf: the passage count is a positive normal integer
// (stream "dataset.rankings.passages"), then the query and each passage are
// exact-length prompts from the synthetic composer's corpus, their lengths
// drawn from the prompt length stream. The turn carries two text groups,
// "query" (one text) and "passages". --isl and -b do not apply (AIPerf
// ignores them for rankings); --osl sets MaxTokens as on every synthetic
// turn. Means and stddevs are truncated to integers, as AIPerf's int() does.
package syntheticrankings

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/internal/sample"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/synthetic"
)

// Name is the composer's registry name.
const Name = "synthetic_rankings"

// AIPerf 0.13's real defaults (RankingsConfig), not its --help's 1/550/550.
const (
	DefaultPassages      = 10
	DefaultPassageTokens = 128
	DefaultQueryTokens   = 32
)

// Config is the composer's own settings (dataset_composer.synthetic_rankings),
// set from the --rankings-* flags. A mean of 0 is the default.
type Config struct {
	// PassagesMean and PassagesStddev: passages per request
	// (--rankings-passages-mean, --rankings-passages-stddev).
	PassagesMean   float64 `json:"passages_mean"`
	PassagesStddev float64 `json:"passages_stddev"`
	// PassageTokensMean and PassageTokensStddev: tokens per passage
	// (--rankings-passages-prompt-token-mean/-stddev).
	PassageTokensMean   float64 `json:"passage_tokens_mean"`
	PassageTokensStddev float64 `json:"passage_tokens_stddev"`
	// QueryTokensMean and QueryTokensStddev: tokens of the query
	// (--rankings-query-prompt-token-mean/-stddev).
	QueryTokensMean   float64 `json:"query_tokens_mean"`
	QueryTokensStddev float64 `json:"query_tokens_stddev"`
}

// Composer builds rankings conversations. It is safe for concurrent use
// once configured.
type Composer struct {
	// Warn, when set, is told about each prompt that could not be made to
	// re-encode to its exact length (the closest text is sent instead).
	Warn   func(msg string)
	Config Config
}

var (
	_ sdk.DatasetComposer = (*Composer)(nil)
	_ sdk.Configurable    = (*Composer)(nil)
	_ sdk.Validator       = (*Composer)(nil)
)

// New returns a rankings composer with AIPerf's defaults.
func New() *Composer { return &Composer{} }

// PluginConfig implements sdk.Configurable.
func (c *Composer) PluginConfig() any { return &c.Config }

// Validate implements sdk.Validator: finite settings, means at least 1
// (or 0 for the default) and stddevs not negative, naming the flag.
func (c *Composer) Validate() error {
	var problems []error
	for _, s := range []struct {
		key, flag string
		v         float64
		mean      bool
	}{
		{"passages_mean", "--rankings-passages-mean", c.Config.PassagesMean, true},
		{"passages_stddev", "--rankings-passages-stddev", c.Config.PassagesStddev, false},
		{"passage_tokens_mean", "--rankings-passages-prompt-token-mean", c.Config.PassageTokensMean, true},
		{"passage_tokens_stddev", "--rankings-passages-prompt-token-stddev", c.Config.PassageTokensStddev, false},
		{"query_tokens_mean", "--rankings-query-prompt-token-mean", c.Config.QueryTokensMean, true},
		{"query_tokens_stddev", "--rankings-query-prompt-token-stddev", c.Config.QueryTokensStddev, false},
	} {
		switch {
		case s.v < 0 || math.IsNaN(s.v) || math.IsInf(s.v, 0):
			problems = append(problems, fmt.Errorf("%s %v (%s), want a finite value >= 0", s.key, s.v, s.flag))
		case s.mean && s.v > 0 && s.v < 1:
			problems = append(problems, fmt.Errorf("%s %v (%s), want at least 1 (0 for the default)", s.key, s.v, s.flag))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s: invalid settings: %w", Name, errors.Join(problems...))
	}
	return nil
}

// dist is an integer mean and stddev, as AIPerf truncates them.
type dist struct{ mean, stddev float64 }

func newDist(mean, stddev float64, def int) dist {
	if mean == 0 {
		mean = float64(def)
	}
	return dist{math.Trunc(mean), math.Trunc(stddev)}
}

// prompt is one text to build: its length and corpus offset.
type prompt struct{ isl, start int }

// entry is one conversation's draws: the query is prompts[first], the
// passages follow.
type entry struct {
	sessionID   string
	first       int
	numPassages int
	maxTokens   *int
}

// Compose implements sdk.DatasetComposer: opts.NumEntries conversations of
// one rankings turn. InputTokensMean and InputFile are ignored.
func (c *Composer) Compose(ctx context.Context, opts sdk.DatasetOptions) ([]sdk.Conversation, error) {
	if err := validate(opts); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil { // for callers that skip the lifecycle
		return nil, err
	}
	tokens, err := synthetic.CorpusTokens(opts.Tokenizer)
	if err != nil {
		return nil, err
	}
	entries, prompts := c.plan(opts, len(tokens))
	texts, err := c.build(ctx, opts.Tokenizer, tokens, prompts)
	if err != nil {
		return nil, err
	}
	out := make([]sdk.Conversation, len(entries))
	for i, e := range entries {
		turn := sdk.Turn{
			TextGroups: []sdk.TextGroup{
				{Name: sdk.TextGroupQuery, Contents: []string{texts[e.first]}},
				{Name: sdk.TextGroupPassages, Contents: texts[e.first+1 : e.first+1+e.numPassages : e.first+1+e.numPassages]},
			},
			MaxTokens: e.maxTokens,
		}
		if len(opts.Models) > 1 {
			turn.Model = opts.Models[i%len(opts.Models)]
		}
		out[i] = sdk.Conversation{SessionID: e.sessionID, Turns: []sdk.Turn{turn}}
	}
	return out, nil
}

// plan draws every random choice in dataset order: per entry the passage
// count, then the query's length and offset, then each passage's.
func (c *Composer) plan(opts sdk.DatasetOptions, corpusLen int) ([]entry, []prompt) {
	passages := newDist(c.Config.PassagesMean, c.Config.PassagesStddev, DefaultPassages)
	passageTokens := newDist(c.Config.PassageTokensMean, c.Config.PassageTokensStddev, DefaultPassageTokens)
	queryTokens := newDist(c.Config.QueryTokensMean, c.Config.QueryTokensStddev, DefaultQueryTokens)

	counts := sample.NewStream(opts.RandomSeed, "dataset.rankings.passages")
	lengths := sample.NewStream(opts.RandomSeed, "dataset.prompt.length")
	offsets := sample.NewStream(opts.RandomSeed, "dataset.prompt.corpus")
	outputs := sample.NewStream(opts.RandomSeed, "dataset.output.length")
	sessions := sample.NewStream(opts.RandomSeed, "dataset.session_id")
	draw := func(d dist) prompt {
		return prompt{isl: sample.PositiveNormalInt(lengths, d.mean, d.stddev), start: offsets.IntN(corpusLen)}
	}

	entries := make([]entry, opts.NumEntries)
	var prompts []prompt
	for i := range entries {
		e := entry{sessionID: sample.NewUUID(sessions), first: len(prompts)}
		e.numPassages = sample.PositiveNormalInt(counts, passages.mean, passages.stddev)
		prompts = append(prompts, draw(queryTokens))
		for range e.numPassages {
			prompts = append(prompts, draw(passageTokens))
		}
		if opts.OutputTokensMean > 0 {
			osl := sample.PositiveNormalInt(outputs, float64(opts.OutputTokensMean), opts.OutputTokensStddev)
			e.maxTokens = &osl
		}
		entries[i] = e
	}
	return entries, prompts
}

// build makes every prompt, in parallel.
func (c *Composer) build(ctx context.Context, tok sdk.Tokenizer, tokens []int, prompts []prompt) ([]string, error) {
	texts := make([]string, len(prompts))
	var (
		mu       sync.Mutex
		firstErr error
		next     int
		wg       sync.WaitGroup
	)
	for range min(runtime.GOMAXPROCS(0), len(prompts)) {
		wg.Go(func() {
			for ctx.Err() == nil {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(prompts) {
					return
				}
				text, err := synthetic.ExactLengthPrompt(tok, tokens, prompts[i].start, prompts[i].isl)
				if err != nil && !errors.Is(err, synthetic.ErrInexact) {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("%s: prompt %d: %w", Name, i, err)
					}
					mu.Unlock()
					return
				}
				if err != nil && c.Warn != nil {
					c.Warn(fmt.Sprintf("prompt %d: %v", i, err))
				}
				texts[i] = text
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: compose cancelled: %w", Name, err)
	}
	return texts, firstErr
}

func validate(opts sdk.DatasetOptions) error {
	var problems []error
	if opts.NumEntries < 1 {
		problems = append(problems, fmt.Errorf("NumEntries %d, want at least 1", opts.NumEntries))
	}
	if opts.OutputTokensMean < 0 {
		problems = append(problems, fmt.Errorf("OutputTokensMean %d, want at least 0", opts.OutputTokensMean))
	}
	if s := opts.OutputTokensStddev; s < 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		problems = append(problems, fmt.Errorf("OutputTokensStddev %v, want a finite value >= 0", s))
	}
	if opts.Tokenizer == nil {
		problems = append(problems, errors.New("no Tokenizer (rankings prompts need one)"))
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s: invalid options: %w", Name, errors.Join(problems...))
	}
	return nil
}
