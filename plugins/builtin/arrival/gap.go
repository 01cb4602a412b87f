package arrival

import (
	"math"
	"math/rand/v2"
	"time"
)

// MaxGap bounds every gap. A rate <= 0 (or NaN) yields MaxGap: "no arrival
// in any realistic run" without the overflow that math.MaxInt64 would cause
// once the strategy adds it to an absolute schedule. It also keeps the
// float-to-int conversion in range for absurdly low rates.
const MaxGap = 24 * time.Hour

const maxGapNs = float64(MaxGap)

// PCG stream selector; any fixed odd constant works, it only has to stay
// the same so one seed always gives one sequence.
const pcgStream = 0x9e3779b97f4a7c15

// newRand returns a PCG generator fully determined by seed.
func newRand(seed int64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), pcgStream))
}

// quantizer turns float gaps into time.Duration while carrying the sub-ns
// remainder to the next gap, so the running sum of returned gaps stays
// within 0.5 ns of the exact float sum (1/3 s gaps do not drift by a third
// of a nanosecond per request). The zero value is ready to use.
type quantizer struct {
	residualNs float64
}

// reset drops the carried remainder.
func (q *quantizer) reset() { q.residualNs = 0 }

// seconds converts a gap in seconds; negative or NaN input counts as 0,
// anything above MaxGap is clamped (and the remainder dropped).
func (q *quantizer) seconds(sec float64) time.Duration {
	if !(sec > 0) { // also catches NaN
		sec = 0
	}
	exact := sec*1e9 + q.residualNs
	if exact >= maxGapNs {
		q.residualNs = 0
		return MaxGap
	}
	rounded := math.Round(exact)
	if rounded < 0 { // residual -0.5 on a zero gap rounds to -1
		rounded = 0
	}
	q.residualNs = exact - rounded
	return time.Duration(rounded)
}
