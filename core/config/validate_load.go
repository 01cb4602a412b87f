package config

import (
	"errors"
	"math"
	"os"
	"slices"
	"strings"
)

// adder records one validation problem.
type adder func(format string, args ...any)

// validateChoices checks the fixed-choice string options added for load
// generation (empty means unset and is not checked).
func (c *RunConfig) validateChoices(add adder) {
	for _, ch := range []struct {
		flag, val string
		allowed   []string
	}{
		{"--model-selection-strategy", c.ModelSelectionStrategy, modelSelectionStrategies},
		{"--connection-reuse-strategy", c.ConnectionReuseStrategy, connectionReuse},
	} {
		if ch.val != "" && !slices.Contains(ch.allowed, ch.val) {
			add("%s %q is not valid; choose one of: %s", ch.flag, ch.val, strings.Join(ch.allowed, ", "))
		}
	}
	// Required-with-a-value options must not be emptied by a file or env.
	for _, ch := range []struct{ flag, val string }{
		{"--model-selection-strategy", c.ModelSelectionStrategy},
		{"--url-strategy", c.URLStrategy},
		{"--connection-reuse-strategy", c.ConnectionReuseStrategy},
	} {
		if ch.val == "" {
			add("%s must not be empty", ch.flag)
		}
	}
}

// validateRanges checks every numeric bound of the load and conversation
// options (AIPerf's Field constraints).
func (c *RunConfig) validateRanges(add adder) {
	positive := []struct {
		flag string
		v    *float64
	}{
		{"--benchmark-duration", c.BenchmarkDuration},
		{"--request-rate", c.RequestRate},
		{"--arrival-smoothness", c.ArrivalSmoothness},
		{"--warmup-duration", c.WarmupDuration},
		{"--warmup-request-rate", c.WarmupRequestRate},
		{"--user-centric-rate", c.UserCentricRate},
		{"--concurrency-ramp-duration", c.ConcurrencyRampDuration},
		{"--prefill-concurrency-ramp-duration", c.PrefillConcurrencyRampDuration},
		{"--warmup-concurrency-ramp-duration", c.WarmupConcurrencyRampDuration},
		{"--warmup-prefill-concurrency-ramp-duration", c.WarmupPrefillConcurrencyRampDuration},
		{"--request-rate-ramp-duration", c.RequestRateRampDuration},
		{"--warmup-request-rate-ramp-duration", c.WarmupRequestRateRampDuration},
	}
	for _, p := range positive {
		// Rates and durations must be finite: +Inf would never end or never wait.
		if p.v != nil && !(*p.v > 0 && !math.IsInf(*p.v, 1)) {
			add("%s must be > 0 and finite (got %v)", p.flag, *p.v)
		}
	}
	nonNegative := []struct {
		flag     string
		v        *float64
		allowInf bool
	}{
		{"--benchmark-grace-period", c.BenchmarkGracePeriod, true},
		{"--warmup-grace-period", c.WarmupGracePeriod, true},
		{"--request-cancellation-delay", c.RequestCancellationDelay, false},
		{"--conversation-turn-delay-mean", &c.TurnDelayMeanMs, false},
		{"--slice-duration", &c.SliceDuration, false},
		{"--conversation-turn-delay-stddev", &c.TurnDelayStddevMs, false},
		{"--conversation-turn-delay-ratio", &c.TurnDelayRatio, false},
	}
	for _, p := range nonNegative {
		if p.v == nil {
			continue
		}
		switch {
		case !(*p.v >= 0):
			add("%s must be >= 0 (got %v)", p.flag, *p.v)
		case math.IsInf(*p.v, 1) && !p.allowInf:
			add("%s must be finite (got %v)", p.flag, *p.v)
		}
	}
	if r := c.RequestCancellationRate; r != nil && !(*r > 0 && *r <= 100) {
		add("--request-cancellation-rate must be > 0 and <= 100 (a percentage; got %v)", *r)
	}
	atLeastOne := []struct {
		flag string
		v    *int
	}{
		{"--prefill-concurrency", c.PrefillConcurrency},
		{"--num-warmup-sessions", c.NumWarmupSessions},
		{"--warmup-concurrency", c.WarmupConcurrency},
		{"--warmup-prefill-concurrency", c.WarmupPrefillConcurrency},
		{"--num-users", c.NumUsers},
		{"--conversation-num", c.NumSessions},
		{"--isl-block-size", c.ISLBlockSize},
		{"--conversation-turn-mean", &c.SessionTurnsMean},
	}
	for _, p := range atLeastOne {
		if p.v != nil && *p.v < 1 {
			add("%s must be >= 1 (got %d)", p.flag, *p.v)
		}
	}
	for _, p := range []struct {
		flag string
		v    *int
	}{
		{"--conversation-turn-stddev", &c.SessionTurnsStddev},
		{"--fixed-schedule-start-offset", c.FixedScheduleStartOffset},
		{"--fixed-schedule-end-offset", c.FixedScheduleEndOffset},
	} {
		if p.v != nil && *p.v < 0 {
			add("%s must be >= 0 (got %d)", p.flag, *p.v)
		}
	}
}

