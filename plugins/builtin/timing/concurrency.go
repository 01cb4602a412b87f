package timing

import (
	"context"
	"sync"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Concurrency is the closed-loop strategy's plugin name: N virtual users,
// each sending its next request as soon as its previous one completed.
const Concurrency = "concurrency"

// ConcurrencyStrategy implements sdk.TimingStrategy. Its settings are the
// plan's ceilings (Concurrency, PrefillConcurrency and their ramps), shared
// with every strategy, so it has no configuration of its own.
type ConcurrencyStrategy struct {
	opts []Option
}

var _ sdk.TimingStrategy = (*ConcurrencyStrategy)(nil)

// NewConcurrency returns the closed-loop strategy; opts tune its pacing.
func NewConcurrency(opts ...Option) *ConcurrencyStrategy {
	return &ConcurrencyStrategy{opts: opts}
}

// Run keeps plan.Concurrency sessions in flight (ramped from 1 when
// plan.ConcurrencyRamp is set, and at most plan.PrefillConcurrency before
// their first token) until the first stop condition, then waits for the
// sessions in flight.
func (s *ConcurrencyStrategy) Run(ctx context.Context, plan sdk.PhasePlan, sender sdk.CreditSender) error {
	if plan.Concurrency < 1 && plan.PrefillConcurrency < 1 {
		return errorf(Concurrency, "concurrency must be >= 1 (got %d)", plan.Concurrency)
	}
	ph, err := startPhase(ctx, plan, s.opts)
	if err != nil {
		return errorf(Concurrency, "%w", err)
	}
	if plan.Concurrency < 1 {
		// Only --prefill-concurrency caps this burst: issue as fast as the
		// prefill limiter admits, each session on its own goroutine.
		for {
			pm, err := ph.Acquire()
			if err != nil {
				break
			}
			ph.Go(sender, pm, sdk.Credit{})
		}
		ph.Finish()
		return nil
	}
	users := plan.Concurrency
	if plan.RequestCount > 0 && plan.RequestCount < users {
		users = plan.RequestCount // no idle goroutines for tiny runs
	}
	// The phase hands out credit indices and ceiling slots, so the count
	// is exact however users interleave, and a ramp gates them all. Users
	// start lazily: a goroutine is born only once it holds a credit, so a
	// huge --concurrency costs memory in proportion to the requests really
	// in flight, and the start-up loop stops with the phase (duration,
	// count or cancellation) instead of spawning every slot up front.
	var wg sync.WaitGroup
	for started := 0; started < users; started++ {
		pm, err := ph.Acquire()
		if err != nil {
			break
		}
		wg.Go(func() {
			for next := pm; ; {
				ph.Send(sender, next, sdk.Credit{})
				var err error
				if next, err = ph.Acquire(); err != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	ph.Finish()
	return nil
}
