package ramp

import (
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Linear is the plugin name (--ramp-type linear): the value moves from
// start to target in proportion to elapsed time.
const Linear = "linear"

// LinearRamp implements sdk.Ramp. It is stateless and safe for concurrent
// use.
type LinearRamp struct{}

var _ sdk.Ramp = (*LinearRamp)(nil)

// NewLinear returns the linear ramp.
func NewLinear() *LinearRamp { return &LinearRamp{} }

// Value returns start + (target-start)·t/d; target once t >= d or d <= 0.
func (*LinearRamp) Value(t, d time.Duration, start, target float64) float64 {
	p, done := progress(t, d)
	if done {
		return target
	}
	return start + (target-start)*p
}