// validateModes checks AIPerf's rejected flag combinations (docs/METRICS.md §9, Load generation),
// each message naming the flags and the rule.
func (c *RunConfig) validateModes(add adder) {
	mode := c.Mode()

	// User-centric rate.
	if c.UserCentricRate != nil && mode == ModeUserCentric {
		if c.RequestRate != nil {
			add("--user-centric-rate cannot be used together with --request-rate")
		}
		if c.ArrivalPattern != "" {
			add("--user-centric-rate cannot be used together with --arrival-pattern")
		}
		if c.NumUsers == nil {
			add("--user-centric-rate requires --num-users to be set")
		}
		if c.SessionTurnsMean < 2 {
			add("--user-centric-rate requires multi-turn conversations (--session-turns-mean >= 2, got %d); for single-turn workloads use --request-rate", c.SessionTurnsMean)
		}
	}
	if c.NumUsers != nil && c.UserCentricRate == nil {
		add("--num-users can only be used with --user-centric-rate; either add --user-centric-rate or remove --num-users")
	}
	if n := c.NumUsers; n != nil && *n >= 1 {
		if c.NumSessions != nil && *c.NumSessions < *n {
			add("--num-sessions (%d) cannot be less than --num-users (%d): each user needs at least one session", *c.NumSessions, *n)
		}
		if c.RequestCount != nil && *c.RequestCount < *n {
			add("--request-count (%d) cannot be less than --num-users (%d): there must be at least one request per user", *c.RequestCount, *n)
		}
	}

	// Request rate and arrival pattern.
	if mode == ModeRequestRate && c.ArrivalPattern == ArrivalConcurrencyBurst {
		add("--arrival-pattern concurrency_burst cannot be used with --request-rate (a burst has no rate)")
	}
	if c.WarmupArrivalPattern == ArrivalConcurrencyBurst && firstSet(c.WarmupRequestRate, c.RequestRate) != nil && c.HasWarmup() {
		add("--warmup-arrival-pattern concurrency_burst cannot be used with a warmup request rate (--warmup-request-rate or --request-rate)")
	}
	if c.ArrivalSmoothness != nil && c.ArrivalPattern != "" && c.ArrivalPattern != ArrivalGamma {
		add("--arrival-smoothness can only be used with --arrival-pattern gamma (got --arrival-pattern %s)", c.ArrivalPattern)
	}
	if c.RequestRateRampDuration != nil && mode != ModeRequestRate {
		add("--request-rate-ramp-duration can only be used with --request-rate scheduling (the run is in %s mode)", mode)
	}

	// Stop conditions.
	if c.BenchmarkGracePeriod != nil && c.BenchmarkDuration == nil {
		add("--benchmark-grace-period can only be used with duration-based benchmarking (--benchmark-duration)")
	}
	if c.WarmupGracePeriod != nil && c.WarmupDuration == nil {
		add("--warmup-grace-period can only be used when --warmup-duration is set")
	}
	// A request count and a session count may both be set, as in AIPerf 0.13:
	// both are stop conditions and the first reached ends the phase.
	if c.Concurrency != nil && c.NumSessions != nil && *c.Concurrency >= 1 && *c.NumSessions >= 1 && *c.Concurrency > *c.NumSessions {
		add("--concurrency (%d) cannot be greater than --num-sessions (%d)", *c.Concurrency, *c.NumSessions)
	}

	// Prefill concurrency holds a slot until the first token, which only a
	// streamed response reports.
	if !c.Streaming {
		if c.PrefillConcurrency != nil {
			add("--prefill-concurrency requires --streaming (the first token is only seen in streamed responses)")
		}
		if c.WarmupPrefillConcurrency != nil {
			add("--warmup-prefill-concurrency requires --streaming (the first token is only seen in streamed responses)")
		}
	}
	if p, cc := c.PrefillConcurrency, c.Concurrency; p != nil && cc != nil && *cc >= 1 && *p > *cc {
		add("--prefill-concurrency (%d) cannot be greater than --concurrency (%d)", *p, *cc)
	}
	if p, cc := c.WarmupPrefillConcurrency, firstSet(c.WarmupConcurrency, c.Concurrency); p != nil && cc != nil && *cc >= 1 && *p > *cc {
		add("--warmup-prefill-concurrency (%d) cannot be greater than the warmup concurrency (%d)", *p, *cc)
	}

	// Cancellation.
	if c.RequestCancellationDelay != nil && c.RequestCancellationRate == nil {
		add("--request-cancellation-delay can only be used with --request-cancellation-rate; either add --request-cancellation-rate or remove --request-cancellation-delay")
	}
}

