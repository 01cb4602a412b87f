package aggregate

import (
	"fmt"
	"io"
	"math"
	"strings"
	"unicode"
)

// priorityMetrics and prioritySuffixes choose the key metrics of the
// console summary: per metric, the first statistic present (AIPerf's
// _PRIORITY_METRICS and _PRIORITY_STAT_SUFFIXES).
var (
	priorityMetrics  = []string{"request_throughput", "time_to_first_token", "inter_token_latency", "request_latency"}
	prioritySuffixes = []string{"avg", "p99", "max", "p50"}
)

var (
	rule80  = strings.Repeat("=", 80)
	dash80  = strings.Repeat("-", 80)
	cvGuide = []string{
		"Coefficient of Variation (CV) Interpretation Guide:",
		"  CV < 5%:   Excellent repeatability (low variance)",
		"  CV 5-10%:  Good repeatability (moderate variance)",
		"  CV 10-20%: Fair repeatability (consider more runs)",
		"  CV > 20%:  High variance (investigate or increase runs)",
	}
)

// WriteSummary prints AIPerf's "AGGREGATE STATISTICS SUMMARY" block: the
// run counts, failed runs, the confidence level and, for request
// throughput, TTFT, ITL and request latency, the mean, spread, CV and
// interval, then the interpretation guide.
func (r *Result) WriteSummary(w io.Writer) error {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	line("")
	line("%s", rule80)
	line("AGGREGATE STATISTICS SUMMARY")
	line("%s", rule80)
	line("Aggregation Type: %s", AggregationType)
	line("Total Runs: %d", r.NumRuns)
	line("Successful Runs: %d", r.NumSuccessfulRuns)
	if r.WasCancelled {
		line("Cancelled: only the runs that finished before Ctrl-C are aggregated")
	}
	if len(r.FailedRuns) > 0 {
		line("Failed Runs (%d):", len(r.FailedRuns))
		for _, f := range r.FailedRuns {
			line("  - %s: %s", f.Label, f.Error)
		}
	}
	level := percent(r.ConfidenceLevel, 0)
	line("Confidence Level: %s", level)
	line("")
	line("Key Metrics:")
	line("%s", dash80)
	shown := 0
	for _, base := range priorityMetrics {
		for _, suffix := range prioritySuffixes {
			m := r.Metric(base + "_" + suffix)
			if m == nil {
				continue
			}
			shown++
			line("\n%s (%s):", title(base), statName(suffix))
			line("  Mean:    %12.4f %s", m.Mean, m.Unit)
			line("  Std Dev: %12.4f %s", m.Std, m.Unit)
			line("  Min:     %12.4f %s", m.Min, m.Unit)
			line("  Max:     %12.4f %s", m.Max, m.Unit)
			line("  CV:      %12s", percent(m.CV, 2))
			line("  %s CI: [%.4f, %.4f] %s", level, m.CILow, m.CIHigh, m.Unit)
			break
		}
	}
	if shown == 0 {
		line("No key metrics found in aggregate results")
	}
	line("")
	line("%s", dash80)
	for _, l := range cvGuide {
		line("%s", l)
	}
	line("")
	line("Confidence Interval (CI) Interpretation:")
	line("  The %s CI indicates the range where the true mean", level)
	line("  is likely to fall with %s confidence.", level)
	line("  Narrower intervals indicate more precise estimates.")
	line("%s", rule80)
	_, err := io.WriteString(w, b.String())
	return err
}

// percent is Python's format(f, ".Nf%") spelling: inf%, nan%.
func percent(f float64, decimals int) string {
	switch {
	case math.IsNaN(f):
		return "nan%"
	case math.IsInf(f, 1):
		return "inf%"
	case math.IsInf(f, -1):
		return "-inf%"
	}
	return fmt.Sprintf("%.*f%%", decimals, f*100)
}

// title is Python's str.title() of the metric name with spaces for
// underscores: "time_to_first_token" -> "Time To First Token".
func title(name string) string {
	var b strings.Builder
	prevLetter := false
	for _, r := range strings.ReplaceAll(name, "_", " ") {
		if unicode.IsLetter(r) {
			if prevLetter {
				b.WriteRune(unicode.ToLower(r))
			} else {
				b.WriteRune(unicode.ToUpper(r))
			}
			prevLetter = true
			continue
		}
		b.WriteRune(r)
		prevLetter = false
	}
	return b.String()
}

// statName is how the summary names a statistic: Avg, P99, Max, P50.
func statName(suffix string) string {
	if suffix == "avg" {
		return "Avg"
	}
	return strings.ToUpper(suffix[:1]) + suffix[1:]
}
