package timing

import (
	"context"
	"math"
	"time"

	"github.com/aiperf-go/aiperf/core/clock"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// rateRampUpdateInterval is how often AIPerf updates a ramping request rate
// (AIPERF_TIMING_RATE_RAMP_UPDATE_INTERVAL default).
const rateRampUpdateInterval = 100 * time.Millisecond

// linearRamp is the default ramp shape: a straight line from start to
// target over the ramp's duration.
type linearRamp struct{}

var _ sdk.Ramp = linearRamp{}

// Value implements sdk.Ramp.
func (linearRamp) Value(t, d time.Duration, start, target float64) float64 {
	if d <= 0 || t >= d {
		return target
	}
	if t <= 0 {
		return start
	}
	return start + (target-start)*float64(t)/float64(d)
}

// shapeOrLinear returns the plan's ramp shape, linear when none is set.
func shapeOrLinear(r sdk.Ramp) sdk.Ramp {
	if r == nil {
		return linearRamp{}
	}
	return r
}

// stepTime returns when a discrete ramp from 1 to target over d reaches
// value v: the earliest t with shape.Value(t) >= v, found by bisection so
// any monotone shape (linear, exponential, stochastic steps) works. Linear
// gives AIPerf's +1 steps at d·(v−1)/(target−1).
func stepTime(shape sdk.Ramp, d time.Duration, target, v int) time.Duration {
	shape = shapeOrLinear(shape)
	if v <= 1 || d <= 0 {
		return 0
	}
	want := float64(v) - 1e-9 // tolerate float error at exact step instants
	if shape.Value(d, d, 1, float64(target)) < want {
		return d
	}
	lo, hi := time.Duration(0), d
	for hi-lo > time.Microsecond {
		mid := lo + (hi-lo)/2
		if shape.Value(mid, d, 1, float64(target)) >= want {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// runStepRamp raises lim from 1 to target in +1 steps over d, starting at
// startNs (perf clock), until ctx ends. Steps that fall due together are
// applied at once.
func runStepRamp(ctx context.Context, lim *limiter, startNs int64, d time.Duration, shape sdk.Ramp, target int) {
	lim.SetLimit(1)
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for v := 2; v <= target; v++ {
		due := startNs + int64(stepTime(shape, d, target, v))
		if wait := time.Duration(due - clock.Now()); wait > 0 {
			t.Reset(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				return
			}
		}
		// Coalesce: jump over every later step that is already due.
		now := clock.Now()
		for v < target && startNs+int64(stepTime(shape, d, target, v+1)) <= now {
			v++
		}
		lim.SetLimit(v)
	}
	lim.SetLimit(target)
}

// rateRamp is AIPerf's continuous request-rate ramp: the rate starts at
// target·(rateRampUpdateInterval/d) and is re-sampled from the ramp shape
// every rateRampUpdateInterval until d, after which it is the target.
type rateRamp struct {
	Duration time.Duration
	Target   float64
	Shape    sdk.Ramp
}

func (r rateRamp) start() float64 {
	return math.Min(r.Target, r.Target*float64(rateRampUpdateInterval)/float64(r.Duration))
}

// RateAt returns the rate in force at elapsed time t (a step function).
func (r rateRamp) RateAt(t time.Duration) float64 {
	if r.Duration <= 0 || t >= r.Duration {
		return r.Target
	}
	if t < 0 {
		t = 0
	}
	step := t - t%rateRampUpdateInterval
	return shapeOrLinear(r.Shape).Value(step, r.Duration, r.start(), r.Target)
}

// Advance returns the elapsed time at which an arrival falls whose gap,
// measured in expected arrivals (gap·rate), is work, starting from elapsed
// time from. Integrating the piecewise-constant rate makes the ramp a true
// time-varying renewal process: a gap drawn at the slow start rate shrinks
// as the rate rises instead of stalling the schedule for its full length.
func (r rateRamp) Advance(from time.Duration, work float64) time.Duration {
	t := from
	for t < r.Duration && work > 0 {
		rate := r.RateAt(t)
		segEnd := min(t-t%rateRampUpdateInterval+rateRampUpdateInterval, r.Duration)
		capacity := (segEnd - t).Seconds() * rate
		if work <= capacity {
			return t + secondsToDuration(work/rate)
		}
		work -= capacity
		t = segEnd
	}
	if work <= 0 {
		return t
	}
	return t + secondsToDuration(work/r.Target)
}

// secondsToDuration converts without overflow for absurd gaps.
func secondsToDuration(s float64) time.Duration {
	if s >= float64(math.MaxInt64)/1e9 {
		return time.Duration(math.MaxInt64 / 2)
	}
	return time.Duration(s * 1e9)
}
