package config

import (
	"math"
	"reflect"
	"testing"
	"time"
)

func derefF(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func derefB(p *bool) any {
	if p == nil {
		return nil
	}
	return *p
}

// Every issue-4 flag, under every name, lands in its field.
func TestLoadGenFlagsAndAliases(t *testing.T) {
	pinTerminal(t, false)
	tests := []struct {
		args []string
		get  func(*RunConfig) any
		want any
	}{
		// Endpoint
		{[]string{"--model-selection-strategy", "random"}, func(c *RunConfig) any { return c.ModelSelectionStrategy }, "random"},
		{[]string{"--model-selection-strategy", "RANDOM"}, func(c *RunConfig) any { return c.ModelSelectionStrategy }, "random"},
		{[]string{"--url-strategy", "round_robin"}, func(c *RunConfig) any { return c.URLStrategy }, "round_robin"},
		{[]string{"--connection-reuse-strategy", "sticky-user-sessions"}, func(c *RunConfig) any { return c.ConnectionReuseStrategy }, "sticky-user-sessions"},
		{[]string{"--connection-reuse-strategy", "never"}, func(c *RunConfig) any { return c.ConnectionReuseStrategy }, "never"},
		// Input
		{[]string{"--input-file", "data.jsonl"}, func(c *RunConfig) any { return c.InputFile }, "data.jsonl"},
		{[]string{"--fixed-schedule"}, func(c *RunConfig) any { return derefB(c.FixedScheduleFlag) }, true},
		{[]string{"--fixed-schedule=false"}, func(c *RunConfig) any { return derefB(c.FixedScheduleFlag) }, false},
		{[]string{"--fixed-schedule-auto-offset"}, func(c *RunConfig) any { return derefB(c.FixedScheduleAutoOffset) }, true},
		{[]string{"--fixed-schedule-start-offset", "1500"}, func(c *RunConfig) any { return derefInt(c.FixedScheduleStartOffset) }, 1500},
		{[]string{"--fixed-schedule-end-offset", "9000"}, func(c *RunConfig) any { return derefInt(c.FixedScheduleEndOffset) }, 9000},
		{[]string{"--no-fixed-schedule"}, func(c *RunConfig) any { return c.NoFixedSchedule }, true},
		{[]string{"--custom-dataset-type", "Mooncake_Trace"}, func(c *RunConfig) any { return c.CustomDatasetType }, "mooncake_trace"},
		{[]string{"--dataset-sampling-strategy", "sequential"}, func(c *RunConfig) any { return c.DatasetSamplingStrategy }, "sequential"},
		// ISL block size
		{[]string{"--isl-block-size", "16"}, func(c *RunConfig) any { return derefInt(c.ISLBlockSize) }, 16},
		{[]string{"--prompt-input-tokens-block-size", "32"}, func(c *RunConfig) any { return derefInt(c.ISLBlockSize) }, 32},
		{[]string{"--synthetic-input-tokens-block-size", "64"}, func(c *RunConfig) any { return derefInt(c.ISLBlockSize) }, 64},
		// Conversation input
		{[]string{"--num-sessions", "7"}, func(c *RunConfig) any { return derefInt(c.NumSessions) }, 7},
		{[]string{"--num-conversations", "8"}, func(c *RunConfig) any { return derefInt(c.NumSessions) }, 8},
		{[]string{"--conversation-num", "9"}, func(c *RunConfig) any { return derefInt(c.NumSessions) }, 9},
		{[]string{"--session-turns-mean", "3"}, func(c *RunConfig) any { return c.SessionTurnsMean }, 3},
		{[]string{"--conversation-turn-mean", "4"}, func(c *RunConfig) any { return c.SessionTurnsMean }, 4},
		{[]string{"--session-turns-stddev", "2"}, func(c *RunConfig) any { return c.SessionTurnsStddev }, 2},
		{[]string{"--conversation-turn-stddev", "1"}, func(c *RunConfig) any { return c.SessionTurnsStddev }, 1},
		{[]string{"--session-turn-delay-mean", "250.5"}, func(c *RunConfig) any { return c.TurnDelayMeanMs }, 250.5},
		{[]string{"--conversation-turn-delay-mean", "100"}, func(c *RunConfig) any { return c.TurnDelayMeanMs }, 100.0},
		{[]string{"--session-turn-delay-stddev", "20"}, func(c *RunConfig) any { return c.TurnDelayStddevMs }, 20.0},
		{[]string{"--conversation-turn-delay-stddev", "30"}, func(c *RunConfig) any { return c.TurnDelayStddevMs }, 30.0},
		{[]string{"--session-delay-ratio", "0.5"}, func(c *RunConfig) any { return c.TurnDelayRatio }, 0.5},
		{[]string{"--conversation-turn-delay-ratio", "2"}, func(c *RunConfig) any { return c.TurnDelayRatio }, 2.0},
		// Load generator
		{[]string{"--benchmark-duration", "60"}, func(c *RunConfig) any { return derefF(c.BenchmarkDuration) }, 60.0},
		{[]string{"--benchmark-grace-period", "5.5"}, func(c *RunConfig) any { return derefF(c.BenchmarkGracePeriod) }, 5.5},
		{[]string{"--benchmark-grace-period", "inf"}, func(c *RunConfig) any { return derefF(c.BenchmarkGracePeriod) }, math.Inf(1)},
		{[]string{"--prefill-concurrency", "3"}, func(c *RunConfig) any { return derefInt(c.PrefillConcurrency) }, 3},
		{[]string{"--request-rate", "12.5"}, func(c *RunConfig) any { return derefF(c.RequestRate) }, 12.5},
		{[]string{"--arrival-pattern", "constant"}, func(c *RunConfig) any { return c.ArrivalPattern }, "constant"},
		{[]string{"--request-rate-mode", "GAMMA"}, func(c *RunConfig) any { return c.ArrivalPattern }, "gamma"},
		{[]string{"--arrival-smoothness", "0.5"}, func(c *RunConfig) any { return derefF(c.ArrivalSmoothness) }, 0.5},
		{[]string{"--vllm-burstiness", "4"}, func(c *RunConfig) any { return derefF(c.ArrivalSmoothness) }, 4.0},
		{[]string{"--warmup-duration", "10"}, func(c *RunConfig) any { return derefF(c.WarmupDuration) }, 10.0},
		{[]string{"--num-warmup-sessions", "2"}, func(c *RunConfig) any { return derefInt(c.NumWarmupSessions) }, 2},
		{[]string{"--warmup-concurrency", "6"}, func(c *RunConfig) any { return derefInt(c.WarmupConcurrency) }, 6},
		{[]string{"--warmup-prefill-concurrency", "2"}, func(c *RunConfig) any { return derefInt(c.WarmupPrefillConcurrency) }, 2},
		{[]string{"--warmup-request-rate", "7"}, func(c *RunConfig) any { return derefF(c.WarmupRequestRate) }, 7.0},
		{[]string{"--warmup-arrival-pattern", "constant"}, func(c *RunConfig) any { return c.WarmupArrivalPattern }, "constant"},
		{[]string{"--warmup-grace-period", "3"}, func(c *RunConfig) any { return derefF(c.WarmupGracePeriod) }, 3.0},
		{[]string{"--request-cancellation-rate", "25"}, func(c *RunConfig) any { return derefF(c.RequestCancellationRate) }, 25.0},
		{[]string{"--request-cancellation-delay", "0.25"}, func(c *RunConfig) any { return derefF(c.RequestCancellationDelay) }, 0.25},
		{[]string{"--user-centric-rate", "4"}, func(c *RunConfig) any { return derefF(c.UserCentricRate) }, 4.0},
		{[]string{"--num-users", "16"}, func(c *RunConfig) any { return derefInt(c.NumUsers) }, 16},
		{[]string{"--concurrency-ramp-duration", "1"}, func(c *RunConfig) any { return derefF(c.ConcurrencyRampDuration) }, 1.0},
		{[]string{"--prefill-concurrency-ramp-duration", "2"}, func(c *RunConfig) any { return derefF(c.PrefillConcurrencyRampDuration) }, 2.0},
		{[]string{"--warmup-concurrency-ramp-duration", "3"}, func(c *RunConfig) any { return derefF(c.WarmupConcurrencyRampDuration) }, 3.0},
		{[]string{"--warmup-prefill-concurrency-ramp-duration", "4"}, func(c *RunConfig) any { return derefF(c.WarmupPrefillConcurrencyRampDuration) }, 4.0},
		{[]string{"--request-rate-ramp-duration", "5"}, func(c *RunConfig) any { return derefF(c.RequestRateRampDuration) }, 5.0},
		{[]string{"--warmup-request-rate-ramp-duration", "6"}, func(c *RunConfig) any { return derefF(c.WarmupRequestRateRampDuration) }, 6.0},
	}
	for _, tt := range tests {
		cfg, _ := load(t, nil, append([]string{"-m", "m"}, tt.args...)...)
		if got := tt.get(cfg); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: got %#v, want %#v", tt.args, got, tt.want)
		}
	}
}

