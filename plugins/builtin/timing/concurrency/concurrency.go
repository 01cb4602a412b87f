// Package concurrency is the closed-loop timing strategy: N virtual users,
// each sending its next request as soon as its previous one completed.
package concurrency

import (
	"context"
	"fmt"
	"sync"

	"github.com/aiperf-go/aiperf/core/timing"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Name is the strategy's plugin name.
const Name = "concurrency"

// Strategy implements sdk.TimingStrategy.
type Strategy struct {
	opts []timing.Option
}

var _ sdk.TimingStrategy = (*Strategy)(nil)

// New returns the closed-loop strategy.
func New(opts ...timing.Option) *Strategy { return &Strategy{opts: opts} }

// Run keeps plan.Concurrency sessions in flight (ramped from 1 when
// plan.ConcurrencyRamp is set, and at most plan.PrefillConcurrency before
// their first token) until the first stop condition, then waits for the
// sessions in flight.
func (s *Strategy) Run(ctx context.Context, plan sdk.PhasePlan, sender sdk.CreditSender) error {
	if plan.Concurrency < 1 && plan.PrefillConcurrency < 1 {
		return fmt.Errorf("concurrency timing: concurrency must be >= 1 (got %d)", plan.Concurrency)
	}
	ph, err := timing.StartPhase(ctx, plan, s.opts...)
	if err != nil {
		return fmt.Errorf("concurrency timing: %w", err)
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
	// is exact however users interleave, and a ramp gates them all.
	var wg sync.WaitGroup
	for range users {
		wg.Go(func() {
			for {
				pm, err := ph.Acquire()
				if err != nil {
					return
				}
				ph.Send(sender, pm, sdk.Credit{})
			}
		})
	}
	wg.Wait()
	ph.Finish()
	return nil
}
