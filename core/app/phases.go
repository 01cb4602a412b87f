package app

import (
	"fmt"
	"sort"
	"time"

	"github.com/aiperf-go/aiperf/core/config"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/registry"
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

// buildPhase resolves a phase's strategy, arrival pattern and ramp through
// the registry and fills its plan.
func buildPhase(reg *registry.Registry, name string, ps config.PhaseSettings, seed int64, schedule []time.Duration) (*Phase, error) {
	strategy, err := registry.Get[sdk.TimingStrategy](reg, sdk.CategoryTimingStrategy, string(ps.Mode))
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
		RequestRate:            ps.Rate,
		ConcurrencyRamp:        ps.ConcurrencyRamp,
		PrefillConcurrencyRamp: ps.PrefillRamp,
		RequestRateRamp:        ps.RateRamp,
		UserCentricRate:        ps.UserCentricRate,
		NumUsers:               ps.NumUsers,
		Schedule:               schedule,
		RandomSeed:             seed,
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
	if ps.ArrivalPattern != "" {
		arrival, err := registry.Get[sdk.ArrivalPattern](reg, sdk.CategoryArrivalPattern, ps.ArrivalPattern)
		if err != nil {
			return nil, fmt.Errorf("--arrival-pattern: %w", err)
		}
		if err := arrival.Init(sdk.ArrivalOptions{Seed: seed, Smoothness: ps.Smoothness}); err != nil {
			return nil, fmt.Errorf("--arrival-pattern %s: %w", ps.ArrivalPattern, err)
		}
		plan.Arrival = arrival
	}
	if ps.ConcurrencyRamp > 0 || ps.PrefillRamp > 0 || ps.RateRamp > 0 {
		ramp, err := registry.Get[sdk.Ramp](reg, sdk.CategoryRamp, "linear")
		if err != nil {
			return nil, err
		}
		plan.Ramp = ramp
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