func TestLoadGenDefaults(t *testing.T) {
	pinTerminal(t, false)
	cfg, warns := load(t, nil, "-m", "m")
	if len(warns) != 0 {
		t.Errorf("warnings = %q, want none", warns)
	}
	checks := []struct {
		name string
		got  any
		want any
	}{
		{"model selection", cfg.ModelSelectionStrategy, "round_robin"},
		{"url strategy", cfg.URLStrategy, "round_robin"},
		{"connection reuse", cfg.ConnectionReuseStrategy, "pooled"},
		{"turns mean", cfg.SessionTurnsMean, 1},
		{"turns stddev", cfg.SessionTurnsStddev, 0},
		{"delay mean", cfg.TurnDelayMeanMs, 0.0},
		{"delay stddev", cfg.TurnDelayStddevMs, 0.0},
		{"delay ratio", cfg.TurnDelayRatio, 1.0},
		{"arrival pattern unset", cfg.ArrivalPattern, ""},
		{"configured pattern", cfg.configuredArrivalPattern(), ArrivalPoisson},
		{"grace unset", cfg.BenchmarkGracePeriod == nil, true},
		{"profiling grace", cfg.Profiling().Grace, defaultGracePeriod},
		{"cancel delay", cfg.RequestCancellation().Delay, time.Duration(0)},
		{"fixed schedule", cfg.FixedSchedule(), false},
		{"block size unset", cfg.ISLBlockSize == nil, true},
		{"sessions", cfg.EffectiveNumSessions(), 0},
		{"mode", cfg.Mode(), ModeConcurrency},
		{"warmup", cfg.HasWarmup(), false},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.name, c.got, c.want)
		}
	}
}

