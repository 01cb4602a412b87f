package config

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// Choices are the registry-backed values Validate accepts: the registered
// plugin names of each category (already normalized). A category without
// a list skips that check (the config package does not import the registry).
type Choices map[string][]string

// Validate checks every rule and returns all problems joined (one per line,
// each naming the flag, the rule and the offending value), or nil.
func (c *RunConfig) Validate(ch Choices) error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	// Endpoint
	if len(c.ModelNames) == 0 {
		add("--model-names is required (use -m/--model-names, model_names in the config file, or AIPERF_MODEL_NAMES)")
	}
	if len(c.URL) == 0 {
		add("--url must name at least one server")
	}
	for _, u := range c.URLs() {
		if err := checkURL(u); err != nil {
			add("--url %q is not valid: %v", redactURL(u), err)
		}
	}
	if c.CustomEndpoint != "" && strings.ContainsAny(c.CustomEndpoint, " \t\n") {
		add("--custom-endpoint %q must not contain whitespace", c.CustomEndpoint)
	}
	if !(c.RequestTimeoutSeconds > 0) {
		add("--request-timeout-seconds must be > 0 (got %v)", c.RequestTimeoutSeconds)
	}

	// Input
	for _, item := range c.Header {
		pairs, err := parsePairs(item, headerValue)
		if err == nil {
			err = checkHeaders(pairs)
		}
		if err != nil {
			add(`--header %q is not valid: %v (expected "Name:Value" or a JSON object)`, safeItem(item), err)
		}
	}
	for _, item := range c.ExtraInputsRaw {
		if _, err := parsePairs(item, jsonScalar); err != nil {
			add(`--extra-inputs %q is not valid: %v (expected "key:value" or a JSON object)`, safeItem(item), err)
		}
	}
	if c.RandomSeed != nil && *c.RandomSeed < 0 {
		add("--random-seed must be >= 0 (got %d)", *c.RandomSeed)
	}

	// Sequence lengths and dataset
	if c.InputTokensMean < 0 {
		add("--prompt-input-tokens-mean must be >= 0 (got %d)", c.InputTokensMean)
	}
	if c.InputTokensStddev < 0 {
		add("--prompt-input-tokens-stddev must be >= 0 (got %v)", c.InputTokensStddev)
	}
	if c.OutputTokensMean != nil && *c.OutputTokensMean < 1 {
		add("--prompt-output-tokens-mean must be >= 1 (got %d)", *c.OutputTokensMean)
	}
	if c.OutputTokensStddev < 0 {
		add("--prompt-output-tokens-stddev must be >= 0 (got %v)", c.OutputTokensStddev)
	}
	if c.NumDatasetEntries < 1 {
		add("--num-dataset-entries must be >= 1 (got %d)", c.NumDatasetEntries)
	}

	// Output
	if strings.TrimSpace(c.ArtifactDir) == "" {
		add("--output-artifact-dir must not be empty")
	}
	if !slices.Contains(exportLevels, c.ExportLevel) {
		add("--export-level %q is not valid; choose one of: %s", c.ExportLevel, strings.Join(exportLevels, ", "))
	}
	if c.ProfileExportPrefix != "" && exportStem(c.ProfileExportPrefix) == "" {
		add("--profile-export-prefix %q leaves no file name once its suffix is removed", c.ProfileExportPrefix)
	}

	// Load generator
	if c.Concurrency != nil && *c.Concurrency < 1 {
		add("--concurrency must be >= 1 (got %d)", *c.Concurrency)
	}
	if c.RequestCount != nil && *c.RequestCount < 1 {
		add("--request-count must be >= 1 (got %d)", *c.RequestCount)
	}
	if c.WarmupRequestCount != nil && *c.WarmupRequestCount <= 0 {
		add("--warmup-request-count must be > 0 (got %d)", *c.WarmupRequestCount)
	}
	if c.Concurrency != nil && c.RequestCount != nil && *c.Concurrency >= 1 && *c.RequestCount >= 1 &&
		*c.Concurrency > *c.RequestCount {
		add("--concurrency (%d) cannot be greater than --request-count (%d)", *c.Concurrency, *c.RequestCount)
	}
	c.validateChoices(add)
	c.validatePluginChoices(ch, add)
	c.validatePluginConfig(ch, add)
	c.validateRanges(add)
	c.validateModes(add)
	c.validateDataset(add)
	c.validatePublicDataset(add)
	c.validateMedia(add)
	c.validatePrefixPrompts(add)
	c.validateSynthesis(add)
	c.validateGate(add)
	c.validateMultiRun(add)
	c.validateSharding(add)
	c.validateBounds(add)

	// Service
	if !slices.Contains(logLevels, c.LogLevel) {
		add("--log-level %q is not valid; choose one of: %s", c.LogLevel, strings.Join(logLevels, ", "))
	}
	errs = append(errs, c.validateServerMetrics()...)
	errs = append(errs, c.validateGPUTelemetry()...)
	return errors.Join(errs...)
}

// checkURL rejects URLs Go's HTTP client cannot use.
func checkURL(u string) error {
	p, err := url.Parse(u)
	if err != nil {
		// url.Error repeats the raw URL (which may hold credentials).
		var ue *url.Error
		if errors.As(err, &ue) {
			return ue.Err
		}
		return err
	}
	if p.Host == "" || p.Hostname() == "" {
		return errors.New("missing host")
	}
	return nil
}

// checkHeaders enforces RFC 9110 token syntax on header names and keeps
// control characters out of values: net/http refuses to send either, so
// every request of the run would fail.
func checkHeaders(pairs []pair) error {
	for _, p := range pairs {
		if p.key == "" {
			return errors.New("empty header name")
		}
		for i := 0; i < len(p.key); i++ {
			if !isTokenChar(p.key[i]) {
				return fmt.Errorf("header name %q contains %q", p.key, p.key[i])
			}
		}
		v, _ := p.val.(string)
		for i := 0; i < len(v); i++ {
			if c := v[i]; (c < ' ' && c != '\t') || c == 0x7f {
				return fmt.Errorf("header %q: value contains control character %q", p.key, c)
			}
		}
	}
	return nil
}

func isTokenChar(c byte) bool {
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
