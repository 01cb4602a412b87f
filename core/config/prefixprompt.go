//lint:file-ignore ST1005 the --seq-dist parse errors reproduce AIPerf 0.13's messages verbatim (capitalized).

package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// SeqDistPair is one (ISL, OSL) pair of --seq-dist: means, optional
// standard deviations and a probability in percent (AIPerf 0.13's
// common/models/sequence_distribution.py SequenceLengthPair).
type SeqDistPair struct {
	ISL         int
	ISLStddev   float64
	OSL         int
	OSLStddev   float64
	Probability float64
}

// String is AIPerf's SequenceLengthPair.__str__ ("(256,128):40.0%", with
// "|stddev" when either stddev is positive).
func (p SeqDistPair) String() string {
	if p.ISLStddev > 0 || p.OSLStddev > 0 {
		return fmt.Sprintf("(%d|%s,%d|%s):%s%%", p.ISL, pyFloat(p.ISLStddev), p.OSL, pyFloat(p.OSLStddev), pyFloat(p.Probability))
	}
	return fmt.Sprintf("(%d,%d):%s%%", p.ISL, p.OSL, pyFloat(p.Probability))
}

func (p SeqDistPair) check() error {
	switch {
	case p.ISL <= 0:
		return fmt.Errorf("Input sequence length must be positive, got %d", p.ISL)
	case p.OSL <= 0:
		return fmt.Errorf("Output sequence length must be positive, got %d", p.OSL)
	case !(p.Probability >= 0 && p.Probability <= 100):
		return fmt.Errorf("Probability must be in [0,100], got %s", pyFloat(p.Probability))
	case p.ISLStddev < 0:
		return fmt.Errorf("Input sequence length stddev must be non-negative, got %s", pyFloat(p.ISLStddev))
	case p.OSLStddev < 0:
		return fmt.Errorf("Output sequence length stddev must be non-negative, got %s", pyFloat(p.OSLStddev))
	}
	return nil
}

// AIPerf's DistributionParser patterns (numbers: 123, 123.45 or .45).
const seqNum = `(?:\d+(?:\.\d+)?|\.\d+)`

var (
	seqSemicolonRE = regexp.MustCompile(`^(\d+)(?:\|(` + seqNum + `))?\s*,\s*(\d+)(?:\|(` + seqNum + `))?\s*:\s*(` + seqNum + `)$`)
	seqBracketRE   = regexp.MustCompile(`\(\s*(\d+)(?:\|(` + seqNum + `))?\s*,\s*(\d+)(?:\|(` + seqNum + `))?\s*\)\s*:\s*(` + seqNum + `)`)
)

// ParseSeqDist parses a --seq-dist string as AIPerf 0.13's
// DistributionParser.parse does: JSON when it starts with "{"
// ({"pairs": [{"isl", "osl", "prob", optional "isl_stddev", "osl_stddev"}]}),
// the bracket form when it is wrapped in "[...]" ("[(256|10,128):40,...]"),
// else semicolon-separated "ISL[|SD],OSL[|SD]:PROB" pairs. Probabilities
// are percentages that must sum to 100 (within 1e-6). Errors carry
// AIPerf's wording ("Failed to parse distribution string '...': ...").
func ParseSeqDist(s string) ([]SeqDistPair, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("Distribution string cannot be empty")
	}
	var (
		pairs []SeqDistPair
		err   error
	)
	switch {
	case strings.HasPrefix(s, "{"):
		pairs, err = seqDistJSON(s)
	case strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]"):
		pairs, err = seqDistBracket(s[1 : len(s)-1])
	default:
		pairs, err = seqDistSemicolon(s)
	}
	if err == nil {
		err = checkSeqDistSum(pairs)
	}
	if err != nil {
		return nil, fmt.Errorf("Failed to parse distribution string '%s': %w", s, err)
	}
	return pairs, nil
}

