package config

import (
	"math"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// DatasetOptions returns the dataset settings of this run: models, entry
// count, ISL/OSL, multi-turn sessions and the custom dataset file. The
// caller adds what the configuration does not own: RandomSeed (resolved
// once per run) and Tokenizer.
func (c *RunConfig) DatasetOptions() sdk.DatasetOptions {
	o := sdk.DatasetOptions{
		Models:             append([]string(nil), c.ModelNames...),
		NumEntries:         c.NumDatasetEntries,
		InputTokensMean:    c.InputTokensMean,
		InputTokensStddev:  c.InputTokensStddev,
		OutputTokensStddev: c.OutputTokensStddev,
		SessionTurnsMean:   c.SessionTurnsMean,
		SessionTurnsStddev: float64(c.SessionTurnsStddev),
		TurnDelayMeanMs:    c.TurnDelayMeanMs,
		TurnDelayStddevMs:  c.TurnDelayStddevMs,
		TurnDelayRatio:     c.effectiveDelayRatio(),
		InputFile:          c.InputFile,
		CustomDatasetType:  c.CustomDatasetType,
	}
	if c.OutputTokensMean != nil {
		o.OutputTokensMean = *c.OutputTokensMean
	}
	if c.ISLBlockSize != nil {
		o.BlockSize = *c.ISLBlockSize
	}
	return o
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
