// Package exponential is the "exponential" ramp, AIPerf's ease-in curve:
// value progress = (time progress)^exponent, default exponent 2, so the
// value rises slowly at first and fastest near the end.
package exponential

import (
	"fmt"
	"math"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/ramp/internal/span"
)

// Name is the plugin name.
const Name = "exponential"

// DefaultExponent is AIPerf's default curve exponent.
const DefaultExponent = 2.0

// Ramp implements sdk.Ramp. It is immutable and safe for concurrent use.
type Ramp struct {
	exponent float64
}

var _ sdk.Ramp = (*Ramp)(nil)

// New returns the ramp with exponent 2.
func New() *Ramp { return &Ramp{exponent: DefaultExponent} }

// NewWithExponent returns the ramp with a custom exponent, which must be a
// finite number > 1 (AIPerf's rule: 1 would be linear, < 1 ease-out).
func NewWithExponent(exponent float64) (*Ramp, error) {
	if !(exponent > 1) || math.IsInf(exponent, 0) {
		return nil, fmt.Errorf("exponential ramp: exponent must be a finite number > 1, got %v", exponent)
	}
	return &Ramp{exponent: exponent}, nil
}

// Exponent returns the curve exponent.
func (r *Ramp) Exponent() float64 { return r.exponent }

// Value returns start + (target-start)·(t/d)^exponent; target once t >= d
// or d <= 0.
func (r *Ramp) Value(t, d time.Duration, start, target float64) float64 {
	p, done := span.Progress(t, d)
	if done {
		return target
	}
	if r.exponent == DefaultExponent || r.exponent == 0 { // 0: zero-value Ramp
		p *= p // the default needs no math.Pow
	} else {
		p = math.Pow(p, r.exponent)
	}
	return start + (target-start)*p
}
