package ramp

import (
	"fmt"
	"math"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Exponential is the plugin name (--ramp-type exponential), AIPerf's
// ease-in curve: value progress = (time progress)^exponent, default
// exponent 2, so the value rises slowly at first and fastest near the end.
const Exponential = "exponential"

// DefaultExponent is AIPerf's default curve exponent.
const DefaultExponent = 2.0

// ExponentialRamp implements sdk.Ramp. It is immutable and safe for
// concurrent use.
type ExponentialRamp struct {
	exponent float64
}

var _ sdk.Ramp = (*ExponentialRamp)(nil)

// NewExponential returns the ramp with exponent 2.
func NewExponential() *ExponentialRamp { return &ExponentialRamp{exponent: DefaultExponent} }

// NewExponentialWithExponent returns the ramp with a custom exponent, which
// must be a finite number > 1 (AIPerf's rule: 1 would be linear, < 1
// ease-out).
func NewExponentialWithExponent(exponent float64) (*ExponentialRamp, error) {
	if !(exponent > 1) || math.IsInf(exponent, 0) {
		return nil, fmt.Errorf("exponential ramp: exponent must be a finite number > 1, got %v", exponent)
	}
	return &ExponentialRamp{exponent: exponent}, nil
}

// Exponent returns the curve exponent.
func (r *ExponentialRamp) Exponent() float64 { return r.exponent }

// Value returns start + (target-start)·(t/d)^exponent; target once t >= d
// or d <= 0.
func (r *ExponentialRamp) Value(t, d time.Duration, start, target float64) float64 {
	p, done := progress(t, d)
	if done {
		return target
	}
	if r.exponent == DefaultExponent || r.exponent == 0 { // 0: zero-value ramp
		p *= p // the default needs no math.Pow
	} else {
		p = math.Pow(p, r.exponent)
	}
	return start + (target-start)*p
}
