package config

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Multi-run bounds (AIPerf 0.13's CLIConfig and MultiRunConfig fields).
const (
	MaxProfileRuns = 10
	// maxCooldownSeconds is MultiRunConfig.cooldown_seconds' le=86400: a
	// typo such as 1e18 fails at load instead of sleeping for ever.
	maxCooldownSeconds = 86400
	// ConsistentSeed is the seed --set-consistent-seed gives a multi-run
	// benchmark without --random-seed.
	ConsistentSeed = 42
	// variationLabel is AIPerf's label of the one variation of a benchmark
	// that is not a sweep; it enters --vary-seed-per-trial's derivation.
	variationLabel = "base"
)

// MultiRun is the resolved Multi-Run group.
type MultiRun struct {
	// Runs is --num-profile-runs (1: a single ordinary run).
	Runs int
	// Cooldown is the pause between two runs.
	Cooldown time.Duration
	// ConfidenceLevel is --confidence-level.
	ConfidenceLevel float64
	// DisableWarmupAfterFirst keeps the warmup phase on the first run only.
	DisableWarmupAfterFirst bool
	// SetConsistentSeed seeds every run with ConsistentSeed when no
	// --random-seed is given; VarySeedPerTrial derives one seed per run.
	SetConsistentSeed bool
	VarySeedPerTrial  bool
}

// MultiRun returns the Multi-Run settings.
func (c *RunConfig) MultiRun() MultiRun {
	return MultiRun{
		Runs:                    c.NumProfileRuns,
		Cooldown:                time.Duration(c.ProfileRunCooldownSeconds * float64(time.Second)),
		ConfidenceLevel:         c.ConfidenceLevel,
		DisableWarmupAfterFirst: c.ProfileRunDisableWarmupAfterFirst,
		SetConsistentSeed:       c.SetConsistentSeed,
		VarySeedPerTrial:        c.VarySeedPerTrial,
	}
}

// multiRunFlags pairs each across-run boolean with its --no-* negation.
var multiRunFlags = []struct {
	pos, neg, flag, negFlag string
	field                   func(*RunConfig) (pos, neg *bool)
}{
	{keyDisableWarmupAfterFirst, keyNoDisableWarmupAfterFirst, "--profile-run-disable-warmup-after-first", "--no-profile-run-disable-warmup-after-first",
		func(c *RunConfig) (*bool, *bool) {
			return &c.ProfileRunDisableWarmupAfterFirst, &c.NoProfileRunDisableWarmupAfterFirst
		}},
	{keySetConsistentSeed, keyNoSetConsistentSeed, "--set-consistent-seed", "--no-set-consistent-seed",
		func(c *RunConfig) (*bool, *bool) { return &c.SetConsistentSeed, &c.NoSetConsistentSeed }},
	{keyVarySeedPerTrial, keyNoVarySeedPerTrial, "--vary-seed-per-trial", "--no-vary-seed-per-trial",
		func(c *RunConfig) (*bool, *bool) { return &c.VarySeedPerTrial, &c.NoVarySeedPerTrial }},
}

// resolveMultiRun folds the --no-* negations into their options, records
// which across-run flags the user gave (userSet holds the keys set by a
// file, the environment or a flag) and, for a multi-run benchmark, turns a
// dashboard UI that was only the terminal default into simple: AIPerf
// rejects the dashboard with several runs. It warns when the runs will
// not share a seed.
func (c *RunConfig) resolveMultiRun(userSet map[string]bool) []string {
	c.multiRunGiven, c.multiRunClash = nil, nil
	for _, f := range multiRunFlags {
		pos, neg := f.field(c)
		if *neg {
			if userSet[f.pos] && *pos {
				c.multiRunClash = append(c.multiRunClash, f.flag)
			}
			*pos = false
		}
		// AIPerf's _REPEAT_TRIAL_ONLY_FLAGS (vary-seed-per-trial is not one).
		if f.pos == keyVarySeedPerTrial {
			continue
		}
		switch {
		case userSet[f.neg] && *neg:
			c.multiRunGiven = append(c.multiRunGiven, f.negFlag)
		case userSet[f.pos]:
			c.multiRunGiven = append(c.multiRunGiven, f.flag)
		}
	}
	if userSet[keyProfileRunCooldown] {
		c.multiRunGiven = append(c.multiRunGiven, "--profile-run-cooldown-seconds")
	}
	if c.NumProfileRuns <= 1 {
		return nil
	}
	if !userSet[keyUIType] && c.UIType == "dashboard" {
		c.UIType = "simple"
	}
	if c.RandomSeed == nil && !c.SetConsistentSeed {
		return []string{"--no-set-consistent-seed without --random-seed: every profile run draws its own seed, so the workloads differ and the confidence statistics mix input and runtime variance"}
	}
	return nil
}

// validateMultiRun checks the Multi-Run group (AIPerf 0.13's bounds and
// its rejection of across-run flags on a single run).
func (c *RunConfig) validateMultiRun(add adder) {
	if c.NumProfileRuns < 1 || c.NumProfileRuns > MaxProfileRuns {
		add("--num-profile-runs must be between 1 and %d (got %d)", MaxProfileRuns, c.NumProfileRuns)
	}
	if v := c.ProfileRunCooldownSeconds; !(v >= 0 && v <= maxCooldownSeconds) {
		add("--profile-run-cooldown-seconds must be between 0 and %d (got %v)", maxCooldownSeconds, v)
	}
	if v := c.ConfidenceLevel; !(v > 0 && v < 1) {
		add("--confidence-level must be between 0 and 1, exclusive (got %v); common values: 0.90, 0.95, 0.99", v)
	}
	for _, flag := range c.multiRunClash {
		add("%s and --no-%s contradict each other; give one", flag, flag[2:])
	}
	if c.NumProfileRuns == 1 {
		for _, flag := range c.multiRunGiven {
			add("%s only applies when running multiple trials (--num-profile-runs > 1). Either remove %s or add --num-profile-runs 5 (or higher).", flag, flag)
		}
	}
	if c.NumProfileRuns > 1 && c.UIType == "dashboard" {
		add("--ui-type dashboard is not supported with --num-profile-runs > 1; use --ui simple or --ui none")
	}
}

// ProfileRunSeed is the seed of the zero-based profile run trial of a
// multi-run benchmark, nil when each run draws its own: --random-seed, else
// ConsistentSeed under --set-consistent-seed; with --vary-seed-per-trial
// AIPerf's derive_variation_seed(seed, "base:trial:<trial>"), the first 8
// bytes of SHA-256("<seed>:variation:base:trial:<trial>") as a big-endian
// integer masked to 63 bits.
func (c *RunConfig) ProfileRunSeed(trial int) *int64 {
	var seed int64
	switch {
	case c.RandomSeed != nil:
		seed = *c.RandomSeed
	case c.SetConsistentSeed:
		seed = ConsistentSeed
	default:
		return nil
	}
	if c.VarySeedPerTrial {
		label := variationLabel + ":trial:" + strconv.Itoa(trial)
		sum := sha256.Sum256([]byte(fmt.Sprintf("%d:variation:%s", seed, label)))
		seed = int64(binary.BigEndian.Uint64(sum[:8]) & math.MaxInt64)
	}
	return &seed
}

// ProfileRun is the configuration of the zero-based profile run trial of a
// multi-run benchmark: its artifacts go to dir, and after the first run the
// warmup phase is dropped under --profile-run-disable-warmup-after-first
// (AIPerf's FixedTrialsStrategy._disable_warmup). The seed is left to the
// caller (ProfileRunSeed): AIPerf does not write it into input_config.
func (c *RunConfig) ProfileRun(dir string, trial int) *RunConfig {
	rc := *c
	rc.ArtifactDir, rc.ArtifactDirSet = dir, true
	if trial > 0 && c.ProfileRunDisableWarmupAfterFirst {
		rc.WarmupRequestCount, rc.WarmupDuration, rc.NumWarmupSessions = nil, nil, nil
	}
	return &rc
}
