// Package constant is the "constant" arrival pattern: every gap is exactly
// 1/rate, with the sub-nanosecond remainder carried so the schedule never
// drifts.
package constant

import (
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/arrival/internal/gap"
)

// Name is the plugin name (--arrival-pattern constant).
const Name = "constant"

// Pattern implements sdk.ArrivalPattern.
type Pattern struct {
	q gap.Quantizer
}

var _ sdk.ArrivalPattern = (*Pattern)(nil)

// New returns a ready pattern (Init is optional).
func New() *Pattern { return &Pattern{} }

// Init resets the carried remainder. The seed and smoothness do not apply
// to a deterministic pattern and are ignored (the CLI rejects
// --arrival-smoothness with a non-gamma pattern).
func (p *Pattern) Init(sdk.ArrivalOptions) error {
	p.q.Reset()
	return nil
}

// NextGap returns 1/rate; a rate <= 0 or NaN returns gap.MaxGap.
func (p *Pattern) NextGap(rate float64) time.Duration {
	if !(rate > 0) {
		return gap.MaxGap
	}
	return p.q.Seconds(1 / rate)
}
