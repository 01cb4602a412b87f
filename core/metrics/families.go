package metrics

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// This file holds what Add and Summarize do for AIPerf 0.13's metric
// families beyond the plain record series (docs/METRICS.md §2.4): the
// per-record counters (osl_mismatch_count, usage_discrepancy_count,
// context_overflow_count), the derived latencies of every record
// (credit_to_start_latency, effective_latency) and the error-adjusted
// statistics (adj_*).

// Thresholds are AIPerf's tolerances for the mismatch counters, settable
// like AIPerf's through its environment variables.
type Thresholds struct {
	// OSLMismatchPct and OSLMismatchMaxTokens bound how far a record's
	// output length may miss the requested max tokens:
	// min(requested × pct/100, max tokens). AIPerf: 5 %, 50 tokens.
	OSLMismatchPct       float64
	OSLMismatchMaxTokens int
	// UsageDiffPct is the largest usage-vs-client token difference (%)
	// that is not a discrepancy. AIPerf: 10 %.
	UsageDiffPct float64
}

// The environment variables AIPerf reads the thresholds from
// (Environment.METRICS).
const (
	EnvOSLMismatchPct       = "AIPERF_METRICS_OSL_MISMATCH_PCT_THRESHOLD"
	EnvOSLMismatchMaxTokens = "AIPERF_METRICS_OSL_MISMATCH_MAX_TOKEN_THRESHOLD"
	EnvUsageDiffPct         = "AIPERF_METRICS_USAGE_PCT_DIFF_THRESHOLD"
)

// DefaultThresholds are AIPerf 0.13's defaults.
func DefaultThresholds() Thresholds {
	return Thresholds{OSLMismatchPct: 5, OSLMismatchMaxTokens: 50, UsageDiffPct: 10}
}

// ThresholdsFromEnv reads the thresholds' environment variables (getenv is
// os.Getenv outside tests); unset or empty ones keep their defaults. A
// value out of AIPerf's range (percentages in [0, 100], max tokens >= 1)
// is an error, as it is for AIPerf.
func ThresholdsFromEnv(getenv func(string) string) (Thresholds, error) {
	th := DefaultThresholds()
	pct := func(name string, dst *float64) error {
		raw := strings.TrimSpace(getenv(name))
		if raw == "" {
			return nil
		}
		v, err := strconv.ParseFloat(raw, 64)
		if err != nil || math.IsNaN(v) || v < 0 || v > 100 {
			return fmt.Errorf("metrics: %s=%q: want a percentage in [0, 100]", name, raw)
		}
		*dst = v
		return nil
	}
	if err := pct(EnvOSLMismatchPct, &th.OSLMismatchPct); err != nil {
		return th, err
	}
	if err := pct(EnvUsageDiffPct, &th.UsageDiffPct); err != nil {
		return th, err
	}
	if raw := strings.TrimSpace(getenv(EnvOSLMismatchMaxTokens)); raw != "" {
		v, err := strconv.Atoi(raw)
		if err != nil || v < 1 {
			return th, fmt.Errorf("metrics: %s=%q: want a whole number of tokens >= 1", EnvOSLMismatchMaxTokens, raw)
		}
		th.OSLMismatchMaxTokens = v
	}
	return th, nil
}

// OSLMismatch reports whether an output of actual tokens misses requested
// by more than AIPerf's tolerance, min(requested × pct/100, max tokens).
func (th Thresholds) OSLMismatch(requested, actual float64) bool {
	tol := min(requested*(th.OSLMismatchPct/100), float64(th.OSLMismatchMaxTokens))
	return math.Abs(actual-requested) > tol
}

// recordValues are the values of one record Add reads beyond storing them.
type recordValues struct {
	has                                  uint8 // one bit per role
	latency, osl, oslDiff                float64
	promptDiff, completionDiff, reasDiff float64
}

const (
	hasLatency uint8 = 1 << iota
	hasOSL
	hasOSLDiff
	hasPromptDiff
	hasCompletionDiff
	hasReasoningDiff
)

// responseEnd is the record's max_response_timestamp contribution: its
// start plus its request latency, when it has one.
func (v *recordValues) responseEnd(rec *sdk.RequestRecord) (int64, bool) {
	if v.has&hasLatency == 0 {
		return 0, false
	}
	return rec.TimestampNs + int64(v.latency), true
}

