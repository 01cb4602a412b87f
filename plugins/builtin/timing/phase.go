package timing

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aiperf-go/aiperf/core/clock"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// errStopped is returned by Acquire once the phase may issue no more
// credits: its count was reached, its duration ended or its context was
// cancelled. Strategies treat it as the end of issuing, never as a failure.
var errStopped = errors.New("phase stopped issuing credits")

// phase enforces the stop conditions of one phase and tracks its sends:
//   - count: at most plan.RequestCount credits (0 = unbounded);
//   - duration: no credit is issued at or after start+Duration;
//   - grace: sends still running at start+Duration+GracePeriod are
//     cancelled with cause sdk.ErrGraceExpired (negative grace = never);
//   - ctx cancellation stops issuing at once and cancels every send.
//
// The first condition reached wins. It also owns the phase's concurrency
// ceilings (session and prefill limiters, ramped when the plan says so) and
// its pacer.
type phase struct {
	plan    sdk.PhasePlan
	startNs int64
	endNs   int64 // math.MaxInt64 without a duration

	// open ends when no credit may go out at all (duration over, ctx
	// cancelled); issuing also ends once the count is used up, which
	// wakes waiters that have no credit to issue while a credit already
	// claimed may still wait (on open) for its prefill slot.
	open        context.Context
	closeOpen   context.CancelFunc
	issuing     context.Context
	stopIssuing context.CancelFunc
	requests    context.Context
	cancelReqs  context.CancelCauseFunc
	stopRamps   context.CancelFunc

	claimed atomic.Int64
	session *limiter // nil: no ceiling
	prefill *limiter // nil: no ceiling
	pacer   *pacer
	opts    options // for the extra pacers of concurrent issuers

	inflight sync.WaitGroup
	ramps    sync.WaitGroup
	timers   []*time.Timer
}

// startPhase validates plan's stop conditions and ceilings and starts the
// phase clock, its duration and grace timers and its concurrency ramps.
// Call Finish when the strategy has stopped issuing. Its errors name the
// phase; the strategy adds its own name.
func startPhase(ctx context.Context, plan sdk.PhasePlan, opts []Option) (*phase, error) {
	if err := validatePlan(plan); err != nil {
		return nil, fmt.Errorf("phase %q: %w", plan.Phase, err)
	}
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	p := &phase{plan: plan, startNs: clock.Now(), endNs: math.MaxInt64, pacer: newPacer(o), opts: o}
	p.open, p.closeOpen = context.WithCancel(ctx)
	p.issuing, p.stopIssuing = context.WithCancel(p.open)
	p.requests, p.cancelReqs = context.WithCancelCause(ctx)
	if plan.Duration > 0 {
		p.endNs = p.startNs + int64(plan.Duration)
		p.timers = append(p.timers, time.AfterFunc(plan.Duration, p.closeOpen))
		if grace := plan.Duration + plan.GracePeriod; plan.GracePeriod >= 0 && grace > 0 {
			p.timers = append(p.timers, time.AfterFunc(grace, func() { p.cancelReqs(sdk.ErrGraceExpired) }))
		}
	}
	// Ramps follow the phase while requests can still start (p.open), not
	// just while credits are issued: credits claimed before the count was
	// reached may still wait for a slot, and must see the ramped ceiling.
	var rampCtx context.Context
	rampCtx, p.stopRamps = context.WithCancel(p.open)
	p.session = p.ceiling(rampCtx, plan.Concurrency, plan.ConcurrencyRamp)
	p.prefill = p.ceiling(rampCtx, plan.PrefillConcurrency, plan.PrefillConcurrencyRamp)
	return p, nil
}

func validatePlan(plan sdk.PhasePlan) error {
	checks := []struct {
		bad  bool
		what string
		val  any
	}{
		{plan.RequestCount < 0, "request count", plan.RequestCount},
		{plan.Duration < 0, "duration", plan.Duration},
		{plan.Concurrency < 0, "concurrency", plan.Concurrency},
		{plan.PrefillConcurrency < 0, "prefill concurrency", plan.PrefillConcurrency},
		{plan.ConcurrencyRamp < 0, "concurrency ramp duration", plan.ConcurrencyRamp},
		{plan.PrefillConcurrencyRamp < 0, "prefill concurrency ramp duration", plan.PrefillConcurrencyRamp},
	}
	for _, c := range checks {
		if c.bad {
			return fmt.Errorf("%s must be >= 0 (got %v)", c.what, c.val)
		}
	}
	if plan.Concurrency > 0 && plan.PrefillConcurrency > plan.Concurrency {
		return fmt.Errorf("prefill concurrency %d exceeds concurrency %d", plan.PrefillConcurrency, plan.Concurrency)
	}
	return nil
}

// ceiling builds a limiter for limit (nil when 0 = unlimited) and, with a
// ramp, starts it at 1 before any credit can slip through at full limit.
func (p *phase) ceiling(ctx context.Context, limit int, ramp time.Duration) *limiter {
	if limit <= 0 {
		return nil
	}
	if ramp <= 0 || limit == 1 {
		return newLimiter(limit)
	}
	lim := newLimiter(1)
	p.ramps.Go(func() { runStepRamp(ctx, lim, p.startNs, ramp, p.plan.Ramp, limit) })
	return lim
}

