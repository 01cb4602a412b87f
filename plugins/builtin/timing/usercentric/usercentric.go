// Package usercentric is the user-centric-rate timing strategy: NumUsers
// virtual users share UserCentricRate requests/s, each sending one
// session every NumUsers/UserCentricRate seconds and never two at once.
package usercentric

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/aiperf-go/aiperf/core/clock"
	"github.com/aiperf-go/aiperf/core/timing"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Name is the strategy's plugin name (AIPerf's timing_strategy name).
const Name = "user_centric_rate"

// Strategy implements sdk.TimingStrategy.
type Strategy struct {
	opts []timing.Option
}

var _ sdk.TimingStrategy = (*Strategy)(nil)

// New returns the user-centric strategy.
func New(opts ...timing.Option) *Strategy { return &Strategy{opts: opts} }

// Run starts the users staggered 1/rate apart, so their first sends spread
// evenly over one per-user gap and the aggregate rate is steady from the
// start. Each user then sends at baseline+gap; when its previous session is
// still running at that time, the next goes out as soon as it completes and
// the user's baseline resets to that moment. Runs until the first stop
// condition, then waits for the sessions in flight.
func (s *Strategy) Run(ctx context.Context, plan sdk.PhasePlan, sender sdk.CreditSender) error {
	if plan.NumUsers < 1 {
		return fmt.Errorf("user-centric timing: number of users must be >= 1 (got %d)", plan.NumUsers)
	}
	if !(plan.UserCentricRate > 0) || math.IsInf(plan.UserCentricRate, 0) {
		return fmt.Errorf("user-centric timing: rate must be a positive number of requests/s (got %v)", plan.UserCentricRate)
	}
	ph, err := timing.StartPhase(ctx, plan, s.opts...)
	if err != nil {
		return fmt.Errorf("user-centric timing: %w", err)
	}
	gapNs := int64(float64(plan.NumUsers) / plan.UserCentricRate * 1e9)
	staggerNs := 1e9 / plan.UserCentricRate
	var wg sync.WaitGroup
	for u := 1; u <= plan.NumUsers; u++ {
		first := ph.StartNs() + int64(float64(u-1)*staggerNs)
		if !ph.Due(first) {
			break // later users would start after the phase ends too
		}
		// Options were validated by StartPhase; each user sleeps on its own.
		pacer, _ := timing.NewPacer(s.opts...)
		wg.Go(func() { runUser(ph, pacer, sender, u, first, gapNs) })
	}
	wg.Wait()
	ph.Finish()
	return nil
}

// runUser is one virtual user's loop.
func runUser(ph *timing.Phase, pacer *timing.Pacer, sender sdk.CreditSender, user int, next, gapNs int64) {
	for ph.Due(next) {
		if pacer.SleepUntil(ph.Issuing(), next) != nil {
			return
		}
		pm, err := ph.Acquire()
		if err != nil {
			return
		}
		ph.Send(sender, pm, sdk.Credit{ScheduledNs: next, User: user})
		// On time: keep the grid. Late: go now and reset the baseline.
		next = max(clock.Now(), next+gapNs)
	}
}