func checkSeqDistSum(pairs []SeqDistPair) error {
	total := 0.0
	for _, p := range pairs {
		total += p.Probability
	}
	// numpy.isclose(total, 100, rtol=1e-6, atol=1e-6)
	if math.Abs(total-100) <= 1e-6+1e-6*100 {
		return nil
	}
	strs := make([]string, len(pairs))
	for i, p := range pairs {
		strs[i] = "'" + p.String() + "'"
	}
	return fmt.Errorf("Probabilities must sum to 100.0, got %.6f. Pairs: [%s]", total, strings.Join(strs, ", "))
}

// seqDistMatch builds a pair from the five groups of either pattern.
func seqDistMatch(g []string) (SeqDistPair, error) {
	isl, err1 := strconv.Atoi(g[0])
	osl, err2 := strconv.Atoi(g[2])
	if err := errors.Join(err1, err2); err != nil {
		return SeqDistPair{}, err
	}
	f := func(s string) float64 {
		if s == "" {
			return 0
		}
		v, _ := strconv.ParseFloat(s, 64) // the pattern only matches numbers
		return v
	}
	p := SeqDistPair{ISL: isl, ISLStddev: f(g[1]), OSL: osl, OSLStddev: f(g[3]), Probability: f(g[4])}
	return p, p.check()
}

func seqDistSemicolon(s string) ([]SeqDistPair, error) {
	var pairs []SeqDistPair
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		m := seqSemicolonRE.FindStringSubmatch(part)
		if m == nil {
			return nil, fmt.Errorf("Invalid pair format: '%s'. Expected 'ISL[|ISL_STDDEV],OSL[|OSL_STDDEV]:PROB'", part)
		}
		p, err := seqDistMatch(m[1:])
		if err != nil {
			return nil, err
		}
		pairs = append(pairs, p)
	}
	if len(pairs) == 0 {
		return nil, errors.New("No valid pairs found in semicolon format")
	}
	return pairs, nil
}

func seqDistBracket(s string) ([]SeqDistPair, error) {
	var pairs []SeqDistPair
	for _, m := range seqBracketRE.FindAllStringSubmatch(s, -1) {
		p, err := seqDistMatch(m[1:])
		if err != nil {
			return nil, err
		}
		pairs = append(pairs, p)
	}
	if len(pairs) == 0 {
		return nil, errors.New("No valid pairs found in bracket format")
	}
	return pairs, nil
}

func seqDistJSON(s string) ([]SeqDistPair, error) {
	var doc map[string]any
	if err := json.Unmarshal([]byte(s), &doc); err != nil {
		return nil, fmt.Errorf("Invalid JSON format: %v", err)
	}
	raw, ok := doc["pairs"]
	if !ok {
		return nil, errors.New("JSON format must contain 'pairs' key")
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, errors.New("JSON 'pairs' must be a list")
	}
	pairs := make([]SeqDistPair, 0, len(list))
	for i, item := range list {
		obj, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("Pair %d must be an object", i)
		}
		var missing []string
		for _, k := range []string{"isl", "osl", "prob"} {
			if _, ok := obj[k]; !ok {
				missing = append(missing, "'"+k+"'")
			}
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("Pair %d missing required keys: {%s}", i, strings.Join(missing, ", "))
		}
		num := func(k string) (float64, error) {
			v, ok := obj[k]
			if !ok {
				return 0, nil
			}
			switch x := v.(type) {
			case float64:
				return x, nil
			case string: // Python's int()/float() accept numeric strings
				return strconv.ParseFloat(strings.TrimSpace(x), 64)
			}
			return 0, fmt.Errorf("Pair %d: %q is not a number", i, k)
		}
		var vals [5]float64
		for j, k := range []string{"isl", "isl_stddev", "osl", "osl_stddev", "prob"} {
			v, err := num(k)
			if err != nil {
				return nil, err
			}
			vals[j] = v
		}
		p := SeqDistPair{ISL: int(vals[0]), ISLStddev: vals[1], OSL: int(vals[2]), OSLStddev: vals[3], Probability: vals[4]}
		if err := p.check(); err != nil {
			return nil, err
		}
		pairs = append(pairs, p)
	}
	return pairs, nil
}

// SeqDistPairs parses --seq-dist; nil without error when it is unset.
func (c *RunConfig) SeqDistPairs() ([]SeqDistPair, error) {
	if strings.TrimSpace(c.SequenceDistribution) == "" {
		return nil, nil
	}
	return ParseSeqDist(c.SequenceDistribution)
}

