package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/aiperf-go/aiperf/core/app"
	"github.com/aiperf-go/aiperf/core/compare"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/consoleexporter/metricstable"
	"github.com/aiperf-go/aiperf/plugins/builtin/consoleexporter/metricstable/richtable"
	"github.com/spf13/cobra"
)

type compareOptions struct {
	jsonFile   string
	level      float64
	tolerances []string
	resamples  int
	seed       uint64
}

// newCompareCmd is `aiperf compare BASELINE CANDIDATE` (ours; issue 14):
// per metric the candidate's difference from the baseline with a
// confidence interval from the records, significant only when the interval
// excludes 0, and exit status app.ExitRegression for significant
// regressions beyond a --tolerance.
func newCompareCmd() *cobra.Command {
	var o compareOptions
	cmd := &cobra.Command{
		Use:   "compare BASELINE CANDIDATE",
		Short: "Compare two runs: differences with confidence intervals and regression gates",
		Long: "Compare two runs' artifact directories (profile_export_aiperf.json and profile_export.jsonl as\n" +
			"`aiperf profile` writes them). For each per-request metric of both runs (TTFT, ITL, request latency,\n" +
			"OSL, ISL, ...) it shows candidate − baseline for avg, p50, p90 and p99 with a confidence interval\n" +
			"computed from the records (avg: Welch's t interval; percentiles: a seeded percentile bootstrap), the\n" +
			"relative difference and whether it is significant (the interval excludes 0). Run-level metrics\n" +
			"(request and output token throughput) show the difference alone. Runs of different endpoint types or\n" +
			"streaming settings are refused.\n\n" +
			"--tolerance metric:stat:VALUE gates a statistic: a significant difference in the worse direction\n" +
			"(by the metric's LARGER_IS_BETTER flag) beyond VALUE — a percentage of the baseline (5%) or an amount\n" +
			fmt.Sprintf("in the metric's unit (2) — is a regression, and the command exits with status %d.", exitRegression),
		Example: "  aiperf compare artifacts/before artifacts/after\n" +
			"  aiperf compare base cand --tolerance time_to_first_token:p99:+5% --tolerance output_token_throughput:avg:-3% --json diff.json",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCompare(cmd, args[0], args[1], o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.jsonFile, "json", "", "Write the comparison as JSON to this file.")
	f.Float64Var(&o.level, "confidence-level", compare.DefaultConfidenceLevel, "Confidence level of the intervals, between 0 and 1.")
	f.StringArrayVar(&o.tolerances, "tolerance", nil, "Regression gate metric:stat:VALUE (repeatable), stat one of "+
		strings.Join(compare.Stats, ", ")+"; VALUE a percentage of the baseline (+5%) or an amount in the metric's unit (+2). "+
		"The sign, optional for known metrics, is the direction of a regression: + an increase, - a decrease.")
	f.IntVar(&o.resamples, "bootstrap-resamples", compare.DefaultResamples, "Bootstrap resamples of each run for the percentile intervals.")
	f.Uint64Var(&o.seed, "random-seed", 0, "Seed of the bootstrap: the same runs and seed give the same intervals.")
	return cmd
}

func runCompare(cmd *cobra.Command, baseDir, candDir string, o compareOptions) error {
	var tols []compare.Tolerance
	for _, s := range o.tolerances {
		t, err := compare.ParseTolerance(s)
		if err != nil {
			return err
		}
		tols = append(tols, t)
	}
	if o.resamples < 1 {
		return fmt.Errorf("--bootstrap-resamples %d: want at least 1", o.resamples)
	}
	base, err := compare.ReadRun(baseDir)
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	cand, err := compare.ReadRun(candDir)
	if err != nil {
		return fmt.Errorf("candidate: %w", err)
	}
	if err := compare.CheckComparable(base, cand); err != nil {
		return err
	}
	specs, err := compareSpecs(base.EndpointType, base.Streaming)
	if err != nil {
		return err
	}
	res, err := compare.Compare(base, cand, compare.Options{
		ConfidenceLevel: o.level, Resamples: o.resamples, Seed: o.seed, Specs: specs, Tolerances: tols,
	})
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if err := renderComparison(out, res, metricstable.IsColorTerminal(out)); err != nil {
		return err
	}
	if o.jsonFile != "" {
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return fmt.Errorf("--json %s: %w", o.jsonFile, err)
		}
		if err := os.WriteFile(o.jsonFile, append(b, '\n'), 0o644); err != nil {
			return fmt.Errorf("--json %s: %w", o.jsonFile, err)
		}
		fmt.Fprintf(out, "JSON Export: %s\n", o.jsonFile)
	}
	if len(res.Regressions) > 0 {
		return exitError{code: exitRegression}
	}
	return nil
}

// compareSpecs are the built-in metrics' specs (headers, display order,
// console visibility, LARGER_IS_BETTER) by tag.
func compareSpecs(endpointType string, streaming bool) (map[string]sdk.MetricSpec, error) {
	reg, err := embeddedRegistry()
	if err != nil {
		return nil, err
	}
	list, _ := reportMetricSpecs(reg, endpointType, streaming)
	specs := make(map[string]sdk.MetricSpec, len(list))
	for _, s := range list {
		specs[s.Tag] = s
	}
	return specs, nil
}

