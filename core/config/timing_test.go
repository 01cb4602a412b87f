package config

import (
	"math"
	"reflect"
	"testing"
	"time"
)

// mooncake writes a small mooncake trace; ts=false leaves timestamps out.
func mooncake(t *testing.T, ts bool) string {
	t.Helper()
	if ts {
		return writeFile(t, "trace.jsonl", `{"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": [1]}
{"timestamp": 250, "input_length": 10, "output_length": 5, "hash_ids": [1]}

{"timestamp": 1000, "input_length": 10, "output_length": 5, "hash_ids": [2]}
`)
	}
	return writeFile(t, "trace.jsonl", `{"input_length": 10, "output_length": 5}
{"input_length": 12, "output_length": 5}
`)
}

func TestModePriority(t *testing.T) {
	withTS := mooncake(t, true)
	noTS := mooncake(t, false)
	tests := []struct {
		name string
		args []string
		want TimingMode
	}{
		{"default", nil, ModeConcurrency},
		{"concurrency", []string{"--concurrency", "4"}, ModeConcurrency},
		{"rate", []string{"--request-rate", "5"}, ModeRequestRate},
		{"rate with ceiling", []string{"--request-rate", "5", "--concurrency", "2"}, ModeRequestRate},
		{"user-centric beats rate", []string{"--user-centric-rate", "5", "--num-users", "2", "--request-rate", "5"}, ModeUserCentric},
		{"fixed beats user-centric", []string{"--fixed-schedule", "--input-file", withTS, "--user-centric-rate", "5"}, ModeFixedSchedule},
		{"fixed beats rate", []string{"--fixed-schedule", "--input-file", withTS, "--request-rate", "5"}, ModeFixedSchedule},
		{"mooncake with timestamps is fixed", []string{"--custom-dataset-type", "mooncake_trace", "--input-file", withTS}, ModeFixedSchedule},
		{"mooncake without timestamps is not", []string{"--custom-dataset-type", "mooncake_trace", "--input-file", noTS}, ModeConcurrency},
		{"--no-fixed-schedule overrides", []string{"--custom-dataset-type", "mooncake_trace", "--input-file", withTS, "--no-fixed-schedule"}, ModeConcurrency},
		{"--fixed-schedule=false overrides", []string{"--custom-dataset-type", "mooncake_trace", "--input-file", withTS, "--fixed-schedule=false", "--request-rate", "3"}, ModeRequestRate},
		{"single_turn with timestamps is not auto", []string{"--custom-dataset-type", "single_turn", "--input-file", withTS}, ModeConcurrency},
	}
	for _, tt := range tests {
		cfg, _ := load(t, nil, append([]string{"-m", "m"}, tt.args...)...)
		if got := cfg.Mode(); got != tt.want {
			t.Errorf("%s: Mode = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestEffectiveCountsByMode(t *testing.T) {
	trace := mooncake(t, true) // 3 entries (blank line skipped)
	tests := []struct {
		name        string
		args        []string
		concurrency int
		count       int
	}{
		{"concurrency default", nil, 1, 10},
		{"concurrency 8", []string{"--concurrency", "8"}, 8, 16},
		{"prefill only", []string{"--streaming", "--prefill-concurrency", "7"}, 0, 14},
		{"rate, no ceiling", []string{"--request-rate", "100"}, 0, 10},
		{"rate with ceiling keeps AIPerf's 10", []string{"--request-rate", "100", "--concurrency", "50"}, 50, 10},
		{"user-centric", []string{"--user-centric-rate", "4", "--num-users", "2"}, 0, 10},
		{"duration: no count limit", []string{"--concurrency", "4", "--benchmark-duration", "30"}, 4, 0},
		{"duration with count", []string{"--benchmark-duration", "30", "--request-count", "99"}, 1, 99},
		{"sessions: no request limit", []string{"--num-sessions", "20"}, 1, 0},
		{"explicit count", []string{"--concurrency", "64", "--request-count", "7"}, 64, 7},
		{"fixed schedule: trace length", []string{"--fixed-schedule", "--input-file", trace}, 0, 3},
		{"fixed schedule with count", []string{"--fixed-schedule", "--input-file", trace, "--request-count", "2"}, 0, 2},
	}
	for _, tt := range tests {
		cfg, _ := load(t, nil, append([]string{"-m", "m"}, tt.args...)...)
		if got := cfg.EffectiveConcurrency(); got != tt.concurrency {
			t.Errorf("%s: EffectiveConcurrency = %d, want %d", tt.name, got, tt.concurrency)
		}
		if got := cfg.EffectiveRequestCount(); got != tt.count {
			t.Errorf("%s: EffectiveRequestCount = %d, want %d", tt.name, got, tt.count)
		}
	}
}

func TestProfiling(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want PhaseSettings
	}{
		{"concurrency", []string{"--concurrency", "4", "--concurrency-ramp-duration", "2"}, PhaseSettings{
			Mode: ModeConcurrency, Count: 10, Grace: 30 * time.Second, Concurrency: 4,
			ArrivalPattern: ArrivalConcurrencyBurst, ConcurrencyRamp: 2 * time.Second}},
		{"rate poisson", []string{"--request-rate", "50", "--concurrency", "8", "--request-count", "100"}, PhaseSettings{
			Mode: ModeRequestRate, Count: 100, Grace: 30 * time.Second, Concurrency: 8, Rate: 50, ArrivalPattern: ArrivalPoisson}},
		{"smoothness promotes gamma", []string{"--request-rate", "50", "--vllm-burstiness", "0.5"}, PhaseSettings{
			Mode: ModeRequestRate, Count: 10, Grace: 30 * time.Second, Rate: 50, ArrivalPattern: ArrivalGamma, Smoothness: 0.5}},
		{"explicit gamma keeps smoothness", []string{"--request-rate", "2", "--arrival-pattern", "gamma", "--arrival-smoothness", "4"}, PhaseSettings{
			Mode: ModeRequestRate, Count: 10, Grace: 30 * time.Second, Rate: 2, ArrivalPattern: ArrivalGamma, Smoothness: 4}},
		{"constant with rate ramp", []string{"--request-rate", "1000", "--arrival-pattern", "constant", "--request-rate-ramp-duration", "1.5"}, PhaseSettings{
			Mode: ModeRequestRate, Count: 10, Grace: 30 * time.Second, Rate: 1000, ArrivalPattern: ArrivalConstant, RateRamp: 1500 * time.Millisecond}},
		{"duration and grace", []string{"--benchmark-duration", "60", "--benchmark-grace-period", "2.5", "--concurrency", "3"}, PhaseSettings{
			Mode: ModeConcurrency, Duration: 60 * time.Second, Grace: 2500 * time.Millisecond, Concurrency: 3, ArrivalPattern: ArrivalConcurrencyBurst}},
		{"infinite grace", []string{"--benchmark-duration", "1", "--benchmark-grace-period", "inf"}, PhaseSettings{
			Mode: ModeConcurrency, Duration: time.Second, Grace: InfiniteGrace, Concurrency: 1, ArrivalPattern: ArrivalConcurrencyBurst}},
		{"user-centric grace defaults to inf", []string{"--user-centric-rate", "8", "--num-users", "4", "--session-turns-mean", "3", "--benchmark-duration", "20"}, PhaseSettings{
			Mode: ModeUserCentric, Duration: 20 * time.Second, Grace: InfiniteGrace, UserCentricRate: 8, NumUsers: 4}},
		{"prefill with ramps", []string{"--streaming", "--concurrency", "10", "--prefill-concurrency", "2", "--prefill-concurrency-ramp-duration", "0.5"}, PhaseSettings{
			Mode: ModeConcurrency, Count: 20, Grace: 30 * time.Second, Concurrency: 10, PrefillConcurrency: 2,
			ArrivalPattern: ArrivalConcurrencyBurst, PrefillRamp: 500 * time.Millisecond}},
		{"sessions", []string{"--num-sessions", "12", "--concurrency", "3"}, PhaseSettings{
			Mode: ModeConcurrency, Sessions: 12, Grace: 30 * time.Second, Concurrency: 3, ArrivalPattern: ArrivalConcurrencyBurst}},
	}
	for _, tt := range tests {
		cfg, _ := load(t, nil, append([]string{"-m", "m"}, tt.args...)...)
		if got := cfg.Profiling(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.name, got, tt.want)
		}
	}
}

func TestWarmupInheritance(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want PhaseSettings
		ok   bool
	}{
		{"no trigger, no warmup", []string{"--warmup-concurrency", "3", "--warmup-request-rate", "5"}, PhaseSettings{}, false},
		{"count inherits concurrency", []string{"--warmup-request-count", "5", "--concurrency", "4"}, PhaseSettings{
			Mode: ModeConcurrency, Count: 5, Grace: InfiniteGrace, Concurrency: 4, ArrivalPattern: ArrivalConcurrencyBurst}, true},
		{"default concurrency 1", []string{"--warmup-request-count", "5", "--request-count", "20"}, PhaseSettings{
			Mode: ModeConcurrency, Count: 5, Grace: InfiniteGrace, Concurrency: 1, ArrivalPattern: ArrivalConcurrencyBurst}, true},
		{"inherits rate, pattern, smoothness, prefill, ramps", []string{"--streaming", "--warmup-duration", "10",
			"--request-rate", "40", "--vllm-burstiness", "2", "--concurrency", "16", "--prefill-concurrency", "4",
			"--concurrency-ramp-duration", "1", "--prefill-concurrency-ramp-duration", "2", "--request-rate-ramp-duration", "3"}, PhaseSettings{
			Mode: ModeRequestRate, Duration: 10 * time.Second, Grace: InfiniteGrace, Concurrency: 16, PrefillConcurrency: 4,
			Rate: 40, ArrivalPattern: ArrivalGamma, Smoothness: 2,
			ConcurrencyRamp: time.Second, PrefillRamp: 2 * time.Second, RateRamp: 3 * time.Second}, true},
		{"warmup values override", []string{"--streaming", "--num-warmup-sessions", "3", "--warmup-grace-period", "5", "--warmup-duration", "9",
			"--request-rate", "40", "--concurrency", "16", "--prefill-concurrency", "4", "--concurrency-ramp-duration", "1",
			"--warmup-request-rate", "10", "--warmup-arrival-pattern", "constant", "--warmup-concurrency", "2",
			"--warmup-prefill-concurrency", "1", "--warmup-concurrency-ramp-duration", "0.5",
			"--warmup-prefill-concurrency-ramp-duration", "0.25", "--warmup-request-rate-ramp-duration", "0.75"}, PhaseSettings{
			Mode: ModeRequestRate, Sessions: 3, Duration: 9 * time.Second, Grace: 5 * time.Second, Concurrency: 2, PrefillConcurrency: 1,
			Rate: 10, ArrivalPattern: ArrivalConstant,
			ConcurrencyRamp: 500 * time.Millisecond, PrefillRamp: 250 * time.Millisecond, RateRamp: 750 * time.Millisecond}, true},
		{"warmup rate in a closed-loop run uses the configured pattern", []string{"--warmup-request-count", "8", "--warmup-request-rate", "4", "--concurrency", "2"}, PhaseSettings{
			Mode: ModeRequestRate, Count: 8, Grace: InfiniteGrace, Concurrency: 2, Rate: 4, ArrivalPattern: ArrivalPoisson}, true},
		{"user-centric profiling: warmup is a burst", []string{"--warmup-request-count", "4", "--user-centric-rate", "3", "--num-users", "2", "--session-turns-mean", "2"}, PhaseSettings{
			Mode: ModeConcurrency, Count: 4, Grace: InfiniteGrace, Concurrency: 1, ArrivalPattern: ArrivalConcurrencyBurst}, true},
		{"prefill-only warmup keeps concurrency unlimited", []string{"--streaming", "--warmup-request-count", "4", "--warmup-prefill-concurrency", "2"}, PhaseSettings{
			Mode: ModeConcurrency, Count: 4, Grace: InfiniteGrace, PrefillConcurrency: 2, ArrivalPattern: ArrivalConcurrencyBurst}, true},
	}
	for _, tt := range tests {
		cfg, _ := load(t, nil, append([]string{"-m", "m"}, tt.args...)...)
		got, ok := cfg.Warmup()
		if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %+v, %v\nwant %+v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

func TestFixedScheduleWindow(t *testing.T) {
	trace := mooncake(t, true)
	tests := []struct {
		args []string
		want ScheduleWindow
	}{
		{nil, ScheduleWindow{}},
		{[]string{"--fixed-schedule-auto-offset"}, ScheduleWindow{AutoOffset: true}},
		{[]string{"--fixed-schedule-start-offset", "100", "--fixed-schedule-end-offset", "900"},
			ScheduleWindow{HasStart: true, StartOffset: 100 * time.Millisecond, HasEnd: true, EndOffset: 900 * time.Millisecond}},
		// Only an end offset: auto offset turns on (docs/METRICS.md §9, Load generation).
		{[]string{"--fixed-schedule-end-offset", "500"}, ScheduleWindow{AutoOffset: true, HasEnd: true, EndOffset: 500 * time.Millisecond}},
		{[]string{"--fixed-schedule-end-offset", "500", "--fixed-schedule-auto-offset=false"}, ScheduleWindow{HasEnd: true, EndOffset: 500 * time.Millisecond}},
	}
	for _, tt := range tests {
		cfg, _ := load(t, nil, append([]string{"-m", "m", "--fixed-schedule", "--input-file", trace}, tt.args...)...)
		if got := cfg.FixedScheduleWindow(); got != tt.want {
			t.Errorf("%q: window %+v, want %+v", tt.args, got, tt.want)
		}
	}
}

func TestRequestCancellation(t *testing.T) {
	cfg, _ := load(t, nil, "-m", "m", "--request-cancellation-rate", "12.5", "--request-cancellation-delay", "0.2")
	if got, want := cfg.RequestCancellation(), (Cancellation{Rate: 12.5, Delay: 200 * time.Millisecond}); got != want {
		t.Errorf("RequestCancellation = %+v, want %+v", got, want)
	}
	cfg, _ = load(t, nil, "-m", "m")
	if got := cfg.RequestCancellation(); got != (Cancellation{}) {
		t.Errorf("default RequestCancellation = %+v, want none", got)
	}
}

func TestDurationConversions(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		name string
		got  time.Duration
		want time.Duration
	}{
		{"nil", seconds(nil), 0},
		{"1.5s", seconds(f(1.5)), 1500 * time.Millisecond},
		{"negative", seconds(f(-1)), 0},
		{"NaN", seconds(f(math.NaN())), 0},
		{"huge saturates", seconds(f(1e300)), time.Duration(math.MaxInt64)},
		{"grace inf", grace(math.Inf(1)), InfiniteGrace},
		{"grace beyond range", grace(1e12), InfiniteGrace},
		{"grace zero", grace(0), 0},
		{"grace 30", grace(30), 30 * time.Second},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}
