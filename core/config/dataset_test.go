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
		OutputTokensMean: 16, OutputTokensStddev: 1, SessionTurnsMean: 3, SessionTurnsStddev: 1,
		TurnDelayMeanMs: 200, TurnDelayStddevMs: 50, TurnDelayRatio: 0.5,
		InputFile: trace, CustomDatasetType: "mooncake_trace", BlockSize: 16,
	}
	if got := cfg.DatasetOptions(); !reflect.DeepEqual(got, want) {
		t.Errorf("DatasetOptions:\n got %+v\nwant %+v", got, want)
	}
}

func TestDatasetOptionsDefaults(t *testing.T) {
	cfg, _ := load(t, nil, "-m", "m")
	got := cfg.DatasetOptions()
	if got.OutputTokensMean != 0 || got.BlockSize != 0 || got.SessionTurnsMean != 1 || got.TurnDelayRatio != 1 || got.InputFile != "" {
		t.Errorf("defaults: %+v", got)
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