// The same options come from the config file and the environment, under
// canonical keys and aliases.
func TestLoadGenFileAndEnv(t *testing.T) {
	file := writeFile(t, "c.yaml", "model_names: m\nrequest_rate: 20\nrequest_rate_mode: constant\nnum_sessions: 5\nbenchmark_grace_period: .inf\nbenchmark_duration: 10\n")
	cfg, _ := load(t, []string{"AIPERF_SESSION_TURNS_MEAN=3", "AIPERF_CONNECTION_REUSE_STRATEGY=never"}, "--config", file)
	if *cfg.RequestRate != 20 || cfg.ArrivalPattern != "constant" || *cfg.NumSessions != 5 {
		t.Errorf("file values: rate %v pattern %q sessions %v", *cfg.RequestRate, cfg.ArrivalPattern, *cfg.NumSessions)
	}
	if !math.IsInf(*cfg.BenchmarkGracePeriod, 1) {
		t.Errorf("grace = %v, want +Inf", *cfg.BenchmarkGracePeriod)
	}
	if cfg.SessionTurnsMean != 3 || cfg.ConnectionReuseStrategy != "never" {
		t.Errorf("env values: turns %d reuse %q", cfg.SessionTurnsMean, cfg.ConnectionReuseStrategy)
	}
}

func TestFixedScheduleFromFile(t *testing.T) {
	trace := mooncake(t, false) // no timestamps: only the explicit key enables it
	file := writeFile(t, "c.yaml", "model_names: m\nfixed_schedule: true\ninput_file: "+trace+"\nfixed_schedule_end_offset: 300\n")
	cfg, _ := load(t, nil, "--config", file)
	if !cfg.FixedSchedule() || cfg.Mode() != ModeFixedSchedule || cfg.EffectiveRequestCount() != 2 {
		t.Errorf("FixedSchedule %v Mode %q count %d, want true fixed_schedule 2", cfg.FixedSchedule(), cfg.Mode(), cfg.EffectiveRequestCount())
	}
	if err := cfg.Validate(testChoices); err != nil {
		t.Errorf("Validate = %v", err)
	}
}
