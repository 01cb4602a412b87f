package config

import (
	"math"
	"time"
)

// TimingMode is how a phase issues its requests. The values double as the
// timing_strategy plugin names.
type TimingMode string

// Timing modes, in AIPerf's priority order (docs/METRICS.md §9, Load generation).
const (
	ModeFixedSchedule TimingMode = "fixed_schedule"
	ModeUserCentric   TimingMode = "user_centric_rate"
	ModeRequestRate   TimingMode = "request_rate"
	ModeConcurrency   TimingMode = "concurrency"
)

// Arrival patterns (--arrival-pattern); the values are the arrival_pattern
// plugin names.
const (
	ArrivalConcurrencyBurst = "concurrency_burst"
	ArrivalConstant         = "constant"
	ArrivalGamma            = "gamma"
	ArrivalPoisson          = "poisson"
)

// Custom dataset types (--custom-dataset-type); the values are the
// custom_dataset_loader plugin names.
const (
	DatasetMooncakeTrace = "mooncake_trace"
	DatasetBailianTrace  = "bailian_trace"
	DatasetBurstGPTTrace = "burst_gpt_trace"
	DatasetMultiTurn     = "multi_turn"
	DatasetRandomPool    = "random_pool"
	DatasetSingleTurn    = "single_turn"
)

// InfiniteGrace is the Grace of a phase that waits for every in-flight
// response (sdk.PhasePlan.GracePeriod: negative means forever).
const InfiniteGrace time.Duration = -1

// defaultGracePeriod is AIPerf's --benchmark-grace-period default.
const defaultGracePeriod = 30 * time.Second

// PhaseSettings is one phase (warmup or profiling) with every default and
// inherited value applied. Zero values mean "none": no count limit, no
// duration, no ceiling, no ramp.
type PhaseSettings struct {
	Mode TimingMode
	// Stop conditions; the first one reached wins. Count is in requests,
	// Sessions in conversations.
	Count    int
	Sessions int
	Duration time.Duration
	// Grace is how long in-flight requests may finish after Duration;
	// InfiniteGrace (negative) waits for all of them.
	Grace              time.Duration
	Concurrency        int
	PrefillConcurrency int
	// Rate is the request-rate target in requests/s (request_rate mode).
	Rate float64
	// ArrivalPattern is the arrival_pattern plugin for Rate; it is
	// concurrency_burst in concurrency mode and empty in fixed_schedule
	// and user_centric_rate modes.
	ArrivalPattern string
	// Smoothness is the gamma shape; 0 unless ArrivalPattern is gamma and
	// --arrival-smoothness was given (0 means 1 to the plugin).
	Smoothness      float64
	ConcurrencyRamp time.Duration
	PrefillRamp     time.Duration
	RateRamp        time.Duration
	// UserCentricRate (total requests/s) and NumUsers drive user_centric_rate
	// mode.
	UserCentricRate float64
	NumUsers        int
}

// FixedSchedule reports whether the run replays trace timestamps:
// --fixed-schedule, or (unless --no-fixed-schedule or --fixed-schedule=false)
// a mooncake_trace --input-file whose first record has a timestamp.
func (c *RunConfig) FixedSchedule() bool {
	if c.FixedScheduleFlag != nil {
		return *c.FixedScheduleFlag
	}
	return !c.NoFixedSchedule && traceTypes[c.CustomDatasetType] && c.trace.timestamps
}

// Mode is the profiling phase's timing mode: fixed schedule, then
// user-centric rate, then request rate, then concurrency.
func (c *RunConfig) Mode() TimingMode {
	switch {
	case c.FixedSchedule():
		return ModeFixedSchedule
	case c.UserCentricRate != nil:
		return ModeUserCentric
	case c.RequestRate != nil:
		return ModeRequestRate
	}
	return ModeConcurrency
}

