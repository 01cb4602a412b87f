// Package tracesynth is AIPerf 0.13's trace synthesis
// (aiperf.dataset.synthesis.synthesizer.Synthesizer) and the way its trace
// loaders apply it (BaseTraceDatasetLoader.load_dataset): drop records over
// max_isl, group records into sessions, rewrite hash_ids, input_length,
// timestamp and output_length with the --synthesis-* multipliers, then cap
// output_length at max_osl.
//
// The rewrite is deterministic except for --synthesis-prefix-root-multiplier,
// which draws each request's tree from CPython's Mersenne Twister seeded as
// AIPerf seeds it (sha256 of "<random seed>:dataset.synthesis.synthesizer"),
// so the same --random-seed gives AIPerf's own output. Records are kept as
// ordered JSON objects: fields the synthesis does not touch pass through
// unchanged and in place.
package tracesynth

import (
	"errors"
	"fmt"
	"math"
)

// DefaultBlockSize is AIPerf's InputTokensDefaults.BLOCK_SIZE, the hash-id
// block size of mooncake traces.
const DefaultBlockSize = 512

// Params are AIPerf's SynthesisParams. MaxISL and MaxOSL are 0 when unset.
type Params struct {
	SpeedupRatio         float64
	PrefixLenMultiplier  float64
	PrefixRootMultiplier int
	PromptLenMultiplier  float64
	OutputLenMultiplier  float64
	MaxISL               int
	MaxOSL               int
	BlockSize            int
}

// DefaultParams are the flags' defaults: every multiplier 1, no limits.
func DefaultParams() Params {
	return Params{
		SpeedupRatio: 1, PrefixLenMultiplier: 1, PrefixRootMultiplier: 1,
		PromptLenMultiplier: 1, OutputLenMultiplier: 1, BlockSize: DefaultBlockSize,
	}
}

// Transforms reports whether a multiplier is off its default, which is
// when AIPerf's loaders run the synthesizer at all
// (_has_meaningful_synthesis); max_isl and max_osl alone only filter and cap.
func (p Params) Transforms() bool {
	return p.SpeedupRatio != 1 || p.PrefixLenMultiplier != 1 || p.PrefixRootMultiplier != 1 ||
		p.PromptLenMultiplier != 1 || p.OutputLenMultiplier != 1
}

// Validate applies AIPerf's SynthesisConfig bounds; errors name the flag.
func (p Params) Validate() error {
	var errs []error
	positive := func(flag string, v float64) {
		if !(v > 0) || math.IsInf(v, 0) {
			errs = append(errs, fmt.Errorf("%s must be > 0 (got %v)", flag, v))
		}
	}
	positive("--synthesis-speedup-ratio", p.SpeedupRatio)
	positive("--synthesis-prefix-len-multiplier", p.PrefixLenMultiplier)
	positive("--synthesis-prompt-len-multiplier", p.PromptLenMultiplier)
	if !(p.OutputLenMultiplier >= 0) || math.IsInf(p.OutputLenMultiplier, 0) {
		errs = append(errs, fmt.Errorf("--synthesis-output-len-multiplier must be >= 0 (got %v)", p.OutputLenMultiplier))
	}
	if p.PrefixRootMultiplier < 1 {
		errs = append(errs, fmt.Errorf("--synthesis-prefix-root-multiplier must be >= 1 (got %d)", p.PrefixRootMultiplier))
	}
	if p.MaxISL < 0 {
		errs = append(errs, fmt.Errorf("--synthesis-max-isl must be >= 1 (got %d)", p.MaxISL))
	}
	if p.MaxOSL < 0 {
		errs = append(errs, fmt.Errorf("--synthesis-max-osl must be >= 1 (got %d)", p.MaxOSL))
	}
	if p.BlockSize < 1 {
		errs = append(errs, fmt.Errorf("block size must be >= 1 (got %d)", p.BlockSize))
	}
	return errors.Join(errs...)
}

// Options are the --synthesis-* settings as JSON, under AIPerf's
// SynthesisConfig keys (a dataset's "synthesis" section); nil keeps the
// default. Loaders take them as plugin settings.
type Options struct {
	SpeedupRatio         *float64 `json:"speedup_ratio,omitempty"`
	PrefixLenMultiplier  *float64 `json:"prefix_len_multiplier,omitempty"`
	PrefixRootMultiplier *int     `json:"prefix_root_multiplier,omitempty"`
	PromptLenMultiplier  *float64 `json:"prompt_len_multiplier,omitempty"`
	OutputLenMultiplier  *float64 `json:"output_len_multiplier,omitempty"`
	MaxISL               *int     `json:"max_isl,omitempty"`
	MaxOSL               *int     `json:"max_osl,omitempty"`
}

// Params returns the options over DefaultParams with the given block size,
// validated (an explicit max_isl or max_osl must be at least 1).
func (o Options) Params(blockSize int) (Params, error) {
	p := DefaultParams()
	p.BlockSize = blockSize
	setF := func(dst *float64, v *float64) {
		if v != nil {
			*dst = *v
		}
	}
	setF(&p.SpeedupRatio, o.SpeedupRatio)
	setF(&p.PrefixLenMultiplier, o.PrefixLenMultiplier)
	setF(&p.PromptLenMultiplier, o.PromptLenMultiplier)
	setF(&p.OutputLenMultiplier, o.OutputLenMultiplier)
	if o.PrefixRootMultiplier != nil {
		p.PrefixRootMultiplier = *o.PrefixRootMultiplier
	}
	var errs []error
	for _, l := range []struct {
		flag string
		v    *int
		dst  *int
	}{{"--synthesis-max-isl", o.MaxISL, &p.MaxISL}, {"--synthesis-max-osl", o.MaxOSL, &p.MaxOSL}} {
		switch {
		case l.v == nil:
		case *l.v < 1:
			errs = append(errs, fmt.Errorf("%s must be >= 1 (got %d)", l.flag, *l.v))
		default:
			*l.dst = *l.v
		}
	}
	if err := p.Validate(); err != nil {
		errs = append(errs, err)
	}
	return p, errors.Join(errs...)
}