// Flag spellings AIPerf's messages use.
const (
	flagSeqDist        = "--seq-dist/--sequence-distribution"
	flagPrefixPoolSize = "--prompt-prefix-pool-size/--prefix-prompt-pool-size"
	flagPrefixLength   = "--prompt-prefix-length/--prefix-prompt-length"
)

// validatePrefixPrompts checks --seq-dist and the prefix prompt flags as
// AIPerf 0.13 does: the CLI bound (>= 0), the dataset model's bound (an
// explicit pool size or length must be >= 1: PrefixPromptConfig ge=1),
// the pool/system-prompt exclusivity, and the parse of --seq-dist. The
// system-prompt lengths need a system message the request contract lacks,
// so they are rejected as not supported yet. --prefix-prompt-length
// without a pool is rejected here (AIPerf fails later, when the first
// prompt asks the empty pool for a prefix). File datasets are rejected in
// validateFileDatasetMedia.
func (c *RunConfig) validatePrefixPrompts(add adder) {
	if c.SequenceDistribution != "" {
		if _, err := c.SeqDistPairs(); err != nil {
			add("%s: %v", flagSeqDist, err)
		}
	}
	for _, f := range []struct {
		flag string
		v    *int
	}{
		{flagPrefixPoolSize + "/--num-prefix-prompts", c.PrefixPromptPoolSize},
		{flagPrefixLength, c.PrefixPromptLength},
	} {
		switch {
		case f.v == nil:
		case *f.v < 0:
			add("%s must be >= 0 (got %d)", f.flag, *f.v)
		case *f.v == 0:
			add("%s must be >= 1 when given (got 0; AIPerf 0.13 rejects an explicit 0: leave the flag out to disable prefix prompts)", f.flag)
		}
	}
	for _, f := range []struct {
		flag string
		v    *int
	}{
		{"--shared-system-prompt-length", c.SharedSystemPromptLength},
		{"--user-context-prompt-length", c.UserContextPromptLength},
	} {
		if f.v != nil && *f.v < 1 {
			add("%s must be >= 1 (got %d)", f.flag, *f.v)
		}
	}
	pool := c.PrefixPromptPoolSize != nil || c.PrefixPromptLength != nil
	system := c.SharedSystemPromptLength != nil || c.UserContextPromptLength != nil
	if pool && system {
		add("pool_size/length and shared_system_length/user_context_length are mutually exclusive (--num-prefix-prompts/--prefix-prompt-length cannot be combined with --shared-system-prompt-length/--user-context-prompt-length)")
	}
	c.validateSystemPrompt(add, pool)
	if l := c.PrefixPromptLength; l != nil && *l > 0 && c.PrefixPromptPoolSize == nil && c.InputFile == "" {
		add("%s requires --num-prefix-prompts (the pool the prefixes are drawn from)", flagPrefixLength)
	}
}

// prefixSynthOnly are the flags of this file AIPerf rejects with
// --input-file, in its order (_FILE_DATASET_INCOMPATIBLE_TRIGGERS).
func (c *RunConfig) prefixSynthOnly() []string {
	var out []string
	if c.PrefixPromptLength != nil {
		out = append(out, flagPrefixLength)
	}
	if c.PrefixPromptPoolSize != nil {
		out = append(out, flagPrefixPoolSize)
	}
	if c.SharedSystemPromptLength != nil {
		out = append(out, "--shared-system-prompt-length")
	}
	if c.UserContextPromptLength != nil {
		out = append(out, "--user-context-prompt-length")
	}
	if c.SequenceDistribution != "" {
		out = append(out, flagSeqDist)
	}
	return out
}