// validateDataset checks the dataset file and fixed-schedule options.
func (c *RunConfig) validateDataset(add adder) {
	if c.CustomDatasetType != "" && c.InputFile == "" {
		add("--custom-dataset-type %s requires --input-file", c.CustomDatasetType)
	}
	if c.InputFile != "" {
		st, err := os.Stat(c.InputFile)
		switch {
		case err != nil:
			add("--input-file %q cannot be read: %v", c.InputFile, unwrapPathError(err))
		case st.IsDir() && c.CustomDatasetType != "" && c.CustomDatasetType != DatasetRandomPool:
			add("--input-file %q is a directory; --custom-dataset-type %s reads a file (only random_pool accepts a directory)", c.InputFile, c.CustomDatasetType)
		}
	}

	explicitFixed := c.FixedScheduleFlag != nil && *c.FixedScheduleFlag
	if explicitFixed && c.NoFixedSchedule {
		add("--fixed-schedule and --no-fixed-schedule cannot be used together")
	}
	if explicitFixed && c.InputFile == "" {
		add("--fixed-schedule requires --input-file (a dataset with timestamps)")
	}
	fixed := c.FixedSchedule()
	var orphan []string
	if c.FixedScheduleAutoOffset != nil {
		orphan = append(orphan, "--fixed-schedule-auto-offset")
	}
	if c.FixedScheduleStartOffset != nil {
		orphan = append(orphan, "--fixed-schedule-start-offset")
	}
	if c.FixedScheduleEndOffset != nil {
		orphan = append(orphan, "--fixed-schedule-end-offset")
	}
	if len(orphan) > 0 && !fixed {
		add("%s can only be used with --fixed-schedule (or a mooncake_trace with timestamps); either add --fixed-schedule or remove them", strings.Join(orphan, ", "))
	}
	if c.FixedScheduleStartOffset != nil && c.FixedScheduleAutoOffset != nil && *c.FixedScheduleAutoOffset {
		add("--fixed-schedule-start-offset and --fixed-schedule-auto-offset cannot be used together")
	}
	if s, e := c.FixedScheduleStartOffset, c.FixedScheduleEndOffset; s != nil && e != nil && *s > *e {
		add("--fixed-schedule-start-offset (%d) must be less than or equal to --fixed-schedule-end-offset (%d)", *s, *e)
	}
	if fixed && c.DatasetSamplingStrategy != "" {
		add("--dataset-sampling-strategy is not compatible with fixed schedule mode (the trace order is fixed); remove --dataset-sampling-strategy")
	}
}

// unwrapPathError drops the path os.Stat repeats (the message names it).
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
