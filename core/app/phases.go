package app

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/aiperf-go/aiperf/core/config"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Phase is one phase to run: its timing strategy and the plan handed to it.
type Phase struct {
	Strategy sdk.TimingStrategy
	Plan     sdk.PhasePlan
	// Budget caps the phase's requests across multi-turn sessions (0 = none).
	Budget int
	// TurnGap spaces each user's turns in user-centric mode (num_users/rate).
	TurnGap time.Duration
}

// buildPhase builds a phase's timing strategy, arrival pattern and ramp
// through the host (selectPhase names them and gives them the settings
// AIPerf's flags set) and fills the plan every strategy shares.
func buildPhase(ctx context.Context, h *Host, name string, ps config.PhaseSettings, rampType string, schedule []time.Duration) (*Phase, error) {
	sel := selectPhase(ps)
	strategy, err := Use(ctx, h, sdk.TimingStrategies, sel.Timing, sel.TimingSettings, name)
	if err != nil {
		return nil, fmt.Errorf("%s phase: %w", name, err)
	}
	plan := sdk.PhasePlan{
		Phase:                  name,
		RequestCount:           ps.Count,
		Duration:               ps.Duration,
		GracePeriod:            ps.Grace,
		Concurrency:            ps.Concurrency,
		PrefillConcurrency:     ps.PrefillConcurrency,
		ConcurrencyRamp:        ps.ConcurrencyRamp,
		PrefillConcurrencyRamp: ps.PrefillRamp,
		Schedule:               schedule,
	}
	// Credits start sessions. A request count counts requests (turns), so it
	// also caps requests across multi-turn sessions; sessions, when given,
	// are the credits.
	budget := ps.Count
	switch {
	case schedule != nil:
		plan.RequestCount, budget = len(schedule), 0 // one credit per trace entry in the window
	case ps.Sessions > 0:
		plan.RequestCount = ps.Sessions
	}
	if sel.Arrival != "" {
		if plan.Arrival, err = Use(ctx, h, sdk.ArrivalPatterns, sel.Arrival, sel.ArrivalSettings, name); err != nil {
			return nil, fmt.Errorf("--arrival-pattern: %w", err)
		}
	}
	if ps.ConcurrencyRamp > 0 || ps.PrefillRamp > 0 || ps.RateRamp > 0 {
		if plan.Ramp, err = Use(ctx, h, sdk.Ramps, rampType, nil, name); err != nil {
			return nil, fmt.Errorf("--ramp-type: %w", err)
		}
	}
	ph := &Phase{Strategy: strategy, Plan: plan, Budget: budget}
	if ps.UserCentricRate > 0 && ps.NumUsers > 0 {
		ph.TurnGap = time.Duration(float64(ps.NumUsers) / ps.UserCentricRate * float64(time.Second))
	}
	return ph, nil
}

// fixedSchedule keeps the conversations inside the trace window, in time
// order, and returns their send offsets relative to the phase start.
func fixedSchedule(convs []sdk.Conversation, o config.ScheduleWindow) ([]sdk.Conversation, []time.Duration, error) {
	kept := make([]sdk.Conversation, 0, len(convs))
	for _, c := range convs {
		if !c.IsTrace() {
			return nil, nil, fmt.Errorf("--fixed-schedule: conversation %s has no timestamp", c.SessionID)
		}
		ts := msToDuration(*c.Turns[0].TimestampMs)
		if (o.HasStart && ts < o.StartOffset) || (o.HasEnd && ts > o.EndOffset) {
			continue
		}
		kept = append(kept, c)
	}
	if len(kept) == 0 {
		return nil, nil, fmt.Errorf("--fixed-schedule: no trace entry inside the start/end offsets")
	}
	sort.SliceStable(kept, func(i, j int) bool { return *kept[i].Turns[0].TimestampMs < *kept[j].Turns[0].TimestampMs })
	// Offsets count from the first kept timestamp with auto-offset, from the
	// start offset when one is given, else from trace time zero.
	var base time.Duration
	switch {
	case o.AutoOffset:
		base = msToDuration(*kept[0].Turns[0].TimestampMs)
	case o.HasStart:
		base = o.StartOffset
	}
	schedule := make([]time.Duration, len(kept))
	for i, c := range kept {
		schedule[i] = msToDuration(*c.Turns[0].TimestampMs) - base
	}
	return kept, schedule, nil
}

func msToDuration(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }
