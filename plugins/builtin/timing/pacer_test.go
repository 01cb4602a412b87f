package timing

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/clock"
)

func TestAnchorBoundsCatchUp(t *testing.T) {
	ms := int64(time.Millisecond)
	cases := []struct {
		name              string
		catchup           time.Duration
		target, now, want int64
	}{
		{"future target kept", defaultMaxCatchup, 100 * ms, 50 * ms, 100 * ms},
		{"slightly late kept", defaultMaxCatchup, 100 * ms, 109 * ms, 100 * ms},
		{"exactly at bound kept", defaultMaxCatchup, 100 * ms, 110 * ms, 100 * ms},
		{"beyond bound re-anchored", defaultMaxCatchup, 100 * ms, 111 * ms, 111 * ms},
		{"multi-second stall re-anchored", defaultMaxCatchup, 100 * ms, 3100 * ms, 3100 * ms},
		{"zero catch-up re-anchors any lateness", 0, 100 * ms, 100*ms + 1, 100*ms + 1},
		{"large catch-up keeps schedule", 5 * time.Second, 100 * ms, 3100 * ms, 100 * ms},
	}
	for _, c := range cases {
		p := mustPacer(t, WithMaxCatchup(c.catchup))
		if got := p.Anchor(c.target, c.now); got != c.want {
			t.Errorf("%s: Anchor(%d, %d) = %d, want %d", c.name, c.target, c.now, got, c.want)
		}
	}
}

// mustPacer builds a pacer from opts as a phase does.
func mustPacer(t testing.TB, opts ...Option) *pacer {
	t.Helper()
	o, err := buildOptions(opts)
	if err != nil {
		t.Fatal(err)
	}
	return newPacer(o)
}

func TestOptionsRejectOutOfRangeCatchup(t *testing.T) {
	for _, d := range []time.Duration{-time.Millisecond, 11 * time.Second} {
		if _, err := buildOptions([]Option{WithMaxCatchup(d)}); err == nil {
			t.Errorf("max catch-up %v accepted", d)
		}
	}
	if _, err := buildOptions([]Option{WithMaxCatchup(10 * time.Second)}); err != nil {
		t.Errorf("max catch-up 10s rejected: %v", err)
	}
}

func TestSleepUntilNeverWakesEarly(t *testing.T) {
	p := mustPacer(t)
	for _, off := range []time.Duration{-time.Second, 0, 30 * time.Microsecond, 300 * time.Microsecond, 1500 * time.Microsecond, 4 * time.Millisecond} {
		deadline := clock.Now() + int64(off)
		if err := p.SleepUntil(context.Background(), deadline); err != nil {
			t.Fatal(err)
		}
		if now := clock.Now(); now < deadline {
			t.Errorf("offset %v: woke %v early", off, time.Duration(deadline-now))
		}
	}
}

func TestSleepUntilStopsOnCancel(t *testing.T) {
	p := mustPacer(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(10 * time.Millisecond); cancel() }()
	done := make(chan error, 1)
	go func() { done <- p.SleepUntil(ctx, clock.Now()+int64(time.Hour)) }()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("SleepUntil = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("SleepUntil ignored cancellation")
	}
	// The pacer's timer must be reusable after a cancelled wait.
	deadline := clock.Now() + int64(3*time.Millisecond)
	if err := p.SleepUntil(context.Background(), deadline); err != nil || clock.Now() < deadline {
		t.Fatalf("reuse after cancel: err=%v, early=%v", err, clock.Now() < deadline)
	}
}

func TestWaitReanchorsOnlyWhenFarBehind(t *testing.T) {
	p := mustPacer(t)
	now := clock.Now()
	if got, _ := p.Wait(context.Background(), now-int64(2*time.Millisecond)); got != now-int64(2*time.Millisecond) {
		t.Errorf("2 ms late: anchor moved to %d", got)
	}
	late := now - int64(time.Second)
	if got, _ := p.Wait(context.Background(), late); got <= late || got < now {
		t.Errorf("1 s late: anchor %d not re-anchored to now (%d)", got, now)
	}
}

// BenchmarkPacerLag measures how late SleepUntil wakes against an absolute
// schedule with the given spacing (the pacer alone, no strategy).
func BenchmarkPacerLag(b *testing.B) {
	for _, gap := range []time.Duration{time.Millisecond, 200 * time.Microsecond, 50 * time.Microsecond} {
		b.Run(fmt.Sprintf("gap=%v", gap), func(b *testing.B) {
			p := mustPacer(b)
			lags := make([]int64, 0, b.N)
			next := clock.Now() + int64(gap)
			for b.Loop() {
				_ = p.SleepUntil(context.Background(), next)
				lags = append(lags, clock.Now()-next)
				next += int64(gap)
			}
			reportLags(b, lags)
		})
	}
}

func reportLags(b *testing.B, lags []int64) {
	if len(lags) == 0 {
		return
	}
	sort.Slice(lags, func(i, j int) bool { return lags[i] < lags[j] })
	us := func(ns int64) float64 { return float64(ns) / 1e3 }
	b.ReportMetric(us(lags[len(lags)/2]), "lag-p50-µs")
	b.ReportMetric(us(lags[len(lags)*99/100]), "lag-p99-µs")
	b.ReportMetric(us(lags[len(lags)-1]), "lag-max-µs")
}
