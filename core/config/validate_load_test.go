package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// validationLines loads args (with -m m) and returns Validate's lines.
func validationLines(t *testing.T, args ...string) []string {
	t.Helper()
	cfg, _ := load(t, nil, append([]string{"-m", "m"}, args...)...)
	err := cfg.Validate(testChoices)
	if err == nil {
		return nil
	}
	return strings.Split(err.Error(), "\n")
}

func TestValidateLoadGenRules(t *testing.T) {
	trace := mooncake(t, true)
	single := writeFile(t, "single.jsonl", `{"text": "hi"}`+"\n")
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.jsonl")
	tests := []struct {
		name string
		args []string
		want string // exact line expected
	}{
		// Ranges
		{"duration", []string{"--benchmark-duration", "0"}, "--benchmark-duration must be > 0 and finite (got 0)"},
		{"duration inf", []string{"--benchmark-duration", "inf"}, "--benchmark-duration must be > 0 and finite (got +Inf)"},
		{"grace negative", []string{"--benchmark-duration", "5", "--benchmark-grace-period", "-1"}, "--benchmark-grace-period must be >= 0 (got -1)"},
		{"grace NaN", []string{"--benchmark-duration", "5", "--benchmark-grace-period", "nan"}, "--benchmark-grace-period must be >= 0 (got NaN)"},
		{"rate", []string{"--request-rate", "0"}, "--request-rate must be > 0 and finite (got 0)"},
		{"rate negative", []string{"--request-rate", "-2"}, "--request-rate must be > 0 and finite (got -2)"},
		{"smoothness", []string{"--request-rate", "1", "--arrival-smoothness", "0"}, "--arrival-smoothness must be > 0 and finite (got 0)"},
		{"prefill", []string{"--streaming", "--prefill-concurrency", "0"}, "--prefill-concurrency must be >= 1 (got 0)"},
		{"warmup duration", []string{"--warmup-duration", "-1"}, "--warmup-duration must be > 0 and finite (got -1)"},
		{"warmup sessions", []string{"--num-warmup-sessions", "0"}, "--num-warmup-sessions must be >= 1 (got 0)"},
		{"warmup concurrency", []string{"--warmup-request-count", "2", "--warmup-concurrency", "0"}, "--warmup-concurrency must be >= 1 (got 0)"},
		{"warmup prefill", []string{"--streaming", "--warmup-request-count", "2", "--warmup-prefill-concurrency", "0"}, "--warmup-prefill-concurrency must be >= 1 (got 0)"},
		{"warmup rate", []string{"--warmup-request-count", "2", "--warmup-request-rate", "0"}, "--warmup-request-rate must be > 0 and finite (got 0)"},
		{"warmup grace", []string{"--warmup-duration", "2", "--warmup-grace-period", "-3"}, "--warmup-grace-period must be >= 0 (got -3)"},
		{"cancel rate zero", []string{"--request-cancellation-rate", "0"}, "--request-cancellation-rate must be > 0 and <= 100 (a percentage; got 0)"},
		{"cancel rate high", []string{"--request-cancellation-rate", "100.5"}, "--request-cancellation-rate must be > 0 and <= 100 (a percentage; got 100.5)"},
		{"cancel delay", []string{"--request-cancellation-rate", "5", "--request-cancellation-delay", "-1"}, "--request-cancellation-delay must be >= 0 (got -1)"},
		{"cancel delay inf", []string{"--request-cancellation-rate", "5", "--request-cancellation-delay", "inf"}, "--request-cancellation-delay must be finite (got +Inf)"},
		{"user-centric rate", []string{"--user-centric-rate", "0", "--num-users", "1", "--session-turns-mean", "2"}, "--user-centric-rate must be > 0 and finite (got 0)"},
		{"num users", []string{"--user-centric-rate", "1", "--num-users", "0", "--session-turns-mean", "2"}, "--num-users must be >= 1 (got 0)"},
		{"ramp", []string{"--concurrency-ramp-duration", "0"}, "--concurrency-ramp-duration must be > 0 and finite (got 0)"},
		{"prefill ramp", []string{"--prefill-concurrency-ramp-duration", "-1"}, "--prefill-concurrency-ramp-duration must be > 0 and finite (got -1)"},
		{"warmup ramp", []string{"--warmup-concurrency-ramp-duration", "0"}, "--warmup-concurrency-ramp-duration must be > 0 and finite (got 0)"},
		{"warmup prefill ramp", []string{"--warmup-prefill-concurrency-ramp-duration", "0"}, "--warmup-prefill-concurrency-ramp-duration must be > 0 and finite (got 0)"},
		{"rate ramp", []string{"--request-rate", "5", "--request-rate-ramp-duration", "0"}, "--request-rate-ramp-duration must be > 0 and finite (got 0)"},
		{"warmup rate ramp", []string{"--warmup-request-rate-ramp-duration", "0"}, "--warmup-request-rate-ramp-duration must be > 0 and finite (got 0)"},
		{"sessions", []string{"--num-sessions", "0"}, "--conversation-num must be >= 1 (got 0)"},
		{"turn mean", []string{"--session-turns-mean", "0"}, "--conversation-turn-mean must be >= 1 (got 0)"},
		{"turn stddev", []string{"--session-turns-stddev", "-1"}, "--conversation-turn-stddev must be >= 0 (got -1)"},
		{"delay mean", []string{"--session-turn-delay-mean", "-5"}, "--conversation-turn-delay-mean must be >= 0 (got -5)"},
		{"delay stddev", []string{"--session-turn-delay-stddev", "-5"}, "--conversation-turn-delay-stddev must be >= 0 (got -5)"},
		{"delay ratio", []string{"--session-delay-ratio", "-0.5"}, "--conversation-turn-delay-ratio must be >= 0 (got -0.5)"},
		{"block size", []string{"--isl-block-size", "0"}, "--isl-block-size must be >= 1 (got 0)"},
		{"start offset", []string{"--fixed-schedule", "--input-file", trace, "--fixed-schedule-start-offset", "-1"}, "--fixed-schedule-start-offset must be >= 0 (got -1)"},
		{"end offset", []string{"--fixed-schedule", "--input-file", trace, "--fixed-schedule-end-offset", "-1"}, "--fixed-schedule-end-offset must be >= 0 (got -1)"},

		// Choices
		{"arrival pattern", []string{"--request-rate", "1", "--arrival-pattern", "uniform"}, `--arrival-pattern "uniform" is not valid; choose one of: concurrency_burst, constant, gamma, poisson`},
		{"warmup arrival pattern", []string{"--warmup-arrival-pattern", "x"}, `--warmup-arrival-pattern "x" is not valid; choose one of: concurrency_burst, constant, gamma, poisson`},
		{"dataset type", []string{"--custom-dataset-type", "sharegpt", "--input-file", single}, `--custom-dataset-type "sharegpt" is not valid; choose one of: mooncake_trace, multi_turn, random_pool, single_turn`},
		{"sampling", []string{"--dataset-sampling-strategy", "cyclic"}, `--dataset-sampling-strategy "cyclic" is not valid; choose one of: random, sequential, shuffle`},
		{"model selection", []string{"--model-selection-strategy", "least_loaded"}, `--model-selection-strategy "least_loaded" is not valid; choose one of: round_robin, random`},
		{"url strategy", []string{"--url-strategy", "random"}, `--url-strategy "random" is not valid; choose one of: round_robin`},
		{"connection reuse", []string{"--connection-reuse-strategy", "sticky"}, `--connection-reuse-strategy "sticky" is not valid; choose one of: pooled, never, sticky-user-sessions`},

		// AIPerf's rejected combinations (docs/METRICS.md §9)
		{"user-centric with rate", []string{"--user-centric-rate", "5", "--num-users", "2", "--session-turns-mean", "2", "--request-rate", "3"}, "--user-centric-rate cannot be used together with --request-rate"},
		{"user-centric with pattern", []string{"--user-centric-rate", "5", "--num-users", "2", "--session-turns-mean", "2", "--arrival-pattern", "constant"}, "--user-centric-rate cannot be used together with --arrival-pattern"},
		{"user-centric without users", []string{"--user-centric-rate", "5", "--session-turns-mean", "2"}, "--user-centric-rate requires --num-users to be set"},
		{"num-users without user-centric", []string{"--num-users", "4"}, "--num-users can only be used with --user-centric-rate; either add --user-centric-rate or remove --num-users"},
		{"user-centric single turn", []string{"--user-centric-rate", "5", "--num-users", "2"}, "--user-centric-rate requires multi-turn conversations (--session-turns-mean >= 2, got 1); for single-turn workloads use --request-rate"},
		{"sessions below users", []string{"--user-centric-rate", "5", "--num-users", "4", "--session-turns-mean", "2", "--num-sessions", "3"}, "--num-sessions (3) cannot be less than --num-users (4): each user needs at least one session"},
		{"count below users", []string{"--user-centric-rate", "5", "--num-users", "4", "--session-turns-mean", "2", "--request-count", "3"}, "--request-count (3) cannot be less than --num-users (4): there must be at least one request per user"},
		{"burst with rate", []string{"--request-rate", "5", "--arrival-pattern", "concurrency_burst"}, "--arrival-pattern concurrency_burst cannot be used with --request-rate (a burst has no rate)"},
		{"warmup burst with rate", []string{"--warmup-request-count", "3", "--warmup-request-rate", "5", "--warmup-arrival-pattern", "concurrency_burst"}, "--warmup-arrival-pattern concurrency_burst cannot be used with a warmup request rate (--warmup-request-rate or --request-rate)"},
		{"smoothness non-gamma", []string{"--request-rate", "5", "--arrival-pattern", "poisson", "--arrival-smoothness", "2"}, "--arrival-smoothness can only be used with --arrival-pattern gamma (got --arrival-pattern poisson)"},
		{"rate ramp in concurrency mode", []string{"--request-rate-ramp-duration", "2"}, "--request-rate-ramp-duration can only be used with --request-rate scheduling (the run is in concurrency mode)"},
		{"rate ramp with user-centric", []string{"--user-centric-rate", "5", "--num-users", "2", "--session-turns-mean", "2", "--request-rate-ramp-duration", "2"}, "--request-rate-ramp-duration can only be used with --request-rate scheduling (the run is in user_centric_rate mode)"},
		{"rate ramp with fixed schedule", []string{"--fixed-schedule", "--input-file", trace, "--request-rate-ramp-duration", "2"}, "--request-rate-ramp-duration can only be used with --request-rate scheduling (the run is in fixed_schedule mode)"},
		{"grace without duration", []string{"--benchmark-grace-period", "10"}, "--benchmark-grace-period can only be used with duration-based benchmarking (--benchmark-duration)"},
		{"warmup grace without warmup", []string{"--warmup-grace-period", "10"}, "--warmup-grace-period can only be used when --warmup-duration is set"},
		{"warmup grace with count only", []string{"--warmup-request-count", "5", "--warmup-grace-period", "10"}, "--warmup-grace-period can only be used when --warmup-duration is set"},
		{"concurrency above sessions", []string{"--concurrency", "8", "--num-sessions", "4"}, "--concurrency (8) cannot be greater than --num-sessions (4)"},
		{"prefill needs streaming", []string{"--prefill-concurrency", "2"}, "--prefill-concurrency requires --streaming (the first token is only seen in streamed responses)"},
		{"warmup prefill needs streaming", []string{"--warmup-request-count", "2", "--warmup-prefill-concurrency", "2"}, "--warmup-prefill-concurrency requires --streaming (the first token is only seen in streamed responses)"},
		{"prefill above concurrency", []string{"--streaming", "--concurrency", "4", "--prefill-concurrency", "5"}, "--prefill-concurrency (5) cannot be greater than --concurrency (4)"},
		{"warmup prefill above warmup concurrency", []string{"--streaming", "--warmup-request-count", "2", "--concurrency", "8", "--warmup-concurrency", "2", "--warmup-prefill-concurrency", "3"}, "--warmup-prefill-concurrency (3) cannot be greater than the warmup concurrency (2)"},
		{"warmup prefill above inherited concurrency", []string{"--streaming", "--warmup-request-count", "2", "--concurrency", "2", "--warmup-prefill-concurrency", "3"}, "--warmup-prefill-concurrency (3) cannot be greater than the warmup concurrency (2)"},
		{"cancel delay without rate", []string{"--request-cancellation-delay", "1"}, "--request-cancellation-delay can only be used with --request-cancellation-rate; either add --request-cancellation-rate or remove --request-cancellation-delay"},

		// Dataset and fixed schedule
		{"type without file", []string{"--custom-dataset-type", "single_turn"}, "--custom-dataset-type single_turn requires --input-file"},
		{"missing file", []string{"--input-file", missing}, `--input-file "` + missing + `" cannot be read: no such file or directory`},
		{"directory for single_turn", []string{"--input-file", dir, "--custom-dataset-type", "single_turn"}, `--input-file "` + dir + `" is a directory; --custom-dataset-type single_turn reads a file (only random_pool accepts a directory)`},
		{"fixed and no-fixed", []string{"--fixed-schedule", "--no-fixed-schedule", "--input-file", trace}, "--fixed-schedule and --no-fixed-schedule cannot be used together"},
		{"fixed without file", []string{"--fixed-schedule"}, "--fixed-schedule requires --input-file (a dataset with timestamps)"},
		{"offsets without fixed", []string{"--fixed-schedule-auto-offset", "--fixed-schedule-end-offset", "10"}, "--fixed-schedule-auto-offset, --fixed-schedule-end-offset can only be used with --fixed-schedule (or a mooncake_trace with timestamps); either add --fixed-schedule or remove them"},
		{"start offset without fixed", []string{"--fixed-schedule-start-offset", "10"}, "--fixed-schedule-start-offset can only be used with --fixed-schedule (or a mooncake_trace with timestamps); either add --fixed-schedule or remove them"},
		{"auto offset with start", []string{"--fixed-schedule", "--input-file", trace, "--fixed-schedule-auto-offset", "--fixed-schedule-start-offset", "5"}, "--fixed-schedule-start-offset and --fixed-schedule-auto-offset cannot be used together"},
		{"start after end", []string{"--fixed-schedule", "--input-file", trace, "--fixed-schedule-start-offset", "900", "--fixed-schedule-end-offset", "100"}, "--fixed-schedule-start-offset (900) must be less than or equal to --fixed-schedule-end-offset (100)"},
		{"sampling with fixed", []string{"--fixed-schedule", "--input-file", trace, "--dataset-sampling-strategy", "random"}, "--dataset-sampling-strategy is not compatible with fixed schedule mode (the trace order is fixed); remove --dataset-sampling-strategy"},
		{"sampling with auto fixed mooncake", []string{"--custom-dataset-type", "mooncake_trace", "--input-file", trace, "--dataset-sampling-strategy", "shuffle"}, "--dataset-sampling-strategy is not compatible with fixed schedule mode (the trace order is fixed); remove --dataset-sampling-strategy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := validationLines(t, tt.args...)
			if !slices.Contains(lines, tt.want) {
				t.Errorf("error lines %q\nwant line %q", lines, tt.want)
			}
		})
	}
}

