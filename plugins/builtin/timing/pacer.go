package timing

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/aiperf-go/aiperf/core/clock"
)

const (
	// defaultMaxCatchup is AIPerf's AIPERF_TIMING_MAX_CATCHUP_SECONDS
	// default: a schedule more than this far behind is re-anchored to now
	// instead of bursting to catch up.
	defaultMaxCatchup = 10 * time.Millisecond
	// maxMaxCatchup is the upper end of AIPerf's accepted range (0–10 s).
	maxMaxCatchup = 10 * time.Second

	// spinThreshold is how long before a deadline the pacer stops sleeping
	// and yields in a loop instead. Measured on Linux (2 cores, Go 1.26):
	// nanosleep overshoots by 55–90 µs at p50 and ~120 µs at p99, so a
	// shorter spin would make a late wake-up the common case.
	spinThreshold = 150 * time.Microsecond

	// coarseMargin is how long before a deadline the cancellable runtime
	// timer hands over to the precise sleep. Go timers wake through
	// epoll_pwait, whose timeout is whole milliseconds, so they overshoot by
	// up to ~1.1 ms; 2 ms keeps that overshoot clear of the deadline.
	coarseMargin = 2 * time.Millisecond
)

// Option tunes the pacing of a strategy (every constructor takes them).
type Option func(*options)

type options struct {
	maxCatchup time.Duration
}

// WithMaxCatchup sets how far behind its schedule the pacer may fall before
// it re-anchors (AIPERF_TIMING_MAX_CATCHUP_SECONDS; 0–10 s, default 10 ms).
func WithMaxCatchup(d time.Duration) Option {
	return func(o *options) { o.maxCatchup = d }
}

func buildOptions(opts []Option) (options, error) {
	o := options{maxCatchup: defaultMaxCatchup}
	for _, opt := range opts {
		opt(&o)
	}
	if o.maxCatchup < 0 || o.maxCatchup > maxMaxCatchup {
		return o, fmt.Errorf("max catch-up must be within 0s..%v (got %v)", maxMaxCatchup, o.maxCatchup)
	}
	return o, nil
}

// pacer sleeps until absolute perf-clock deadlines (clock.Now() ns). It
// sleeps on a cancellable timer for the bulk of a wait, then on a precise
// OS sleep, and yields in a loop for the last spinThreshold. A pacer is used
// by one goroutine at a time.
type pacer struct {
	maxCatchupNs int64
	timer        *time.Timer
}

func newPacer(o options) *pacer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &pacer{maxCatchupNs: int64(o.maxCatchup), timer: t}
}

// Anchor applies bounded catch-up: a target more than the max catch-up in
// the past becomes now, so a stall re-anchors the schedule instead of
// releasing a burst; a target only slightly late keeps its place.
func (p *pacer) Anchor(targetNs, nowNs int64) int64 {
	if targetNs < nowNs-p.maxCatchupNs {
		return nowNs
	}
	return targetNs
}

// Wait re-anchors targetNs if the schedule fell too far behind, then sleeps
// until it. It returns the anchor the schedule continues from (targetNs,
// or the re-anchored time), so the caller computes next = anchor + gap
// before issuing and issuance latency never drifts the schedule.
func (p *pacer) Wait(ctx context.Context, targetNs int64) (int64, error) {
	anchor := p.Anchor(targetNs, clock.Now())
	return anchor, p.SleepUntil(ctx, anchor)
}

// SleepUntil blocks until clock.Now() >= deadlineNs. It returns ctx's
// error if ctx ends first; the final ≤ 2 ms are not interruptible.
func (p *pacer) SleepUntil(ctx context.Context, deadlineNs int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if rem := deadlineNs - clock.Now(); rem > int64(coarseMargin) {
		p.timer.Reset(time.Duration(rem) - coarseMargin)
		select {
		case <-p.timer.C:
		case <-ctx.Done():
			p.timer.Stop()
			return ctx.Err()
		}
	}
	for {
		rem := deadlineNs - clock.Now()
		if rem <= int64(spinThreshold) {
			break
		}
		preciseSleep(time.Duration(rem) - spinThreshold)
	}
	for clock.Now() < deadlineNs {
		runtime.Gosched()
	}
	return nil
}
