package arrival

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Gamma is the plugin name (--arrival-pattern gamma): i.i.d. Gamma gaps with
// shape = smoothness (--arrival-smoothness / --vllm-burstiness) and scale
// 1/(rate·smoothness), so the mean gap stays 1/rate while the coefficient
// of variation is 1/sqrt(smoothness). Smoothness 1 is Poisson.
const Gamma = "gamma"

// DefaultSmoothness is the gamma shape when none is configured (or 0).
const DefaultSmoothness = 1.0

// GammaConfig is the gamma pattern's settings (sdk.Configurable).
type GammaConfig struct {
	// Smoothness is the shape (--arrival-smoothness); 0 means 1.
	Smoothness float64 `json:"smoothness"`
}

// GammaPattern implements sdk.ArrivalPattern.
type GammaPattern struct {
	cfg GammaConfig

	rng        *rand.Rand
	q          quantizer
	smoothness float64 // the shape in use, set by Init
	s          gammaSampler
}

var (
	_ sdk.ArrivalPattern = (*GammaPattern)(nil)
	_ sdk.Initializer    = (*GammaPattern)(nil)
	_ sdk.Configurable   = (*GammaPattern)(nil)
	_ sdk.Validator      = (*GammaPattern)(nil)
)

// NewGamma returns a pattern with seed 0 and smoothness 1; configuration
// and Init change them.
func NewGamma() *GammaPattern {
	return &GammaPattern{cfg: GammaConfig{Smoothness: DefaultSmoothness}, rng: newRand(0),
		smoothness: DefaultSmoothness, s: newGammaSampler(DefaultSmoothness)}
}

// PluginConfig implements sdk.Configurable.
func (p *GammaPattern) PluginConfig() any { return &p.cfg }

// Validate implements sdk.Validator: smoothness must be finite and > 0
// (0 stands for the default).
func (p *GammaPattern) Validate() error {
	_, err := p.shape()
	return err
}

func (p *GammaPattern) shape() (float64, error) {
	k := p.cfg.Smoothness
	if k == 0 {
		k = DefaultSmoothness
	}
	if !(k > 0) || math.IsInf(k, 0) {
		return 0, fmt.Errorf("gamma arrival pattern: smoothness (--arrival-smoothness) must be a finite number > 0, got %v", p.cfg.Smoothness)
	}
	return k, nil
}

// Init applies the configured shape, reseeds from run.Seed and restarts the
// sequence. A bad smoothness is an error (as in Validate) and leaves the
// pattern unchanged.
func (p *GammaPattern) Init(_ context.Context, run sdk.RunInfo) error {
	k, err := p.shape()
	if err != nil {
		return err
	}
	p.smoothness = k
	p.s = newGammaSampler(k)
	p.rng = newRand(run.Seed)
	p.q.reset()
	return nil
}

// Smoothness returns the shape in use.
func (p *GammaPattern) Smoothness() float64 { return p.smoothness }

// NextGap draws Gamma(smoothness, 1/(rate·smoothness)) seconds; a rate <= 0
// or NaN returns MaxGap without consuming randomness.
func (p *GammaPattern) NextGap(rate float64) time.Duration {
	if !(rate > 0) {
		return MaxGap
	}
	return p.q.seconds(p.s.draw(p.rng) / (rate * p.smoothness))
}

// gammaSampler draws Gamma(shape, 1) variates with Marsaglia & Tsang (2000),
// "A simple method for generating gamma variables". Shape < 1 uses the
// boost Gamma(a) = Gamma(a+1)·U^(1/a). Constants are precomputed once
// because the shape is fixed for a run.
type gammaSampler struct {
	d, c     float64 // d = a' - 1/3, c = 1/sqrt(9d), a' = max(shape, shape+1)
	invShape float64 // 1/shape, used by the boost
	boost    bool    // shape < 1
}

func newGammaSampler(shape float64) gammaSampler {
	s := gammaSampler{invShape: 1 / shape, boost: shape < 1}
	a := shape
	if s.boost {
		a++
	}
	s.d = a - 1.0/3
	s.c = 1 / math.Sqrt(9*s.d)
	return s
}

func (s *gammaSampler) draw(r *rand.Rand) float64 {
	var x, v float64
	for {
		for {
			x = r.NormFloat64()
			v = 1 + s.c*x
			if v > 0 {
				break
			}
		}
		v = v * v * v
		u := r.Float64()
		x2 := x * x
		// Squeeze test first: it accepts ~98% of draws without a log.
		if u < 1-0.0331*x2*x2 {
			break
		}
		if math.Log(u) < 0.5*x2+s.d*(1-v+math.Log(v)) {
			break
		}
	}
	g := s.d * v
	if s.boost {
		// 1-Float64 is in (0,1]: a uniform of exactly 0 would turn a
		// legitimate draw into a zero gap.
		g *= math.Pow(1-r.Float64(), s.invShape)
	}
	return g
}