// Valid combinations from AIPerf's docs must pass.
func TestValidateLoadGenAccepts(t *testing.T) {
	trace := mooncake(t, true)
	pool := t.TempDir()
	tests := [][]string{
		{"--request-rate", "100", "--concurrency", "50", "--request-count", "100"},
		{"--request-rate", "10", "--arrival-pattern", "gamma", "--arrival-smoothness", "0.5"},
		{"--request-rate", "10", "--vllm-burstiness", "4", "--request-rate-ramp-duration", "2"},
		{"--benchmark-duration", "30", "--benchmark-grace-period", "inf", "--concurrency", "4"},
		{"--user-centric-rate", "10", "--num-users", "5", "--session-turns-mean", "3", "--num-sessions", "5"},
		{"--streaming", "--concurrency", "8", "--prefill-concurrency", "4", "--prefill-concurrency-ramp-duration", "1"},
		{"--warmup-duration", "5", "--warmup-grace-period", "1", "--warmup-request-rate", "3"},
		{"--warmup-request-count", "4", "--warmup-concurrency", "2"},
		{"--request-cancellation-rate", "10", "--request-cancellation-delay", "0"},
		{"--custom-dataset-type", "mooncake_trace", "--input-file", trace, "--fixed-schedule-end-offset", "500", "--isl-block-size", "16"},
		{"--fixed-schedule", "--input-file", trace, "--fixed-schedule-start-offset", "100", "--fixed-schedule-end-offset", "100"},
		{"--custom-dataset-type", "random_pool", "--input-file", pool, "--dataset-sampling-strategy", "shuffle"},
		{"--num-sessions", "10", "--session-turns-mean", "3", "--session-turn-delay-mean", "500", "--session-delay-ratio", "0"},
		// Both stop conditions at once, as AIPerf 0.13 accepts: the first reached wins.
		{"--request-count", "8", "--num-sessions", "2", "--session-turns-mean", "3"},
		{"--warmup-request-count", "10", "--num-warmup-sessions", "5"},
		{"--url", "a:1", "--url", "b:2", "--url-strategy", "round_robin", "--model-selection-strategy", "random", "--connection-reuse-strategy", "sticky-user-sessions"},
	}
	for _, args := range tests {
		if lines := validationLines(t, args...); lines != nil {
			t.Errorf("%q: Validate = %q, want nil", args, lines)
		}
	}
}

func TestLoadGenWarnings(t *testing.T) {
	trace := mooncake(t, true)
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--warmup-concurrency", "2", "--warmup-request-rate", "3"}, []string{
			"--warmup-concurrency has no effect without --warmup-request-count, --warmup-duration or --num-warmup-sessions",
			"--warmup-request-rate has no effect without --warmup-request-count, --warmup-duration or --num-warmup-sessions"}},
		{[]string{"--arrival-pattern", "constant", "--arrival-smoothness", "2"}, []string{
			"--arrival-pattern has no effect without --request-rate",
			"--arrival-smoothness has no effect without --request-rate"}},
		{[]string{"--fixed-schedule", "--input-file", trace, "--request-rate", "5"}, []string{
			"--request-rate is ignored: fixed schedule replays the trace timestamps"}},
		{[]string{"--request-rate", "5", "--arrival-pattern", "constant"}, nil},
	}
	for _, tt := range tests {
		_, warns := load(t, nil, append([]string{"-m", "m"}, tt.args...)...)
		if !slices.Equal(warns, tt.want) {
			t.Errorf("%q: warnings %q, want %q", tt.args, warns, tt.want)
		}
	}
}