// StartNs is the phase start on the perf clock.
func (p *phase) StartNs() int64 { return p.startNs }

// EndNs is start+Duration, or math.MaxInt64 without a duration.
func (p *phase) EndNs() int64 { return p.endNs }

// Pacer returns the phase's pacer (for the issuing goroutine only).
func (p *phase) Pacer() *pacer { return p.pacer }

// NewPacer returns another pacer with the phase's options, for a strategy
// that issues from several goroutines (a pacer serves one at a time).
func (p *phase) NewPacer() *pacer { return newPacer(p.opts) }

// Issuing is done once no credit may be issued any more; pass it to waits
// that precede an issue (pacing, ceilings).
func (p *phase) Issuing() context.Context { return p.issuing }

// Session and Prefill expose the ceilings (nil = none), e.g. for tests.
func (p *phase) Session() *limiter { return p.session }

// Prefill returns the prefill ceiling (nil = none).
func (p *phase) Prefill() *limiter { return p.prefill }

// Due reports whether a credit scheduled at targetNs may still be issued:
// the phase has not stopped, the count is not used up, and targetNs falls
// before the duration's end.
func (p *phase) Due(targetNs int64) bool {
	if targetNs >= p.endNs || p.issuing.Err() != nil {
		return false
	}
	n := p.plan.RequestCount
	return n == 0 || p.claimed.Load() < int64(n)
}

// permit is the right to issue one credit: its index and the ceiling
// slots it holds. Hand it to Send or Go exactly once.
type permit struct {
	index int
}

// Acquire waits for a session slot, claims the next credit index and waits
// for a prefill slot. It returns errStopped (holding nothing) when the
// phase stops first; reaching the count stops the phase's issuing.
func (p *phase) Acquire() (permit, error) {
	// A free slot is granted without looking at the context, so check it
	// first: a cancelled phase must not hand out another credit.
	if p.issuing.Err() != nil {
		return permit{}, errStopped
	}
	if err := p.session.Acquire(p.issuing); err != nil {
		return permit{}, errStopped
	}
	i := p.claimed.Add(1) - 1
	if n := p.plan.RequestCount; (n > 0 && i >= int64(n)) || clock.Now() >= p.endNs {
		p.session.Release()
		p.stopIssuing() // wakes every other waiter: nothing more to issue
		return permit{}, errStopped
	}
	if err := p.prefill.Acquire(p.open); err != nil {
		p.session.Release()
		return permit{}, errStopped
	}
	return permit{index: int(i)}, nil
}

// prefillSlot releases a prefill slot once, whether at the first token or
// when the send ends without one.
type prefillSlot struct {
	lim  *limiter
	done atomic.Bool
}

func (s *prefillSlot) release() {
	if s.done.CompareAndSwap(false, true) {
		s.lim.Release()
	}
}

// Send issues the permitted credit and blocks until the sender returns.
// It fills Index, Phase, IssuedNs and OnFirstToken (ScheduledNs and User
// are the caller's), passes the phase's request context (cancelled with
// sdk.ErrGraceExpired when the grace period ends) and frees the slots.
func (p *phase) Send(sender sdk.CreditSender, pm permit, c sdk.Credit) {
	p.inflight.Add(1)
	p.send(sender, p.stamp(pm, c))
}

// Go is Send on a new goroutine, for open-loop strategies. IssuedNs is
// stamped before the goroutine starts, so it follows the schedule's order.
func (p *phase) Go(sender sdk.CreditSender, pm permit, c sdk.Credit) {
	p.inflight.Add(1)
	go p.send(sender, p.stamp(pm, c))
}

func (p *phase) stamp(pm permit, c sdk.Credit) sdk.Credit {
	c.Index = pm.index
	c.Phase = p.plan.Phase
	c.IssuedNs = clock.Now()
	return c
}

func (p *phase) send(sender sdk.CreditSender, c sdk.Credit) {
	defer p.inflight.Done()
	var slot *prefillSlot
	if p.prefill != nil {
		slot = &prefillSlot{lim: p.prefill}
		c.OnFirstToken = slot.release
	}
	sender.Send(p.requests, c)
	if slot != nil {
		slot.release()
	}
	p.session.Release()
}

// Finish waits for every send to return, then stops the phase's timers
// and ramps. Call it once, after the strategy stopped issuing.
func (p *phase) Finish() {
	p.inflight.Wait()
	for _, t := range p.timers {
		t.Stop()
	}
	p.stopRamps()
	p.ramps.Wait()
	p.closeOpen()
	p.cancelReqs(nil)
}

// errorf names the strategy the way the registry names plugins
// (timing_strategy.<name>), so an error points at the plugin to fix, not at
// a Go type.
func errorf(strategy, format string, args ...any) error {
	return fmt.Errorf("timing_strategy."+strategy+": "+format, args...)
}
