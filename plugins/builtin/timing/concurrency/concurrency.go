// Package concurrency is the closed-loop timing strategy: N virtual users,
// each sending its next request as soon as its previous one completed.
package concurrency

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/aiperf-go/aiperf/core/clock"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Strategy implements sdk.TimingStrategy.
type Strategy struct{}

var _ sdk.TimingStrategy = (*Strategy)(nil)

// New returns the closed-loop strategy.
func New() *Strategy { return &Strategy{} }

// Run keeps plan.Concurrency requests in flight until plan.RequestCount
// credits were issued or ctx is cancelled, then waits for the in-flight ones.
func (s *Strategy) Run(ctx context.Context, plan sdk.PhasePlan, sender sdk.CreditSender) error {
	if plan.Concurrency < 1 {
		return fmt.Errorf("concurrency timing: concurrency must be >= 1 (got %d)", plan.Concurrency)
	}
	if plan.RequestCount < 0 {
		return fmt.Errorf("concurrency timing: request count must be >= 0 (got %d)", plan.RequestCount)
	}
	users := plan.Concurrency
	if plan.RequestCount > 0 && plan.RequestCount < users {
		users = plan.RequestCount // no idle goroutines for tiny runs
	}
	// One shared counter hands out credit indices, so the count is exact no
	// matter which user finishes first.
	var next atomic.Int64
	var wg sync.WaitGroup
	for range users {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if plan.RequestCount > 0 && i >= plan.RequestCount {
					return
				}
				sender.Send(ctx, sdk.Credit{Index: i, Phase: plan.Phase, IssuedNs: clock.Now()})
			}
		})
	}
	wg.Wait()
	return nil
}