// configuredArrivalPattern is --arrival-pattern, else gamma when only
// --arrival-smoothness was given (AIPerf's auto-promotion), else poisson.
func (c *RunConfig) configuredArrivalPattern() string {
	switch {
	case c.ArrivalPattern != "":
		return c.ArrivalPattern
	case c.ArrivalSmoothness != nil:
		return ArrivalGamma
	}
	return ArrivalPoisson
}

// Profiling returns the profiling phase.
func (c *RunConfig) Profiling() PhaseSettings {
	mode := c.Mode()
	p := PhaseSettings{
		Mode:            mode,
		Count:           c.EffectiveRequestCount(),
		Sessions:        c.EffectiveNumSessions(),
		Duration:        seconds(c.BenchmarkDuration),
		Grace:           c.profilingGrace(),
		Concurrency:     c.EffectiveConcurrency(),
		ConcurrencyRamp: seconds(c.ConcurrencyRampDuration),
		PrefillRamp:     seconds(c.PrefillConcurrencyRampDuration),
	}
	if c.PrefillConcurrency != nil {
		p.PrefillConcurrency = *c.PrefillConcurrency
	}
	switch mode {
	case ModeRequestRate:
		p.Rate = *c.RequestRate
		p.ArrivalPattern = c.configuredArrivalPattern()
		p.RateRamp = seconds(c.RequestRateRampDuration)
	case ModeConcurrency:
		p.ArrivalPattern = ArrivalConcurrencyBurst
	case ModeUserCentric:
		p.UserCentricRate = *c.UserCentricRate
		if c.NumUsers != nil {
			p.NumUsers = *c.NumUsers
		}
	}
	p.Smoothness = c.smoothnessFor(p.ArrivalPattern)
	return p
}

// profilingGrace is --benchmark-grace-period, else infinite in user-centric
// mode (AIPerf follows LMBenchmark there) and 30 s otherwise.
func (c *RunConfig) profilingGrace() time.Duration {
	if c.BenchmarkGracePeriod != nil {
		return grace(*c.BenchmarkGracePeriod)
	}
	if c.Mode() == ModeUserCentric {
		return InfiniteGrace
	}
	return defaultGracePeriod
}

// HasWarmup reports whether a warmup trigger (--warmup-request-count,
// --warmup-duration or --num-warmup-sessions) is set; the other --warmup-*
// flags alone never start a warmup phase.
func (c *RunConfig) HasWarmup() bool {
	return c.WarmupRequestCount != nil || c.WarmupDuration != nil || c.NumWarmupSessions != nil
}

// Warmup returns the warmup phase and whether there is one. Every unset
// warmup value is inherited from the profiling flags (rate, arrival pattern,
// smoothness, concurrency, prefill concurrency, ramps). Warmup always runs
// in request-rate or concurrency mode, never fixed schedule or user-centric;
// without any rate it is a concurrency burst (concurrency 1 when no
// concurrency is configured at all). Its grace defaults to infinite.
func (c *RunConfig) Warmup() (PhaseSettings, bool) {
	if !c.HasWarmup() {
		return PhaseSettings{}, false
	}
	w := PhaseSettings{
		Duration:        seconds(c.WarmupDuration),
		Grace:           InfiniteGrace,
		ConcurrencyRamp: seconds(firstSet(c.WarmupConcurrencyRampDuration, c.ConcurrencyRampDuration)),
		PrefillRamp:     seconds(firstSet(c.WarmupPrefillConcurrencyRampDuration, c.PrefillConcurrencyRampDuration)),
	}
	if c.WarmupRequestCount != nil {
		w.Count = *c.WarmupRequestCount
	}
	if c.NumWarmupSessions != nil {
		w.Sessions = *c.NumWarmupSessions
	}
	if c.WarmupGracePeriod != nil {
		w.Grace = grace(*c.WarmupGracePeriod)
	}
	if v := firstSet(c.WarmupConcurrency, c.Concurrency); v != nil {
		w.Concurrency = *v
	}
	if v := firstSet(c.WarmupPrefillConcurrency, c.PrefillConcurrency); v != nil {
		w.PrefillConcurrency = *v
	}
	if rate := firstSet(c.WarmupRequestRate, c.RequestRate); rate != nil {
		w.Mode = ModeRequestRate
		w.Rate = *rate
		// The user's pattern, not the mode-resolved one: a warmup rate in an
		// otherwise closed-loop run must not become a zero-gap burst.
		w.ArrivalPattern = c.WarmupArrivalPattern
		if w.ArrivalPattern == "" {
			w.ArrivalPattern = c.configuredArrivalPattern()
		}
		w.RateRamp = seconds(firstSet(c.WarmupRequestRateRampDuration, c.RequestRateRampDuration))
	} else {
		w.Mode = ModeConcurrency
		w.ArrivalPattern = ArrivalConcurrencyBurst
		if w.Concurrency == 0 && w.PrefillConcurrency == 0 {
			w.Concurrency = defaultConcurrency
		}
	}
	w.Smoothness = c.smoothnessFor(w.ArrivalPattern)
	return w, true
}

