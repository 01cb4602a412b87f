package config

import (
	"math"
	"reflect"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func TestDatasetOptions(t *testing.T) {
	trace := mooncake(t, true)
	cfg, _ := load(t, nil, "-m", "a,b", "--num-dataset-entries", "7", "--isl", "64", "--isl-stddev", "2",
		"--osl", "16", "--osl-stddev", "1", "--session-turns-mean", "3", "--session-turns-stddev", "1",
		"--session-turn-delay-mean", "200", "--session-turn-delay-stddev", "50", "--session-delay-ratio", "0.5",
		"--input-file", trace, "--custom-dataset-type", "mooncake_trace", "--isl-block-size", "16")
	want := sdk.DatasetOptions{
		Models: []string{"a", "b"}, NumEntries: 7, InputTokensMean: 64, InputTokensStddev: 2,
		OutputTokensMean: 16, OutputTokensStddev: 1, TurnDelayRatio: 0.5,
		InputFile: trace, CustomDatasetType: "mooncake_trace",
	}
	if got := cfg.DatasetOptions(); !reflect.DeepEqual(got, want) {
		t.Errorf("DatasetOptions:\n got %+v\nwant %+v", got, want)
	}
	// The multi-turn flags and --isl-block-size are plugin settings now.
	wantSessions := map[string]any{"session_turns_mean": 3, "session_turns_stddev": 1.0,
		"turn_delay_mean_ms": 200.0, "turn_delay_stddev_ms": 50.0}
	if got := cfg.SyntheticSessionSettings(); !reflect.DeepEqual(got, wantSessions) {
		t.Errorf("SyntheticSessionSettings:\n got %#v\nwant %#v", got, wantSessions)
	}
	if bs, ok := cfg.ISLBlockSizeSetting(); !ok || bs != 16 {
		t.Errorf("ISLBlockSizeSetting() = %d, %v; want 16, true", bs, ok)
	}
}

func TestDatasetOptionsDefaults(t *testing.T) {
	cfg, _ := load(t, nil, "-m", "m")
	got := cfg.DatasetOptions()
	if got.OutputTokensMean != 0 || got.TurnDelayRatio != 1 || got.InputFile != "" {
		t.Errorf("defaults: %+v", got)
	}
	// Flags at their defaults set no plugin settings: the plugins' own
	// defaults (single-turn, block size 512) stand.
	if s := cfg.SyntheticSessionSettings(); len(s) != 0 {
		t.Errorf("default SyntheticSessionSettings = %v, want none", s)
	}
	if bs, ok := cfg.ISLBlockSizeSetting(); ok {
		t.Errorf("ISLBlockSizeSetting() = %d, true; want unset", bs)
	}
}

// Each multi-turn flag maps to its own key, alone when only it is given.
func TestSyntheticSessionSettingsPerFlag(t *testing.T) {
	cases := []struct {
		args []string
		want map[string]any
	}{
		{[]string{"--session-turns-mean", "2"}, map[string]any{"session_turns_mean": 2}},
		{[]string{"--conversation-turn-stddev", "3"}, map[string]any{"session_turns_stddev": 3.0}},
		{[]string{"--session-turn-delay-mean", "250.5"}, map[string]any{"turn_delay_mean_ms": 250.5}},
		{[]string{"--conversation-turn-delay-stddev", "30"}, map[string]any{"turn_delay_stddev_ms": 30.0}},
	}
	for _, c := range cases {
		cfg, _ := load(t, nil, append([]string{"-m", "m"}, c.args...)...)
		if got := cfg.SyntheticSessionSettings(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: got %#v, want %#v", c.args, got, c.want)
		}
	}
}

// AIPerf's ratio 0 removes delays; the contract reads 0 as 1, so the
// smallest positive ratio is passed instead.
func TestDatasetOptionsZeroDelayRatio(t *testing.T) {
	cfg, _ := load(t, nil, "-m", "m", "--session-delay-ratio", "0", "--session-turn-delay-mean", "1000")
	r := cfg.DatasetOptions().TurnDelayRatio
	if r <= 0 || 1e300*r >= 1e-9 || r != math.SmallestNonzeroFloat64 {
		t.Errorf("ratio %v does not scale delays to zero", r)
	}
}

// AIPerf 0.13 sizes the synthetic dataset from the counts the user set
// (config/flags/_converter_dataset.py _resolve_entries): an explicit
// --num-dataset-entries, else --num-sessions, else --request-count, else 100.
// Computed defaults (the default request count, a duration) leave 100.
func TestEffectiveNumDatasetEntries(t *testing.T) {
	file := writeFile(t, "entries.yaml", "num_dataset_entries: 40\n")
	cases := []struct {
		name string
		env  []string
		args []string
		want int
	}{
		{"default", nil, nil, 100},
		{"request count", nil, []string{"--request-count", "1000"}, 1000},
		{"request count below the default", nil, []string{"--request-count", "5"}, 5},
		{"num sessions", nil, []string{"--num-sessions", "300"}, 300},
		{"num conversations alias", nil, []string{"--conversation-num", "250"}, 250},
		{"explicit entries win over request count", nil, []string{"--num-dataset-entries", "50", "--request-count", "1000"}, 50},
		{"explicit default value still wins", nil, []string{"--num-dataset-entries", "100", "--request-count", "1000"}, 100},
		{"explicit entries win over sessions", nil, []string{"--num-prompts", "20", "--num-sessions", "300"}, 20},
		{"benchmark duration keeps the default", nil, []string{"--benchmark-duration", "60"}, 100},
		{"duration and count: the count", nil, []string{"--benchmark-duration", "60", "--request-count", "700"}, 700},
		{"computed default request count is not a user count", nil, []string{"--concurrency", "200"}, 100},
		{"request rate default count", nil, []string{"--request-rate", "5"}, 100},
		{"entries from the environment", []string{"AIPERF_NUM_DATASET_ENTRIES=30"}, []string{"--request-count", "1000"}, 30},
		{"entries from the config file", nil, []string{"--config", file, "--request-count", "1000"}, 40},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, _ := load(t, c.env, append([]string{"-m", "m"}, c.args...)...)
			if got := cfg.EffectiveNumDatasetEntries(); got != c.want {
				t.Errorf("EffectiveNumDatasetEntries() = %d, want %d", got, c.want)
			}
			if got := cfg.DatasetOptions().NumEntries; got != c.want {
				t.Errorf("DatasetOptions().NumEntries = %d, want %d", got, c.want)
			}
		})
	}
}
