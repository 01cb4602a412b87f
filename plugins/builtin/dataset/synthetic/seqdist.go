package synthetic

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/internal/sample"
)

// SeqDistPair is one (ISL, OSL) pair of a sequence distribution: the means,
// their standard deviations and the pair's probability in percent (AIPerf
// 0.13's SequenceLengthPair; the json keys are those of its JSON format).
type SeqDistPair struct {
	ISL         int     `json:"isl"`
	ISLStddev   float64 `json:"isl_stddev"`
	OSL         int     `json:"osl"`
	OSLStddev   float64 `json:"osl_stddev"`
	Probability float64 `json:"prob"`
}

// seqDist samples pairs like AIPerf's SequenceLengthDistribution.sample:
// a uniform draw in [0, 1) is looked up in the cumulative probabilities
// (numpy searchsorted, side="right", clamped to the last pair), then the
// ISL and OSL are sample_positive_normal_integer draws from the same
// stream when their stddev is positive, else the means.
type seqDist struct {
	pairs      []SeqDistPair
	cumulative []float64
	rng        *rand.Rand
}

func newSeqDist(pairs []SeqDistPair, seed int64) *seqDist {
	if len(pairs) == 0 {
		return nil
	}
	cum := make([]float64, len(pairs))
	total := 0.0
	for i, p := range pairs {
		total += p.Probability / 100
		cum[i] = total
	}
	return &seqDist{pairs: pairs, cumulative: cum, rng: sample.NewStream(seed, "models.sequence.distribution")}
}

// sample draws the next (ISL, OSL).
func (d *seqDist) sample() (int, int) {
	r := d.rng.Float64()
	idx := sort.Search(len(d.cumulative), func(i int) bool { return d.cumulative[i] > r })
	p := d.pairs[min(idx, len(d.pairs)-1)]
	isl, osl := p.ISL, p.OSL
	if p.ISLStddev > 0 {
		isl = sample.PositiveNormalInt(d.rng, float64(p.ISL), p.ISLStddev)
	}
	if p.OSLStddev > 0 {
		osl = sample.PositiveNormalInt(d.rng, float64(p.OSL), p.OSLStddev)
	}
	return isl, osl
}

// prefixProblems checks the sequence distribution (AIPerf's pair and sum
// rules) and the prefix pool settings.
func (cfg Config) prefixProblems() []error {
	var problems []error
	if cfg.PrefixPromptPoolSize < 0 {
		problems = append(problems, fmt.Errorf("prefix_prompt_pool_size %d (--num-prefix-prompts), want at least 0", cfg.PrefixPromptPoolSize))
	}
	if cfg.PrefixPromptLength < 0 {
		problems = append(problems, fmt.Errorf("prefix_prompt_length %d (--prefix-prompt-length), want at least 0", cfg.PrefixPromptLength))
	}
	if cfg.SharedSystemPromptLength < 0 {
		problems = append(problems, fmt.Errorf("shared_system_prompt_length %d (--shared-system-prompt-length), want at least 0", cfg.SharedSystemPromptLength))
	}
	if cfg.UserContextPromptLength < 0 {
		problems = append(problems, fmt.Errorf("user_context_prompt_length %d (--user-context-prompt-length), want at least 0", cfg.UserContextPromptLength))
	}
	if len(cfg.SequenceDistribution) == 0 {
		return problems
	}
	total := 0.0
	for i, p := range cfg.SequenceDistribution {
		var err error
		switch {
		case p.ISL <= 0:
			err = fmt.Errorf("isl %d, want a positive length", p.ISL)
		case p.OSL <= 0:
			err = fmt.Errorf("osl %d, want a positive length", p.OSL)
		case bad(p.ISLStddev):
			err = fmt.Errorf("isl_stddev %v, want a finite value >= 0", p.ISLStddev)
		case bad(p.OSLStddev):
			err = fmt.Errorf("osl_stddev %v, want a finite value >= 0", p.OSLStddev)
		case !(p.Probability >= 0 && p.Probability <= 100):
			err = fmt.Errorf("prob %v, want a percentage in [0, 100]", p.Probability)
		}
		if err != nil {
			problems = append(problems, fmt.Errorf("sequence_distribution[%d] (--seq-dist): %w", i, err))
		}
		total += p.Probability
	}
	if math.Abs(total-100) > 1e-6+1e-6*100 {
		problems = append(problems, errors.New("sequence_distribution (--seq-dist): probabilities must sum to 100.0, got "+fmt.Sprintf("%.6f", total)))
	}
	return problems
}
