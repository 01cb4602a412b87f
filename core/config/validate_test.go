package config

import (
	"strings"
	"testing"
)

var testChoices = Choices{
	"endpoint": {"chat", "completions", "text_gen"}, "ui": {"simple", "none"},
	"url_selection_strategy": {"round_robin"}, "custom_dataset_loader": {"mooncake_trace", "multi_turn", "random_pool", "single_turn"},
	"dataset_sampler": {"random", "sequential", "shuffle"}, "arrival_pattern": {"concurrency_burst", "constant", "gamma", "poisson"},
	"transport": {"http"}, "ramp": {"linear", "exponential", "poisson"}, "tokenizer": {"builtin", "hf"},
	"record_processor": {"metric_record"},
}

func TestValidateErrors(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		args []string
		want string // exact line expected in the joined error
	}{
		{"model required", nil, []string{}, "--model-names is required (use -m/--model-names, model_names in the config file, or AIPERF_MODEL_NAMES)"},
		{"concurrency", nil, []string{"--concurrency", "-1"}, "--concurrency must be >= 1 (got -1)"},
		{"concurrency zero", nil, []string{"--concurrency", "0"}, "--concurrency must be >= 1 (got 0)"},
		{"request count", nil, []string{"--request-count", "0"}, "--request-count must be >= 1 (got 0)"},
		{"warmup zero", nil, []string{"--warmup-request-count", "0"}, "--warmup-request-count must be > 0 (got 0)"},
		{"concurrency above count", nil, []string{"--concurrency", "50", "--request-count", "10"}, "--concurrency (50) cannot be greater than --request-count (10)"},
		{"endpoint type", nil, []string{"--endpoint-type", "chatt"}, `--endpoint-type "chatt" is not valid; choose one of: chat, completions, text_gen`},
		{"export level", nil, []string{"--export-level", "x"}, `--export-level "x" is not valid; choose one of: summary, records, raw`},
		{"log level", nil, []string{"--log-level", "loud"}, `--log-level "LOUD" is not valid; choose one of: TRACE, DEBUG, INFO, NOTICE, WARNING, SUCCESS, ERROR, CRITICAL`},
		{"ui type", nil, []string{"--ui", "tui"}, `--ui-type "tui" is not valid; choose one of: simple, none`},
		{"timeout", nil, []string{"--request-timeout-seconds", "0"}, "--request-timeout-seconds must be > 0 (got 0)"},
		{"isl", nil, []string{"--isl", "-5"}, "--prompt-input-tokens-mean must be >= 0 (got -5)"},
		{"isl stddev", nil, []string{"--isl-stddev", "-1.5"}, "--prompt-input-tokens-stddev must be >= 0 (got -1.5)"},
		{"osl", nil, []string{"--osl", "0"}, "--prompt-output-tokens-mean must be >= 1 (got 0)"},
		{"osl stddev", nil, []string{"--osl", "5", "--osl-stddev", "-2"}, "--prompt-output-tokens-stddev must be >= 0 (got -2)"},
		{"dataset entries", nil, []string{"--num-dataset-entries", "0"}, "--num-dataset-entries must be >= 1 (got 0)"},
		{"seed", nil, []string{"--random-seed", "-3"}, "--random-seed must be >= 0 (got -3)"},
		{"shards without a manager", nil, []string{"--shards", "4"}, "--shards 4 needs --service-manager local or kubernetes: the inprocess manager runs one process"},
		{"shard index out of range", nil, []string{"--shard-count", "2", "--shard-index", "2", "--shard-barrier", "http://h"}, "--shard-index must be between 0 and --shard-count-1 (1) (got 2)"},
		{"shard count needs a barrier", nil, []string{"--shard-count", "2"}, "--shard-count 2 needs --shard-barrier: the shards start together at shard 0's barrier"},
		{"kubernetes needs an image", nil, []string{"--service-manager", "kubernetes", "--shards", "2"}, "--service-manager kubernetes needs --image: the container image the shard pods run"},
		{"closed loop too few users", nil, []string{"--service-manager", "local", "--shards", "4", "--concurrency", "3"}, "--concurrency 3 cannot be split over 4 shards: each needs at least one"},
		{"node selector", nil, []string{"--node-selector", "gpu"}, `--node-selector "gpu": want key=value`},
		{"header no colon", nil, []string{"-H", "NoColonHere"}, `--header "NoColonHere" is not valid: expected "key:value" or a JSON object (expected "Name:Value" or a JSON object)`},
		{"header bad name", nil, []string{"-H", "Bad Name:1"}, `--header "Bad Name:1" is not valid: header name "Bad Name" contains ' ' (expected "Name:Value" or a JSON object)`},
		{"header bad json", nil, []string{"-H", `{"a":`}, `--header "{\"a\":" is not valid: invalid JSON object: unexpected EOF (expected "Name:Value" or a JSON object)`},
		{"header nested json", nil, []string{"-H", `{"a":{"b":1}}`}, `--header "{\"a\":{\"b\":1}}" is not valid: key "a": header values must be strings, numbers or booleans (expected "Name:Value" or a JSON object)`},
		{"extra inputs no colon", nil, []string{"--extra-inputs", "temperature"}, `--extra-inputs "temperature" is not valid: expected "key:value" or a JSON object (expected "key:value" or a JSON object)`},
		{"extra inputs empty key", nil, []string{"--extra-inputs", ":5"}, `--extra-inputs ":5" is not valid: empty key in ":5" (expected "key:value" or a JSON object)`},
		{"extra inputs bad json", nil, []string{"--extra-inputs", "{nope}"}, `--extra-inputs "{nope}" is not valid: invalid JSON object: invalid character 'n' looking for beginning of object key string (expected "key:value" or a JSON object)`},
		{"url without host", nil, []string{"--url", "http://"}, `--url "http://" is not valid: missing host`},
		{"empty artifact dir", nil, []string{"--artifact-dir", ""}, "--output-artifact-dir must not be empty"},
		{"prefix only suffix", nil, []string{"--profile-export-prefix", ".json"}, `--profile-export-prefix ".json" leaves no file name once its suffix is removed`},
		{"custom endpoint space", nil, []string{"--endpoint", "/a b"}, `--custom-endpoint "/a b" must not contain whitespace`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if tt.name != "model required" {
				args = append([]string{"-m", "m"}, args...)
			}
			cfg, _ := load(t, tt.env, args...)
			err := cfg.Validate(testChoices)
			if err == nil {
				t.Fatalf("Validate succeeded, want %q", tt.want)
			}
			lines := strings.Split(err.Error(), "\n")
			found := false
			for _, l := range lines {
				if l == tt.want {
					found = true
				}
			}
			if !found {
				t.Errorf("error lines %q\nwant line %q", lines, tt.want)
			}
		})
	}
}

