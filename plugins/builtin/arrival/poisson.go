package arrival

import (
	"context"
	"math/rand/v2"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Poisson is the plugin name (--arrival-pattern poisson), AIPerf's default:
// i.i.d. exponential gaps with mean 1/rate, seeded by --random-seed.
const Poisson = "poisson"

// PoissonPattern implements sdk.ArrivalPattern. NextGap is called from one
// goroutine, so it holds no lock.
type PoissonPattern struct {
	rng *rand.Rand
	q   quantizer
}

var (
	_ sdk.ArrivalPattern = (*PoissonPattern)(nil)
	_ sdk.Initializer    = (*PoissonPattern)(nil)
)

// NewPoisson returns a pattern seeded with 0; Init reseeds it.
func NewPoisson() *PoissonPattern { return &PoissonPattern{rng: newRand(0)} }

// Init reseeds the generator from run.Seed and restarts the sequence.
func (p *PoissonPattern) Init(_ context.Context, run sdk.RunInfo) error {
	p.rng = newRand(run.Seed)
	p.q.reset()
	return nil
}

// NextGap draws Exp(rate) seconds; a rate <= 0 or NaN returns MaxGap
// without consuming randomness.
func (p *PoissonPattern) NextGap(rate float64) time.Duration {
	if !(rate > 0) {
		return MaxGap
	}
	// ExpFloat64 is the ziggurat sampler: no log per draw, no allocation.
	return p.q.seconds(p.rng.ExpFloat64() / rate)
}