// PrefixPromptSettings returns the synthetic composer's settings that
// --seq-dist and the prefix prompt flags give, by the composer's json keys:
// sequence_distribution (a list of {isl, isl_stddev, osl, osl_stddev,
// prob}), prefix_prompt_pool_size and prefix_prompt_length. Flags not given
// are omitted. Values are assumed validated.
func (c *RunConfig) PrefixPromptSettings() map[string]any {
	m := map[string]any{}
	if pairs, err := c.SeqDistPairs(); err == nil && len(pairs) > 0 {
		list := make([]any, len(pairs))
		for i, p := range pairs {
			list[i] = map[string]any{"isl": p.ISL, "isl_stddev": p.ISLStddev, "osl": p.OSL, "osl_stddev": p.OSLStddev, "prob": p.Probability}
		}
		m["sequence_distribution"] = list
	}
	putInt(m, "prefix_prompt_pool_size", c.PrefixPromptPoolSize)
	putInt(m, "prefix_prompt_length", c.PrefixPromptLength)
	putInt(m, "shared_system_prompt_length", c.SharedSystemPromptLength)
	putInt(m, "user_context_prompt_length", c.UserContextPromptLength)
	return m
}

// addPrefixPromptSections writes what AIPerf's converter dumps for these
// flags: prompts.sequence_distribution (each pair's isl and osl as
// {mean, stddev} floats and its probability) and prefix_prompts with the
// keys of the flags given (_build_prefix_prompts).
func (c *RunConfig) addPrefixPromptSections(d, prompts map[string]any) {
	if pairs, err := c.SeqDistPairs(); err == nil && len(pairs) > 0 {
		list := make([]any, len(pairs))
		for i, p := range pairs {
			list[i] = map[string]any{
				"isl":         map[string]any{"mean": float64(p.ISL), "stddev": p.ISLStddev},
				"osl":         map[string]any{"mean": float64(p.OSL), "stddev": p.OSLStddev},
				"probability": p.Probability,
			}
		}
		prompts["sequence_distribution"] = list
	}
	pp := map[string]any{}
	setInt(pp, "pool_size", c.PrefixPromptPoolSize)
	setInt(pp, "length", c.PrefixPromptLength)
	setInt(pp, "shared_system_length", c.SharedSystemPromptLength)
	setInt(pp, "user_context_length", c.UserContextPromptLength)
	if len(pp) > 0 {
		d["prefix_prompts"] = pp
	}
}

// validateSystemPrompt applies AIPerf's SystemPromptMixin and
// validate_system_prompt_compatibility rules to --system-prompt and
// --system-prompt-file, and reads the file once (a startup error, never a
// mid-run one). The endpoint rule (the text must reach the wire) needs the
// endpoint's metadata and is checked where the run is assembled.
func (c *RunConfig) validateSystemPrompt(add adder, pool bool) {
	c.ResolvedSystemPrompt = ""
	switch {
	case c.SystemPrompt == "" && c.SystemPromptFile == "":
		return
	case c.SystemPrompt != "" && c.SystemPromptFile != "":
		add("--system-prompt and --system-prompt-file are mutually exclusive; set exactly one")
		return
	case c.SharedSystemPromptLength != nil:
		add("--system-prompt/--system-prompt-file and --shared-system-prompt-length are mutually exclusive: both fill the system message. Use the first for verbatim text, the second for synthetic filler of a target token length")
		return
	case pool:
		add("--system-prompt/--system-prompt-file and --num-prefix-prompts/--prefix-prompt-length are mutually exclusive, matching --shared-system-prompt-length, which fills the same system-message slot")
		return
	}
	if c.SystemPrompt != "" {
		if strings.TrimSpace(c.SystemPrompt) == "" {
			add("--system-prompt is empty or whitespace-only; omit the option to run without a system prompt")
			return
		}
		c.ResolvedSystemPrompt = c.SystemPrompt
		return
	}
	b, err := os.ReadFile(c.SystemPromptFile)
	switch {
	case err != nil:
		add("--system-prompt-file %s could not be read: %v", c.SystemPromptFile, err)
	case !utf8.Valid(b):
		add("--system-prompt-file %s is not UTF-8 text", c.SystemPromptFile)
	case strings.TrimSpace(string(b)) == "":
		add("--system-prompt-file %s is empty or whitespace-only; omit the option to run without a system prompt", c.SystemPromptFile)
	default:
		c.ResolvedSystemPrompt = string(b)
	}
}
