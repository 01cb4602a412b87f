package timing

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/clock"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func TestLinearRampValue(t *testing.T) {
	cases := []struct {
		t, d          time.Duration
		start, target float64
		want          float64
	}{
		{0, 10 * time.Second, 1, 11, 1},
		{5 * time.Second, 10 * time.Second, 1, 11, 6},
		{10 * time.Second, 10 * time.Second, 1, 11, 11},
		{20 * time.Second, 10 * time.Second, 1, 11, 11},
		{-time.Second, 10 * time.Second, 1, 11, 1},
		{time.Second, 0, 1, 11, 11},
	}
	for _, c := range cases {
		if got := (linearRamp{}).Value(c.t, c.d, c.start, c.target); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Value(%v, %v, %v, %v) = %v, want %v", c.t, c.d, c.start, c.target, got, c.want)
		}
	}
}

// squareRamp is an ease-in shape (AIPerf's exponential ramp, exponent 2).
type squareRamp struct{}

func (squareRamp) Value(t, d time.Duration, start, target float64) float64 {
	if t >= d {
		return target
	}
	f := float64(t) / float64(d)
	return start + (target-start)*f*f
}

func TestStepTimeFollowsShape(t *testing.T) {
	cases := []struct {
		name      string
		shape     sdk.Ramp // nil: the default linear shape
		target, v int
		want      time.Duration
	}{
		{"linear first step", nil, 5, 2, time.Second},
		{"linear middle", nil, 5, 3, 2 * time.Second},
		{"linear last", nil, 5, 5, 4 * time.Second},
		{"linear start value", nil, 5, 1, 0},
		{"linear 101 steps", linearRamp{}, 101, 51, 2 * time.Second},
		// 1 + 4·f² = 2 at f = 1/2.
		{"ease-in first step", squareRamp{}, 5, 2, 2 * time.Second},
		{"ease-in last", squareRamp{}, 5, 5, 4 * time.Second},
	}
	for _, c := range cases {
		got := stepTime(c.shape, 4*time.Second, c.target, c.v)
		if d := got - c.want; d > 2*time.Microsecond || d < -2*time.Microsecond {
			t.Errorf("%s: stepTime = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestStepRampRaisesLimitStepwise(t *testing.T) {
	lim := newLimiter(99)
	done := make(chan struct{})
	go func() {
		runStepRamp(context.Background(), lim, clock.Now(), 200*time.Millisecond, nil, 5)
		close(done)
	}()
	var seen []int
	for finished := false; !finished; {
		select {
		case <-done:
			finished = true
		case <-time.After(time.Millisecond):
		}
		if v := lim.Limit(); len(seen) == 0 || seen[len(seen)-1] != v {
			seen = append(seen, v)
		}
	}
	if seen[0] != 1 || seen[len(seen)-1] != 5 {
		t.Fatalf("limits seen %v: want to start at 1 and end at 5", seen)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] < seen[i-1] {
			t.Fatalf("limit went down: %v", seen)
		}
	}
	if len(seen) < 3 {
		t.Fatalf("limits seen %v: want intermediate steps, not a jump to the target", seen)
	}
}

func TestStepRampStopsOnCancel(t *testing.T) {
	lim := newLimiter(99)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { runStepRamp(ctx, lim, clock.Now(), time.Hour, nil, 10); close(done) }()
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("ramp ignored cancellation")
	}
	if lim.Limit() != 1 {
		t.Fatalf("cancelled hour-long ramp left limit %d, want 1", lim.Limit())
	}
}

func TestRateRampRateAt(t *testing.T) {
	r := rateRamp{Duration: time.Second, Target: 100}
	cases := []struct {
		at   time.Duration
		want float64
	}{
		{0, 10}, // target·(0.1/1)
		{50 * time.Millisecond, 10},
		{100 * time.Millisecond, 19}, // 10 + 90·0.1
		{550 * time.Millisecond, 55}, // held at the 0.5 s update
		{999 * time.Millisecond, 91},
		{time.Second, 100},
		{5 * time.Second, 100},
	}
	for _, c := range cases {
		if got := r.RateAt(c.at); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("RateAt(%v) = %v, want %v", c.at, got, c.want)
		}
	}
	// A ramp shorter than one update interval starts at the target.
	if got := (rateRamp{Duration: 50 * time.Millisecond, Target: 40}).RateAt(0); got != 40 {
		t.Errorf("short ramp starts at %v, want 40", got)
	}
}

func TestRateRampAdvanceIntegratesRate(t *testing.T) {
	r := rateRamp{Duration: time.Second, Target: 100}
	cases := []struct {
		from time.Duration
		work float64
		want time.Duration
	}{
		{0, 0.5, 50 * time.Millisecond},               // rate 10
		{0, 1, 100 * time.Millisecond},                // exactly one segment
		{0, 2, 100*time.Millisecond + time.Second/19}, // spills into rate 19
		{2 * time.Second, 1, 2*time.Second + 10*time.Millisecond},
		{950 * time.Millisecond, 10, time.Second + 54500*time.Microsecond}, // 4.55 at 91, 5.45 at 100
	}
	for _, c := range cases {
		got := r.Advance(c.from, c.work)
		if d := got - c.want; d > time.Microsecond || d < -time.Microsecond {
			t.Errorf("Advance(%v, %v) = %v, want %v", c.from, c.work, got, c.want)
		}
	}
	// Unit-work arrivals over the ramp number the integral of the rate:
	// 0.1·Σ(10 + 9k) for k = 0..9 = 50.5.
	n := 0
	for at := r.Advance(0, 1); at < time.Second; at = r.Advance(at, 1) {
		n++
	}
	if n != 50 {
		t.Errorf("%d arrivals during the ramp, want 50", n)
	}
}