func (c *RunConfig) smoothnessFor(pattern string) float64 {
	if pattern == ArrivalGamma && c.ArrivalSmoothness != nil {
		return *c.ArrivalSmoothness
	}
	return 0
}

// Cancellation is the request cancellation policy (profiling phase only).
type Cancellation struct {
	// Rate is the percentage (0, 100] of requests to cancel; 0 = none.
	Rate float64
	// Delay is measured from when the request was fully sent; 0 cancels
	// right after sending.
	Delay time.Duration
}

// RequestCancellation returns --request-cancellation-rate/-delay.
func (c *RunConfig) RequestCancellation() Cancellation {
	var out Cancellation
	if c.RequestCancellationRate != nil {
		out.Rate = *c.RequestCancellationRate
	}
	out.Delay = seconds(c.RequestCancellationDelay)
	return out
}

// ScheduleWindow is the fixed-schedule replay window. Offsets are trace
// timestamps (ms in the file); Has* say whether each bound was given.
type ScheduleWindow struct {
	// AutoOffset shifts the trace so its first timestamp is time zero.
	AutoOffset  bool
	HasStart    bool
	StartOffset time.Duration
	HasEnd      bool
	EndOffset   time.Duration
}

// FixedScheduleWindow returns the trace window. Auto offset is
// --fixed-schedule-auto-offset, defaulting to true when only
// --fixed-schedule-end-offset is given (docs/METRICS.md §9, Load generation).
func (c *RunConfig) FixedScheduleWindow() ScheduleWindow {
	w := ScheduleWindow{}
	if c.FixedScheduleStartOffset != nil {
		w.HasStart, w.StartOffset = true, time.Duration(*c.FixedScheduleStartOffset)*time.Millisecond
	}
	if c.FixedScheduleEndOffset != nil {
		w.HasEnd, w.EndOffset = true, time.Duration(*c.FixedScheduleEndOffset)*time.Millisecond
	}
	if c.FixedScheduleAutoOffset != nil {
		w.AutoOffset = *c.FixedScheduleAutoOffset
	} else {
		w.AutoOffset = w.HasEnd && !w.HasStart
	}
	return w
}

// firstSet returns a when set, else b (warmup inheritance).
func firstSet[T any](a, b *T) *T {
	if a != nil {
		return a
	}
	return b
}

// seconds converts an optional seconds value; nil, negative or NaN give 0
// (Validate rejects those), and values beyond time.Duration's range
// saturate.
func seconds(s *float64) time.Duration {
	if s == nil || !(*s > 0) {
		return 0
	}
	ns := *s * float64(time.Second)
	if ns >= math.MaxInt64 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(ns)
}

// grace converts a grace period; +Inf (or one too long to represent)
// becomes InfiniteGrace.
func grace(s float64) time.Duration {
	if math.IsInf(s, 1) || s*float64(time.Second) >= math.MaxInt64 {
		return InfiniteGrace
	}
	return seconds(&s)
}
