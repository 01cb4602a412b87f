package config

import (
	"math"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// DatasetOptions returns the dataset settings of this run every composer
// and loader shares: models, entry count (EffectiveNumDatasetEntries),
// ISL/OSL, the delay ratio and the custom dataset file. The caller adds what
// the configuration does not own: RandomSeed (resolved once per run) and
// Tokenizer. Settings of one plugin only are that plugin's own
// (SyntheticSessionSettings, ISLBlockSizeSetting).
func (c *RunConfig) DatasetOptions() sdk.DatasetOptions {
	o := sdk.DatasetOptions{
		Models:             append([]string(nil), c.ModelNames...),
		NumEntries:         c.EffectiveNumDatasetEntries(),
		InputTokensMean:    c.InputTokensMean,
		InputTokensStddev:  c.InputTokensStddev,
		OutputTokensStddev: c.OutputTokensStddev,
		TurnDelayRatio:     c.effectiveDelayRatio(),
		InputFile:          c.InputFile,
		CustomDatasetType:  c.CustomDatasetType,
	}
	if c.OutputTokensMean != nil {
		o.OutputTokensMean = *c.OutputTokensMean
	}
	return o
}

// defaultSessionTurnsMean is --session-turns-mean's default (single-turn).
const defaultSessionTurnsMean = 1

// SyntheticSessionSettings returns the synthetic composer's own settings
// that AIPerf's multi-turn flags give, by the composer's json keys:
// session_turns_mean (--session-turns-mean), session_turns_stddev
// (--session-turns-stddev), turn_delay_mean_ms (--session-turn-delay-mean)
// and turn_delay_stddev_ms (--session-turn-delay-stddev). A flag left at
// its default (1, 0, 0, 0: single-turn, no delays, which is also the
// composer's own default) is omitted, so the plugin's manifest config for
// it stands; the result is empty for a single-turn run.
func (c *RunConfig) SyntheticSessionSettings() map[string]any {
	m := map[string]any{}
	if c.SessionTurnsMean != defaultSessionTurnsMean {
		m["session_turns_mean"] = c.SessionTurnsMean
	}
	if c.SessionTurnsStddev != 0 {
		m["session_turns_stddev"] = float64(c.SessionTurnsStddev)
	}
	if c.TurnDelayMeanMs != 0 {
		m["turn_delay_mean_ms"] = c.TurnDelayMeanMs
	}
	if c.TurnDelayStddevMs != 0 {
		m["turn_delay_stddev_ms"] = c.TurnDelayStddevMs
	}
	return m
}

// ISLBlockSizeSetting returns --isl-block-size, the mooncake_trace loader's
// block_size setting, and whether it was given (otherwise the loader's
// default stands).
func (c *RunConfig) ISLBlockSizeSetting() (int, bool) {
	if c.ISLBlockSize == nil {
		return 0, false
	}
	return *c.ISLBlockSize, true
}

// effectiveDelayRatio maps AIPerf's ratio 0 ("eliminate delays") onto the
// contract, where TurnDelayRatio 0 means 1: the smallest positive float
// scales every delay (synthetic or from a file) to zero.
func (c *RunConfig) effectiveDelayRatio() float64 {
	if c.TurnDelayRatio == 0 {
		return math.SmallestNonzeroFloat64
	}
	return c.TurnDelayRatio
}
