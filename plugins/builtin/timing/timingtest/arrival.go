package timingtest

import (
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// ConstantArrival is the constant arrival pattern (gap = 1/rate), enough to
// drive open-loop strategies in tests without the arrival plugins.
type ConstantArrival struct{}

var _ sdk.ArrivalPattern = ConstantArrival{}

// NextGap implements sdk.ArrivalPattern.
func (ConstantArrival) NextGap(rate float64) time.Duration {
	return time.Duration(1e9 / rate)
}