func (v *recordValues) note(r valueRole, x float64) {
	switch r {
	case roleLatency:
		v.latency, v.has = x, v.has|hasLatency
	case roleOSL:
		v.osl, v.has = x, v.has|hasOSL
	case roleOSLDiff:
		v.oslDiff, v.has = x, v.has|hasOSLDiff
	case rolePromptDiff:
		v.promptDiff, v.has = x, v.has|hasPromptDiff
	case roleCompletionDiff:
		v.completionDiff, v.has = x, v.has|hasCompletionDiff
	case roleReasoningDiff:
		v.reasDiff, v.has = x, v.has|hasReasoningDiff
	}
}

// counter is an AIPerf aggregate counter: the sum of 0/1 contributions,
// absent until one record contributed.
type counter struct{ n, seen int64 }

func (c *counter) add(hit bool) {
	c.seen++
	if hit {
		c.n++
	}
}

// familyCounter indexes the families' counters.
type familyCounter int

const (
	fcOSLMismatch familyCounter = iota
	fcUsageDiscrepancy
	fcContextOverflow
	numFamilyCounters
)

// familyCounterMetrics are the run-level metrics the counters are reported
// as, by familyCounter.
var familyCounterMetrics = [numFamilyCounters]runLevelIdx{
	fcOSLMismatch: rlOSLMismatchCount, fcUsageDiscrepancy: rlUsageDiscrepancyCount, fcContextOverflow: rlContextOverflowCount,
}

// families is the accumulator state of the metric families.
type families struct {
	th                                  Thresholds
	oslMismatch, usageDisc, ctxOverflow counter
	creditToStart, effectiveLatency     series
	// Which of them apply to the run (the catalog is fixed).
	timingOn, oslOn, usageOn, overflowsOn bool
}

func newFamilies(cat *Catalog, th Thresholds) families {
	on := func(i runLevelIdx) bool { return cat.on[cat.runLevelID(i)] }
	return families{
		th:          th,
		timingOn:    on(rlCreditToStartLatency) || on(rlEffectiveLatency),
		oslOn:       on(rlOSLMismatchCount),
		usageOn:     on(rlUsageDiscrepancyCount),
		overflowsOn: on(rlContextOverflowCount),
	}
}

// counters returns the counters by familyCounter.
func (f *families) counters() [numFamilyCounters]counter {
	return [numFamilyCounters]counter{
		fcOSLMismatch: f.oslMismatch, fcUsageDiscrepancy: f.usageDisc, fcContextOverflow: f.ctxOverflow,
	}
}

// timing is a derived latency's run-level metric and its values.
type timing struct {
	i runLevelIdx
	s *series
}

func (f *families) timings() [2]timing {
	return [2]timing{{rlCreditToStartLatency, &f.creditToStart}, {rlEffectiveLatency, &f.effectiveLatency}}
}

// addTiming adds a record's derived latencies (AIPerf derived_latency.py):
// every record with a credit issue time counts, failed ones included, and a
// negative difference is clamped to 0 as AIPerf does (np.maximum(delta, 0)).
func (f *families) addTiming(rec *sdk.RequestRecord) {
	if !f.timingOn || rec.CreditIssuedNs == 0 {
		return
	}
	if rec.StartPerfNs != 0 {
		f.creditToStart.add(float64(max(rec.StartPerfNs-rec.CreditIssuedNs, 0)))
	}
	if rec.EndPerfNs != 0 {
		f.effectiveLatency.add(float64(max(rec.EndPerfNs-rec.CreditIssuedNs, 0)))
	}
}

// addValid adds a successful record's contributions to the counters. As in
// AIPerf, a counter only counts records whose inputs exist: the OSL
// mismatch needs the requested max tokens, the OSL and its difference; the
// usage discrepancy needs the prompt difference and, unless that one is
// already over the threshold, the completion difference (the reasoning one
// is optional).
func (f *families) addValid(rec *sdk.RequestRecord, v *recordValues) {
	if f.oslOn && rec.RequestedOutputTokens != nil && v.has&(hasOSL|hasOSLDiff) == hasOSL|hasOSLDiff {
		f.oslMismatch.add(f.th.OSLMismatch(float64(*rec.RequestedOutputTokens), v.osl))
	}
	if f.usageOn && v.has&hasPromptDiff != 0 {
		thr := f.th.UsageDiffPct
		switch {
		case v.promptDiff > thr:
			f.usageDisc.add(true)
		case v.has&hasCompletionDiff != 0:
			f.usageDisc.add(v.completionDiff > thr || v.has&hasReasoningDiff != 0 && v.reasDiff > thr)
		}
	}
}

// addFailed adds a failed record's contribution to context_overflow_count.
func (f *families) addFailed(e *sdk.ErrorDetails) {
	if f.overflowsOn {
		f.ctxOverflow.add(e != nil && IsContextOverflow(e.Message))
	}
}

// contextOverflowSubstrings is AIPerf's default allowlist
// (Environment.AGENTX.CONTEXT_OVERFLOW_SUBSTRINGS), matched case-insensitively.
var contextOverflowSubstrings = []string{"context length", "maximum context", "context_length_exceeded", "prompt is too long"}

// IsContextOverflow classifies an error body as a context overflow, as
// AIPerf's is_context_overflow_response: an allowlisted substring in the
// body, or in its OpenAI-style error.message (or string error).
func IsContextOverflow(body string) bool {
	if body == "" {
		return false
	}
	if containsOverflow(body) {
		return true
	}
	var parsed struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal([]byte(body), &parsed) != nil || len(parsed.Error) == 0 {
		return false
	}
	var msg string
	if json.Unmarshal(parsed.Error, &msg) != nil {
		var obj struct {
			Message *string `json:"message"`
		}
		if json.Unmarshal(parsed.Error, &obj) != nil || obj.Message == nil {
			return false
		}
		msg = *obj.Message
	}
	return containsOverflow(msg)
}

func containsOverflow(s string) bool {
	lower := strings.ToLower(s)
	for _, needle := range contextOverflowSubstrings {
		if strings.Contains(lower, needle) {
			return true
		}
	}
	return false
}

// adjusted is an adj_* result with its metric's display order.
type adjusted struct {
	order int
	res   sdk.MetricResult
}

func adjustedOf(e *entry, sorted []float64, failed int64) adjusted {
	return adjusted{order: e.order, res: adjustedResult(e, sorted, failed)}
}

// adjQuantiles are the percentiles of an adj_* result, in MetricResult order.
var adjQuantiles = [9]float64{1, 5, 10, 25, 50, 75, 90, 95, 99}

// adjustedResult is AIPerf's error-adjusted view of a record metric flagged
// PERCENTILE_INCLUDES_FAILED_REQUESTS (derived_latency.py): the successful
// values plus one +inf per failed record, percentiles by numpy's "nearest"
// method (index round-half-even(q/100 × (n−1))), count n. Stats that come
// out non-finite (avg, sum, max, the upper percentiles once they reach a
// failure) and std (undefined) are left out, as AIPerf's JSON export drops
// them. sorted are the successful values in base units, ascending.
func adjustedResult(e *entry, sorted []float64, failed int64) sdk.MetricResult {
	return adjustedRanks(e, int64(len(sorted)), func(i int64) float64 { return sorted[i] }, failed)
}

// adjustedRanks is adjustedResult over count successful values whose
// value of rank i (ascending, base units) is at(i): the sorted values, or
// a sharded run's merged digest (partial.go).
func adjustedRanks(e *entry, count int64, at func(int64) float64, failed int64) sdk.MetricResult {
	n := count + failed
	var p [9]*float64
	for i, q := range adjQuantiles {
		idx := int64(math.RoundToEven(float64(n-1) * (q / 100)))
		if idx < count {
			v := e.toDisplay(at(idx))
			p[i] = &v
		}
	}
	minV := e.toDisplay(at(0))
	return sdk.MetricResult{
		Tag: "adj_" + e.Tag, Header: e.Header + " (error-adjusted)", Unit: e.Display(),
		Flags: e.Flags &^ sdk.FlagPercentileIncludesFailedRequests, DisplayOrder: NoDisplayOrder, Integer: e.Integer,
		Min: &minV, P1: p[0], P5: p[1], P10: p[2], P25: p[3], P50: p[4], P75: p[5], P90: p[6], P95: p[7], P99: p[8],
		Count: &n,
	}
}