func TestValidateJoinsAllProblems(t *testing.T) {
	cfg, _ := load(t, nil, "--concurrency", "0", "--export-level", "x", "--warmup-request-count", "-2")
	err := cfg.Validate(testChoices)
	if err == nil {
		t.Fatal("want error")
	}
	if n := len(strings.Split(err.Error(), "\n")); n != 4 {
		t.Errorf("got %d problems, want 4 (model, concurrency, warmup, export level): %v", n, err)
	}
}

func TestValidateNilChoicesSkipsRegistryChecks(t *testing.T) {
	cfg, _ := load(t, nil, "-m", "m", "--endpoint-type", "anything", "--ui", "none")
	if err := cfg.Validate(Choices{}); err != nil {
		t.Errorf("Validate(Choices{}) = %v, want nil", err)
	}
}

// A malformed header that carries a credential must not echo it.
func TestValidateDoesNotLeakSecrets(t *testing.T) {
	const secret = "sk-live-DO-NOT-LEAK"
	cfg, _ := load(t, nil, "-m", "m", "-H", "Authorization Bearer "+secret, "--url", "http://user:"+secret+"@:80")
	err := cfg.Validate(testChoices)
	if err == nil {
		t.Fatal("want errors")
	}
	if strings.Contains(err.Error(), secret) {
		t.Errorf("error leaks the secret: %v", err)
	}
}
