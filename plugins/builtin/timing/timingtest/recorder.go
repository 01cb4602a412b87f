// Package timingtest provides a recording sdk.CreditSender for tests of
// timing strategies: it stands in for the engine, simulating service time
// and the first-token callback, and records what it was sent.
package timingtest

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aiperf-go/aiperf/core/clock"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Sent is one credit as the recorder saw it.
type Sent struct {
	Credit  sdk.Credit
	StartNs int64 // when Send was entered
	EndNs   int64 // when Send returned
	// InFlight is how many sends were running when this one began,
	// itself included.
	InFlight int
	// Cause is context.Cause of the request context when the send was cut
	// short by it, nil when it ran to completion.
	Cause error
}

// Recorder is an sdk.CreditSender that records credits and peaks.
type Recorder struct {
	// Delay is the simulated service time of each send.
	Delay time.Duration
	// DelayFor, when set, overrides Delay per credit.
	DelayFor func(c sdk.Credit) time.Duration
	// FirstTokenAfter calls Credit.OnFirstToken this long into a send
	// (0: never; the strategy must then free the slot when Send returns).
	FirstTokenAfter time.Duration

	mu    sync.Mutex
	sent  []Sent
	count atomic.Int64

	inFlight, peakInFlight atomic.Int64
	prefill, peakPrefill   atomic.Int64
}

var _ sdk.CreditSender = (*Recorder)(nil)

// Send implements sdk.CreditSender.
func (r *Recorder) Send(ctx context.Context, c sdk.Credit) {
	start := clock.Now()
	inFlight := raise(&r.inFlight, &r.peakInFlight)
	raise(&r.prefill, &r.peakPrefill)
	inPrefill := true
	leavePrefill := func() {
		if inPrefill {
			inPrefill = false
			r.prefill.Add(-1)
			if c.OnFirstToken != nil {
				c.OnFirstToken()
			}
		}
	}
	delay := r.Delay
	if r.DelayFor != nil {
		delay = r.DelayFor(c)
	}
	var cause error
	if r.FirstTokenAfter > 0 && r.FirstTokenAfter < delay {
		cause = wait(ctx, r.FirstTokenAfter)
		if cause == nil {
			leavePrefill()
			cause = wait(ctx, delay-r.FirstTokenAfter)
		}
	} else {
		cause = wait(ctx, delay)
	}
	// The request is over before its slots are freed (as in the engine),
	// so a successor never overlaps it in the counts. Like the engine, the
	// first-token hook also fires when a request ends without a token.
	r.inFlight.Add(-1)
	leavePrefill()
	r.count.Add(1)
	r.mu.Lock()
	r.sent = append(r.sent, Sent{Credit: c, StartNs: start, EndNs: clock.Now(), InFlight: int(inFlight), Cause: cause})
	r.mu.Unlock()
}

// wait sleeps d or until ctx ends; it returns ctx's cause when cut short.
func wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// raise increments cur, keeps peak at its maximum and returns the new cur.
func raise(cur, peak *atomic.Int64) int64 {
	n := cur.Add(1)
	for {
		p := peak.Load()
		if n <= p || peak.CompareAndSwap(p, n) {
			return n
		}
	}
}

// Count is the number of sends that returned.
func (r *Recorder) Count() int { return int(r.count.Load()) }

// PeakInFlight is the most sends running at once.
func (r *Recorder) PeakInFlight() int { return int(r.peakInFlight.Load()) }

// PeakPrefill is the most sends running at once before their first token.
func (r *Recorder) PeakPrefill() int { return int(r.peakPrefill.Load()) }

// InFlight is the number of sends running now.
func (r *Recorder) InFlight() int { return int(r.inFlight.Load()) }

// Sent returns the finished sends ordered by IssuedNs.
func (r *Recorder) Sent() []Sent {
	r.mu.Lock()
	out := append([]Sent(nil), r.sent...)
	r.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Credit.IssuedNs < out[j].Credit.IssuedNs })
	return out
}

// ByUser groups sends by Credit.User, each group in issue order.
func ByUser(sent []Sent) map[int][]Sent {
	out := map[int][]Sent{}
	for _, s := range sent {
		out[s.Credit.User] = append(out[s.Credit.User], s)
	}
	return out
}
