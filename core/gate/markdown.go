package gate

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/core/metrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// summaryMetrics are the key metrics of the Markdown summary, in order;
// those the run has no value for are left out, and every thresholded metric
// is added after them.
var summaryMetrics = []string{
	"time_to_first_token", "inter_token_latency", "request_latency", "output_token_throughput_per_user",
	"input_sequence_length", "output_sequence_length", "request_throughput", "output_token_throughput",
	"goodput", metrics.TagRequestCount, metrics.TagErrorRequestCount, metrics.TagRequestErrorRate,
}

// summaryStats are the columns of a metric with full statistics.
var summaryStats = []string{"avg", "min", "p50", "p90", "p99", "max"}

// Markdown renders the report as GitHub-flavoured Markdown: a verdict
// heading, the run's properties, a table of the key metrics and, when there
// are any, a table of the thresholds with what was measured.
func (r *Report) Markdown() []byte {
	var b strings.Builder
	mark := "✅"
	if r.ExitCode != 0 {
		mark = "❌"
	}
	title := r.Title
	if title == "" {
		title = "aiperf profile"
	}
	fmt.Fprintf(&b, "### %s %s: %s (exit %d)\n\n", mark, mdEscape(title), r.Verdict, r.ExitCode)
	ok, failed := r.counts()
	facts := []string{fmt.Sprintf("%d requests succeeded, %d failed", ok, failed)}
	if d := r.durationS(); d > 0 {
		facts = append(facts, fmt.Sprintf("%.2f s", d))
	}
	if r.Abort != nil {
		facts = append(facts, "stopped early: "+mdEscape(r.Abort.Error()))
	} else if r.Cancelled {
		facts = append(facts, "cancelled before it finished (partial results)")
	}
	for _, p := range r.Properties {
		facts = append(facts, p[0]+" `"+strings.ReplaceAll(p[1], "`", "'")+"`")
	}
	b.WriteString(strings.Join(facts, " · "))
	b.WriteString("\n\n")

	if rows := r.metricRows(); len(rows) > 0 {
		b.WriteString("| Metric | Unit | " + strings.Join(summaryStats, " | ") + " |\n")
		b.WriteString("|---|---|" + strings.Repeat("---:|", len(summaryStats)) + "\n")
		for _, m := range rows {
			cells := make([]string, len(summaryStats))
			for i, s := range summaryStats {
				if v, ok := stat(&m, s); ok {
					cells[i] = fmtNumber2(v)
				}
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", mdEscape(header(m)), mdEscape(m.Unit), strings.Join(cells, " | "))
		}
		b.WriteString("\n")
	}

	if len(r.Thresholds) > 0 || r.FailedRequestThreshold != nil {
		b.WriteString("| Check | Measured | Result |\n|---|---:|---|\n")
		if lim := r.FailedRequestThreshold; lim != nil {
			measured, result := "", "✅ pass"
			if total := ok + failed; total > 0 {
				measured = fmt.Sprintf("%d/%d = %s", failed, total, fmtNumber(float64(failed)/float64(total)))
			}
			if a := r.Abort; a != nil && a.Threshold == nil {
				measured = fmt.Sprintf("%d/%d = %s when it stopped the run", a.Errors, a.Records, fmtNumber(a.Ratio()))
				result = "❌ exceeded"
			}
			fmt.Fprintf(&b, "| `--failed-request-threshold %s` | %s | %s |\n", strconv.FormatFloat(*lim, 'g', -1, 64), measured, result)
		}
		for _, o := range r.Thresholds {
			measured, result := "—", "✅ pass"
			if o.Measurable {
				measured = fmtValue(o.Measured, o.Unit)
			}
			if !o.Passed {
				result = "❌ breached"
				if !o.Measurable {
					result = "❌ not measured"
				}
			}
			if o.Note != "" {
				result += " (" + mdEscape(o.Note) + ")"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", o.Threshold.String(), mdEscape(measured), result)
		}
		b.WriteString("\n")
	}
	return []byte(b.String())
}

// metricRows are the summary's metrics that have a value, key metrics
// first, then the thresholded ones.
func (r *Report) metricRows() []sdk.MetricResult {
	if r.Results == nil {
		return nil
	}
	tags := slices.Clone(summaryMetrics)
	for _, o := range r.Thresholds {
		if !slices.Contains(tags, o.Metric) {
			tags = append(tags, o.Metric)
		}
	}
	var out []sdk.MetricResult
	for _, tag := range tags {
		if m, ok := r.Results.Metric(tag); ok {
			out = append(out, m)
		}
	}
	return out
}

// header is a metric's display name, its tag when it has none.
func header(m sdk.MetricResult) string {
	if m.Header != "" {
		return m.Header
	}
	return m.Tag
}

// AppendMarkdown appends the summary to path, creating it (and its
// directory) when missing: GitHub's $GITHUB_STEP_SUMMARY is a file each
// step appends to, so an earlier summary of the same step is kept.
func (r *Report) AppendMarkdown(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("--markdown-summary %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("--markdown-summary: %w", err)
	}
	if _, err := f.Write(r.Markdown()); err != nil {
		f.Close()
		return fmt.Errorf("--markdown-summary: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--markdown-summary: %w", err)
	}
	return nil
}

// mdEscape keeps text from breaking a table cell.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}

// fmtNumber2 prints a table value with two decimals (whole numbers bare).
func fmtNumber2(v float64) string {
	if v == float64(int64(v)) && v < 1e15 && v > -1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}
