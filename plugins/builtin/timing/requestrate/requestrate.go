// Package requestrate is the open-loop timing strategy: credits go out at
// plan.RequestRate on an absolute schedule whose gaps come from the arrival
// pattern, whatever the responses do; plan.Concurrency, when set, is a
// ceiling the schedule waits on.
package requestrate

import (
	"context"
	"fmt"
	"math"

	"github.com/aiperf-go/aiperf/core/timing"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Name is the strategy's plugin name (AIPerf's timing_strategy name).
const Name = "request_rate"

// Strategy implements sdk.TimingStrategy.
type Strategy struct {
	opts []timing.Option
}

var _ sdk.TimingStrategy = (*Strategy)(nil)

// New returns the request-rate strategy; opts tune its pacer.
func New(opts ...timing.Option) *Strategy { return &Strategy{opts: opts} }

// Run issues credits at the plan's rate until the first stop condition,
// then waits for the credits in flight. Each credit's ScheduledNs is its
// target on the schedule and IssuedNs when it actually went out, so waits
// on a ceiling show as schedule lag.
func (s *Strategy) Run(ctx context.Context, plan sdk.PhasePlan, sender sdk.CreditSender) error {
	if !(plan.RequestRate > 0) || math.IsInf(plan.RequestRate, 0) {
		return fmt.Errorf("request rate timing: rate must be a positive number of requests/s (got %v)", plan.RequestRate)
	}
	if plan.Arrival == nil {
		return fmt.Errorf("request rate timing: no arrival pattern in the %q phase plan", plan.Phase)
	}
	ph, err := timing.StartPhase(ctx, plan, s.opts...)
	if err != nil {
		return fmt.Errorf("request rate timing: %w", err)
	}
	sched := newSchedule(plan, ph.StartNs())
	pacer := ph.Pacer()
	next := sched.after(ph.StartNs())
	for ph.Due(next) {
		anchor, err := pacer.Wait(ph.Issuing(), next)
		if err != nil {
			break
		}
		scheduled := next
		// The next target is fixed before issuing, so issuance latency
		// never drifts the schedule.
		next = sched.after(anchor)
		pm, err := ph.Acquire()
		if err != nil {
			break
		}
		ph.Go(sender, pm, sdk.Credit{ScheduledNs: scheduled})
	}
	ph.Finish()
	return nil
}
