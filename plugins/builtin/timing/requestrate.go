package timing

import (
	"context"
	"math"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// RequestRate is the open-loop strategy's plugin name (AIPerf's
// timing_strategy name): credits go out at the configured rate on an
// absolute schedule whose gaps come from the arrival pattern, whatever the
// responses do; plan.Concurrency, when set, is a ceiling the schedule waits
// on.
const RequestRate = "request_rate"

// RequestRateConfig is the request_rate strategy's configuration.
type RequestRateConfig struct {
	// Rate is the target in requests/s (--request-rate).
	Rate float64 `json:"rate"`
	// RampDuration is how many seconds the rate takes to climb to Rate
	// (--request-rate-ramp-duration); 0 = no ramp. The ramp's shape is the
	// plan's (--ramp-type).
	RampDuration float64 `json:"ramp_duration"`
}

// RequestRateStrategy implements sdk.TimingStrategy.
type RequestRateStrategy struct {
	opts []Option
	cfg  RequestRateConfig
}

var (
	_ sdk.TimingStrategy = (*RequestRateStrategy)(nil)
	_ sdk.Configurable   = (*RequestRateStrategy)(nil)
	_ sdk.Validator      = (*RequestRateStrategy)(nil)
)

// NewRequestRate returns the request-rate strategy with no rate set: the
// core fills PluginConfig() before the run. opts tune its pacer.
func NewRequestRate(opts ...Option) *RequestRateStrategy {
	return &RequestRateStrategy{opts: opts}
}

// PluginConfig implements sdk.Configurable.
func (s *RequestRateStrategy) PluginConfig() any { return &s.cfg }

// Validate implements sdk.Validator.
func (s *RequestRateStrategy) Validate() error {
	if r := s.cfg.Rate; !(r > 0) || math.IsInf(r, 0) {
		return errorf(RequestRate, "--request-rate must be a positive number of requests/s (got %v)", r)
	}
	if d := s.cfg.RampDuration; !(d >= 0) || math.IsInf(d, 0) {
		return errorf(RequestRate, "--request-rate-ramp-duration must be a finite number of seconds >= 0 (got %v)", d)
	}
	return nil
}

// Run issues credits at the configured rate until the first stop
// condition, then waits for the credits in flight. Each credit's
// ScheduledNs is its target on the schedule and IssuedNs when it actually
// went out, so waits on a ceiling show as schedule lag.
func (s *RequestRateStrategy) Run(ctx context.Context, plan sdk.PhasePlan, sender sdk.CreditSender) error {
	// Validated again here: a strategy driven without the core's lifecycle
	// (tests, a direct caller) must not pace on a zero or NaN rate.
	if err := s.Validate(); err != nil {
		return err
	}
	if plan.Arrival == nil {
		return errorf(RequestRate, "no arrival pattern in the %q phase plan", plan.Phase)
	}
	ph, err := startPhase(ctx, plan, s.opts)
	if err != nil {
		return errorf(RequestRate, "%w", err)
	}
	sched := newSchedule(s.cfg, plan, ph.StartNs())
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

// schedule turns arrival-pattern gaps into absolute targets, following the
// request-rate ramp while it lasts.
type schedule struct {
	arrival sdk.ArrivalPattern
	rate    float64
	startNs int64
	ramp    *rateRamp // nil: no ramp
}

func newSchedule(cfg RequestRateConfig, plan sdk.PhasePlan, startNs int64) *schedule {
	s := &schedule{arrival: plan.Arrival, rate: cfg.Rate, startNs: startNs}
	if d := rampDuration(cfg.RampDuration); d > 0 {
		s.ramp = &rateRamp{Duration: d, Target: cfg.Rate, Shape: plan.Ramp}
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
	// expected arrivals, then laid over the rising rate (see rateRamp.Advance).
	rate := s.ramp.RateAt(elapsed)
	work := max(0, s.arrival.NextGap(rate)).Seconds() * rate
	return s.startNs + int64(s.ramp.Advance(elapsed, work))
}

// rampDuration converts --request-rate-ramp-duration seconds as the
// configuration always has: not positive is no ramp, and an absurd length
// saturates instead of overflowing.
func rampDuration(seconds float64) time.Duration {
	if !(seconds > 0) {
		return 0
	}
	ns := seconds * float64(time.Second)
	if ns >= math.MaxInt64 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(ns)
}
