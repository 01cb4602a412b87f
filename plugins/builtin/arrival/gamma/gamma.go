// Package gamma is the "gamma" arrival pattern: i.i.d. Gamma gaps with
// shape = smoothness (--arrival-smoothness / --vllm-burstiness) and scale
// 1/(rate·smoothness), so the mean gap stays 1/rate while the coefficient
// of variation is 1/sqrt(smoothness). Smoothness 1 is Poisson.
package gamma

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/arrival/internal/gap"
)

// Name is the plugin name (--arrival-pattern gamma).
const Name = "gamma"

// DefaultSmoothness applies when ArrivalOptions.Smoothness is 0.
const DefaultSmoothness = 1.0

// Pattern implements sdk.ArrivalPattern.
type Pattern struct {
	rng        *rand.Rand
	q          gap.Quantizer
	smoothness float64
	s          sampler
}

var _ sdk.ArrivalPattern = (*Pattern)(nil)

// New returns a pattern with seed 0 and smoothness 1; Init reconfigures it.
func New() *Pattern {
	return &Pattern{rng: gap.NewRand(0), smoothness: DefaultSmoothness, s: newSampler(DefaultSmoothness)}
}

// Init reseeds from opts.Seed and sets the shape. Smoothness 0 means the
// default 1; negative, NaN or infinite smoothness is an error and leaves
// the pattern unchanged.
func (p *Pattern) Init(opts sdk.ArrivalOptions) error {
	k := opts.Smoothness
	if k == 0 {
		k = DefaultSmoothness
	}
	if !(k > 0) || math.IsInf(k, 0) {
		return fmt.Errorf("gamma arrival pattern: smoothness (--arrival-smoothness) must be a finite number > 0, got %v", opts.Smoothness)
	}
	p.smoothness = k
	p.s = newSampler(k)
	p.rng = gap.NewRand(opts.Seed)
	p.q.Reset()
	return nil
}

// Smoothness returns the shape in use.
func (p *Pattern) Smoothness() float64 { return p.smoothness }

// NextGap draws Gamma(smoothness, 1/(rate·smoothness)) seconds; a rate <= 0
// or NaN returns gap.MaxGap without consuming randomness.
func (p *Pattern) NextGap(rate float64) time.Duration {
	if !(rate > 0) {
		return gap.MaxGap
	}
	return p.q.Seconds(p.s.draw(p.rng) / (rate * p.smoothness))
}
