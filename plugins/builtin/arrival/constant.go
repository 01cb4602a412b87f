package arrival

import (
	"context"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Constant is the plugin name (--arrival-pattern constant): every gap is
// exactly 1/rate, with the sub-nanosecond remainder carried so the schedule
// never drifts.
const Constant = "constant"

// ConstantPattern implements sdk.ArrivalPattern.
type ConstantPattern struct {
	q quantizer
}

var (
	_ sdk.ArrivalPattern = (*ConstantPattern)(nil)
	_ sdk.Initializer    = (*ConstantPattern)(nil)
)

// NewConstant returns a ready pattern (Init is optional).
func NewConstant() *ConstantPattern { return &ConstantPattern{} }

// Init drops the carried remainder; the seed does not apply to a
// deterministic pattern.
func (p *ConstantPattern) Init(context.Context, sdk.RunInfo) error {
	p.q.reset()
	return nil
}

// NextGap returns 1/rate; a rate <= 0 or NaN returns MaxGap.
func (p *ConstantPattern) NextGap(rate float64) time.Duration {
	if !(rate > 0) {
		return MaxGap
	}
	return p.q.seconds(1 / rate)
}
