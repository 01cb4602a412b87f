package gamma

import (
	"math"
	"math/rand/v2"
)

// sampler draws Gamma(shape, 1) variates with Marsaglia & Tsang (2000),
// "A simple method for generating gamma variables". Shape < 1 uses the
// boost Gamma(a) = Gamma(a+1)·U^(1/a). Constants are precomputed once
// because the shape is fixed for a run.
type sampler struct {
	d, c     float64 // d = a' - 1/3, c = 1/sqrt(9d), a' = max(shape, shape+1)
	invShape float64 // 1/shape, used by the boost
	boost    bool    // shape < 1
}

func newSampler(shape float64) sampler {
	s := sampler{invShape: 1 / shape, boost: shape < 1}
	a := shape
	if s.boost {
		a++
	}
	s.d = a - 1.0/3
	s.c = 1 / math.Sqrt(9*s.d)
	return s
}

func (s *sampler) draw(r *rand.Rand) float64 {
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
