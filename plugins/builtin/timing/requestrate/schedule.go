package requestrate

import (
	"time"

	"github.com/aiperf-go/aiperf/core/timing"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// schedule turns arrival-pattern gaps into absolute targets, following the
// request-rate ramp while it lasts.
type schedule struct {
	arrival sdk.ArrivalPattern
	rate    float64
	startNs int64
	ramp    *timing.RateRamp // nil: no ramp
}

func newSchedule(plan sdk.PhasePlan, startNs int64) *schedule {
	s := &schedule{arrival: plan.Arrival, rate: plan.RequestRate, startNs: startNs}
	if plan.RequestRateRamp > 0 {
		s.ramp = &timing.RateRamp{Duration: plan.RequestRateRamp, Target: plan.RequestRate, Shape: plan.Ramp}
	}
	return s
}

// after returns the target that follows one at fromNs.
func (s *schedule) after(fromNs int64) int64 {
	elapsed := time.Duration(fromNs - s.startNs)
	if s.ramp == nil || elapsed >= s.ramp.Duration {
		return fromNs + int64(max(0, s.arrival.NextGap(s.rate)))
	}
	// During the ramp the gap is drawn at the current rate and measured in
	// expected arrivals, then laid over the rising rate (see RateRamp.Advance).
	rate := s.ramp.RateAt(elapsed)
	work := max(0, s.arrival.NextGap(rate)).Seconds() * rate
	return s.startNs + int64(s.ramp.Advance(elapsed, work))
}
