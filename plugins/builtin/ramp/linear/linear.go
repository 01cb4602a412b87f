// Package linear is the "linear" ramp: the value moves from start to target
// in proportion to elapsed time.
package linear

import (
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/ramp/internal/span"
)

// Name is the plugin name.
const Name = "linear"

// Ramp implements sdk.Ramp. It is stateless and safe for concurrent use.
type Ramp struct{}

var _ sdk.Ramp = (*Ramp)(nil)

// New returns the linear ramp.
func New() *Ramp { return &Ramp{} }

// Value returns start + (target-start)·t/d; target once t >= d or d <= 0.
func (*Ramp) Value(t, d time.Duration, start, target float64) float64 {
	p, done := span.Progress(t, d)
	if done {
		return target
	}
	return start + (target-start)*p
}
