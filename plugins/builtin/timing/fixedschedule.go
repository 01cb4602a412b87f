package timing

import (
	"context"
	"fmt"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// FixedSchedule is the trace-replay strategy's plugin name (AIPerf's
// timing_strategy name): each credit fires at its offset from the phase
// start, whatever the responses do.
const FixedSchedule = "fixed_schedule"

// FixedScheduleStrategy implements sdk.TimingStrategy. Its offsets are data
// (plan.Schedule, from the dataset), not configuration.
type FixedScheduleStrategy struct {
	opts []Option
}

var _ sdk.TimingStrategy = (*FixedScheduleStrategy)(nil)

// NewFixedSchedule returns the fixed-schedule strategy; opts tune its
// pacing.
func NewFixedSchedule(opts ...Option) *FixedScheduleStrategy {
	return &FixedScheduleStrategy{opts: opts}
}

// Run fires credit i at phase start + plan.Schedule[i] (ScheduledNs is that
// instant) until the schedule, the request count or the duration runs out,
// then waits for the credits in flight. A late credit fires at once and
// keeps its trace time as ScheduledNs, so the lag stays visible; the
// schedule never re-anchors, since every entry has its own absolute time.
func (s *FixedScheduleStrategy) Run(ctx context.Context, plan sdk.PhasePlan, sender sdk.CreditSender) error {
	if err := validateSchedule(plan.Schedule); err != nil {
		return errorf(FixedSchedule, "%q phase: %w", plan.Phase, err)
	}
	if plan.RequestCount == 0 || plan.RequestCount > len(plan.Schedule) {
		plan.RequestCount = len(plan.Schedule)
	}
	ph, err := startPhase(ctx, plan, s.opts)
	if err != nil {
		return errorf(FixedSchedule, "%w", err)
	}
	pacer := ph.Pacer()
	for _, off := range plan.Schedule {
		target := ph.StartNs() + int64(off)
		if !ph.Due(target) || pacer.SleepUntil(ph.Issuing(), target) != nil {
			break
		}
		pm, err := ph.Acquire()
		if err != nil {
			break
		}
		ph.Go(sender, pm, sdk.Credit{ScheduledNs: target})
	}
	ph.Finish()
	return nil
}

func validateSchedule(offsets []time.Duration) error {
	if len(offsets) == 0 {
		return fmt.Errorf("the schedule is empty")
	}
	for i, off := range offsets {
		if off < 0 {
			return fmt.Errorf("entry %d has a negative offset %v", i, off)
		}
		if i > 0 && off < offsets[i-1] {
			return fmt.Errorf("entry %d (offset %v) comes before entry %d (offset %v): offsets must be in order", i, off, i-1, offsets[i-1])
		}
	}
	return nil
}
