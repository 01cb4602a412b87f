package config

import "math"

// synthesisOption is one --synthesis-* flag: its name, its key in AIPerf's
// SynthesisConfig (a file dataset's "synthesis" section) and its value.
type synthesisOption struct {
	flag, key string
	f         *float64
	i         *int
	// positive: AIPerf's SynthesisConfig wants > 0 (its CLI only >= 0, so
	// 0 passes where no file dataset is built).
	positive bool
	minInt   int
}

// synthesisOptions lists the flags in AIPerf's SynthesisConfig field order.
func (c *RunConfig) synthesisOptions() []synthesisOption {
	return []synthesisOption{
		{flag: "--synthesis-speedup-ratio", key: "speedup_ratio", f: c.SynthesisSpeedupRatio, positive: true},
		{flag: "--synthesis-prefix-len-multiplier", key: "prefix_len_multiplier", f: c.SynthesisPrefixLenMultiplier, positive: true},
		{flag: "--synthesis-prefix-root-multiplier", key: "prefix_root_multiplier", i: c.SynthesisPrefixRootMultiplier, minInt: 1},
		{flag: "--synthesis-prompt-len-multiplier", key: "prompt_len_multiplier", f: c.SynthesisPromptLenMultiplier, positive: true},
		{flag: "--synthesis-output-len-multiplier", key: "output_len_multiplier", f: c.SynthesisOutputLenMultiplier},
		{flag: "--synthesis-max-isl", key: "max_isl", i: c.SynthesisMaxISL, minInt: 1},
		{flag: "--synthesis-max-osl", key: "max_osl", i: c.SynthesisMaxOSL, minInt: 1},
	}
}

// synthesisSection is the given --synthesis-* flags by their
// SynthesisConfig keys (AIPerf writes only the flags that were set); nil
// when none was.
func (c *RunConfig) synthesisSection() map[string]any {
	var m map[string]any
	for _, o := range c.synthesisOptions() {
		var v any
		switch {
		case o.f != nil:
			v = *o.f
		case o.i != nil:
			v = *o.i
		default:
			continue
		}
		if m == nil {
			m = map[string]any{}
		}
		m[o.key] = v
	}
	return m
}

// SynthesisSettings returns the mooncake_trace loader's settings the
// --synthesis-* flags give ({"synthesis": {...}} under AIPerf's
// SynthesisConfig keys), or nil when none was given: AIPerf applies them
// when its trace loaders read the file. Like AIPerf, a dataset that is not
// a file ignores them.
func (c *RunConfig) SynthesisSettings() map[string]any {
	if c.InputFile == "" {
		return nil
	}
	if s := c.synthesisSection(); s != nil {
		return map[string]any{"synthesis": s}
	}
	return nil
}

// validateSynthesis applies AIPerf 0.13's bounds: its CLI's (multipliers
// >= 0, root multiplier and limits >= 1) and, with --input-file, its
// SynthesisConfig's (speedup, prefix and prompt multipliers > 0). The
// bailian_trace and burst_gpt_trace loaders do not apply the flags yet
// (AIPerf's do), so they are refused there rather than ignored.
func (c *RunConfig) validateSynthesis(add adder) {
	given := ""
	for _, o := range c.synthesisOptions() {
		switch {
		case o.f != nil:
			given = o.flag
			v := *o.f
			switch {
			case math.IsNaN(v) || math.IsInf(v, 0):
				add("%s must be a finite number (got %v)", o.flag, v)
			case v < 0:
				add("%s must be >= 0 (got %v)", o.flag, v)
			case v == 0 && o.positive && c.InputFile != "":
				add("%s must be > 0 with --input-file (got 0)", o.flag)
			}
		case o.i != nil:
			given = o.flag
			if *o.i < o.minInt {
				add("%s must be >= %d (got %d)", o.flag, o.minInt, *o.i)
			}
		}
	}
	if given != "" && c.InputFile != "" && (c.CustomDatasetType == DatasetBailianTrace || c.CustomDatasetType == DatasetBurstGPTTrace) {
		add("%s is not supported yet with --custom-dataset-type %s: only mooncake_trace applies the --synthesis-* options", given, c.CustomDatasetType)
	}
}
