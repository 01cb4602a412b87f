// Package poisson is the "poisson" arrival pattern (AIPerf's default):
// i.i.d. exponential gaps with mean 1/rate, seeded by --random-seed.
package poisson

import (
	"math/rand/v2"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/arrival/internal/gap"
)

// Name is the plugin name (--arrival-pattern poisson).
const Name = "poisson"

// Pattern implements sdk.ArrivalPattern.
type Pattern struct {
	rng *rand.Rand
	q   gap.Quantizer
}

var _ sdk.ArrivalPattern = (*Pattern)(nil)

// New returns a pattern seeded with 0; Init reseeds it.
func New() *Pattern { return &Pattern{rng: gap.NewRand(0)} }

// Init reseeds the generator from opts.Seed. Smoothness is ignored (the CLI
// rejects --arrival-smoothness with a non-gamma pattern).
func (p *Pattern) Init(opts sdk.ArrivalOptions) error {
	p.rng = gap.NewRand(opts.Seed)
	p.q.Reset()
	return nil
}

// NextGap draws Exp(rate) seconds; a rate <= 0 or NaN returns gap.MaxGap
// without consuming randomness.
func (p *Pattern) NextGap(rate float64) time.Duration {
	if !(rate > 0) {
		return gap.MaxGap
	}
	// ExpFloat64 is the ziggurat sampler: no log per draw, no allocation.
	return p.q.Seconds(p.rng.ExpFloat64() / rate)
}