// renderComparison prints the runs, the comparison table in the metrics
// table's style, how the intervals were computed, notes and regressions.
func renderComparison(w io.Writer, res *compare.Result, color bool) error {
	var b strings.Builder
	for _, s := range []struct {
		name string
		side compare.Side
	}{{"Baseline: ", res.Baseline}, {"Candidate:", res.Candidate}} {
		streaming := "non-streaming"
		if s.side.Streaming {
			streaming = "streaming"
		}
		fmt.Fprintf(&b, "%s %s (%s, %s %s, %d requests)\n", s.name, s.side.Dir, s.side.Model, s.side.EndpointType, streaming, s.side.Requests)
	}
	if _, err := io.WriteString(w, "\n"+b.String()); err != nil {
		return err
	}
	pct := compare.LevelPercent(res.ConfidenceLevel)
	gated := false
	for _, m := range res.Metrics {
		for _, s := range m.Stats {
			gated = gated || s.Tolerance != ""
		}
	}
	tbl := &richtable.Table{Title: "NVIDIA AIPerf | Comparison: candidate − baseline", TitleStyle: richtable.Italic}
	tbl.Columns = []richtable.Column{{Header: "Metric", Align: richtable.Right, Style: richtable.Cyan}, {Header: "stat", Align: richtable.Left}}
	for _, h := range []string{"baseline", "candidate", "diff", "diff %", pct + "% CI"} {
		tbl.Columns = append(tbl.Columns, richtable.Column{Header: h, Align: richtable.Right, Style: richtable.Green})
	}
	tbl.Columns = append(tbl.Columns, richtable.Column{Header: "verdict", Align: richtable.Left})
	if gated {
		tbl.Columns = append(tbl.Columns, richtable.Column{Header: "tolerance", Align: richtable.Left})
	}
	for _, m := range res.Metrics {
		if !m.Console {
			continue
		}
		label := metricstable.Label(&sdk.MetricResult{Header: m.Header, Unit: m.Unit})
		for i, s := range m.Stats {
			row := []richtable.Cell{{}, {Text: s.Stat}, num(s.Baseline, false), num(s.Candidate, false), num(s.Diff, true)}
			if i == 0 {
				row[0].Text = label
			}
			if s.DiffPct != nil {
				row = append(row, richtable.Cell{Text: signedNum(*s.DiffPct) + "%"})
			} else {
				row = append(row, richtable.Cell{Text: "N/A", Style: richtable.Dim})
			}
			if s.CILow != nil {
				row = append(row, richtable.Cell{Text: "[" + signedNum(*s.CILow) + ", " + signedNum(*s.CIHigh) + "]"})
			} else {
				row = append(row, richtable.Cell{Text: "N/A", Style: richtable.Dim})
			}
			row = append(row, verdictCell(m.Kind, s))
			if gated {
				row = append(row, toleranceCell(s))
			}
			tbl.Rows = append(tbl.Rows, row)
		}
	}
	if len(tbl.Rows) > 0 {
		if err := tbl.Render(w, color); err != nil {
			return err
		}
	}
	b.Reset()
	fmt.Fprintf(&b, "Intervals: avg by Welch's t interval; p50/p90/p99 by percentile bootstrap (%d resamples of each run, seed %d), "+
		"where each run has at least %d records beyond the percentile; run-level metrics have one value per run and no interval.\n"+
		"Significant: the %s%% interval of candidate − baseline excludes 0.\n",
		res.Methods.Resamples, res.Methods.Seed, res.Methods.MinTail, pct)
	for _, n := range res.Notes {
		fmt.Fprintf(&b, "Note: %s\n", n)
	}
	if len(res.Regressions) > 0 {
		fmt.Fprintf(&b, "Regressions beyond tolerance (exit status %d):\n", exitRegression)
		for _, r := range res.Regressions {
			fmt.Fprintf(&b, "  - %s\n", r)
		}
	} else if gated {
		b.WriteString("No regression beyond tolerance.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func num(v float64, signed bool) richtable.Cell {
	if signed {
		return richtable.Cell{Text: signedNum(v)}
	}
	return metricstable.ValueCell(&v)
}

// signedNum is FormatNumber with a "+" on positive values.
func signedNum(v float64) string {
	s := metricstable.FormatNumber(v)
	if v > 0 {
		return "+" + s
	}
	return s
}

func verdictCell(kind string, s compare.StatDiff) richtable.Cell {
	switch s.Verdict {
	case compare.VerdictBetter:
		return richtable.Cell{Text: "better", Style: richtable.Green}
	case compare.VerdictWorse:
		return richtable.Cell{Text: "worse", Style: richtable.Yellow}
	case compare.VerdictChanged:
		return richtable.Cell{Text: "changed", Style: richtable.Yellow}
	case compare.VerdictUnchanged:
		return richtable.Cell{Text: "not significant", Style: richtable.Dim}
	}
	if kind == compare.KindRunLevel {
		return richtable.Cell{Text: "run-level", Style: richtable.Dim}
	}
	return richtable.Cell{Text: "too few records", Style: richtable.Dim}
}

func toleranceCell(s compare.StatDiff) richtable.Cell {
	switch {
	case s.Tolerance == "":
		return richtable.Cell{}
	case s.Regression:
		return richtable.Cell{Text: s.Tolerance + " REGRESSION", Style: richtable.Red}
	}
	return richtable.Cell{Text: s.Tolerance + " pass", Style: richtable.Green}
}

// exitRegression is the exit status of a comparison with regressions.
const exitRegression = app.ExitRegression
