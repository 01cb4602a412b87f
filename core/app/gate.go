package app

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/core/config"
	"github.com/aiperf-go/aiperf/core/gate"
	"github.com/aiperf-go/aiperf/core/live"
	"github.com/aiperf-go/aiperf/core/records"
	"github.com/aiperf-go/aiperf/core/validity"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// GateSettings are the CI gate's settings (core/gate).
type GateSettings struct {
	// Thresholds are the parsed --threshold expressions.
	Thresholds []gate.Threshold
	// FailedRequestThreshold is --failed-request-threshold (nil: unset).
	FailedRequestThreshold *float64
	// AbortOnBreach is --abort-on-threshold-breach.
	AbortOnBreach bool
	// JUnitPath (--junit) and MarkdownPath (--markdown-summary) are the
	// report files; "" writes none.
	JUnitPath    string
	MarkdownPath string
	// FailOnClientLimited is --fail-on-client-limited (validity.go).
	FailOnClientLimited bool
}

// active reports whether any gate setting was given.
func (g *GateSettings) active() bool {
	return len(g.Thresholds) > 0 || g.FailedRequestThreshold != nil || g.JUnitPath != "" || g.MarkdownPath != ""
}

// gateSettings derives the gate settings from a validated configuration.
func gateSettings(cfg *config.RunConfig) (GateSettings, error) {
	ts, err := gate.ParseThresholds(cfg.Thresholds)
	if err != nil {
		return GateSettings{}, fmt.Errorf("--threshold %w", err)
	}
	return GateSettings{Thresholds: ts, FailedRequestThreshold: cfg.FailedRequestThreshold,
		AbortOnBreach: cfg.AbortOnThresholdBreach, JUnitPath: cfg.JUnitFile, MarkdownPath: cfg.MarkdownSummary,
		FailOnClientLimited: cfg.FailOnClientLimited}, nil
}

// newWatch builds the watch that stops the run early (nil when nothing is
// watched); it cancels the run with the *gate.Abort as cause.
func (r *Runner) newWatch(stop func(error)) *gate.Watch {
	g := r.Settings.Gate
	return gate.NewWatch(gate.WatchConfig{
		FailedRequestThreshold: g.FailedRequestThreshold, Concurrency: r.Settings.Profiling.Concurrency,
		Thresholds: g.Thresholds, AbortOnBreach: g.AbortOnBreach,
	}, func(cause error) {
		// AIPerf logs a warning and cancels the profiling phase: in-flight
		// requests are cancelled, and what was measured is exported.
		r.Log.Warn(cause.Error())
		stop(cause)
	})
}

// collectorHooks are what the record collector calls for every record after
// the accumulators: the live display's tap, the gate's watch and the
// validity collector, those the run has.
func collectorHooks(tap *live.Tap, w *gate.Watch, v *validity.Collector) []records.Hook {
	var hooks []records.Hook
	if tap != nil {
		hooks = append(hooks, tap)
	}
	if w != nil {
		hooks = append(hooks, w)
	}
	if v != nil {
		hooks = append(hooks, v)
	}
	return hooks
}

// gateVerdict decides the exit status from the results, the watch and the
// thresholds, writes the CI reports and adds them to the exported files.
func (r *Runner) gateVerdict(out *Outcome, trip *gate.Abort) error {
	g := &r.Settings.Gate
	res := out.Results
	out.Thresholds = gate.Evaluate(g.Thresholds, res)
	trip.Mark(out.Thresholds)
	out.Abort = trip
	// A cancelled run exits 0 even if nothing succeeded yet (AIPerf).
	everyFailed := !res.WasCancelled && allFailed(res)
	var breached []string
	for _, o := range out.Thresholds {
		if !o.Passed {
			breached = append(breached, checkLine(o))
		}
	}
	switch {
	case trip != nil && trip.Threshold == nil:
		out.ExitCode = ExitFailedRequests
		out.Verdict = trip.Error() + "; see the error summary above."
	case everyFailed:
		out.ExitCode = ExitFailedRequests
		out.Verdict = "Every request failed; see the error summary above."
	case len(breached) > 0:
		out.ExitCode = ExitThresholds
		out.Verdict = fmt.Sprintf("%d of %d thresholds breached:\n  %s", len(breached), len(out.Thresholds), strings.Join(breached, "\n  "))
	}
	if !g.active() {
		return nil
	}
	rep := &gate.Report{
		Title:   "aiperf profile: " + strings.Join(r.Settings.Models, ", ") + " (" + r.Settings.Plugins.Names[sdk.CategoryEndpoint] + ")",
		Results: res, Thresholds: out.Thresholds, FailedRequestThreshold: g.FailedRequestThreshold, Abort: trip,
		Cancelled: res.WasCancelled, AllFailed: everyFailed, ExitCode: out.ExitCode, Verdict: ExitMeaning(out.ExitCode),
		Properties: [][2]string{{"model", strings.Join(r.Settings.Models, ",")}, {"endpoint_type", r.Settings.Plugins.Names[sdk.CategoryEndpoint]},
			{"artifact_dir", r.Settings.ArtifactDir}},
		Timestamp: res.StartTime,
	}
	var errs []error
	if g.JUnitPath != "" {
		if err := rep.WriteJUnit(g.JUnitPath); err != nil {
			errs = append(errs, err)
		} else {
			out.Exported = append(out.Exported, sdk.ExportedFile{Label: "JUnit Report", Path: g.JUnitPath})
		}
	}
	if g.MarkdownPath != "" {
		if err := rep.AppendMarkdown(g.MarkdownPath); err != nil {
			errs = append(errs, err)
		} else {
			out.Exported = append(out.Exported, sdk.ExportedFile{Label: "Markdown Summary", Path: g.MarkdownPath})
		}
	}
	return errors.Join(errs...)
}

// checkLine is one threshold and what was measured, for the console.
func checkLine(o gate.Outcome) string {
	if !o.Measurable {
		return o.Threshold.String() + ": not measured (" + o.Note + ")"
	}
	line := o.Threshold.String() + ": measured " + strconv.FormatFloat(o.Measured, 'g', 6, 64)
	if o.Unit != "" {
		line += " " + o.Unit
	}
	if o.Note != "" {
		line += " (" + o.Note + ")"
	}
	return line
}

// printGate prints the gate's checks after the footer: one line per check.
func (r *Runner) printGate(w io.Writer, out *Outcome) {
	g := &r.Settings.Gate
	if len(out.Thresholds) == 0 && g.FailedRequestThreshold == nil {
		return
	}
	fmt.Fprintln(w, "\nCI Gate:")
	if lim := g.FailedRequestThreshold; lim != nil {
		status := "PASS"
		detail := "not exceeded"
		if a := out.Abort; a != nil && a.Threshold == nil {
			status, detail = "FAIL", fmt.Sprintf("%d/%d = %.3f > %g: the run was stopped", a.Errors, a.Records, a.Ratio(), *lim)
			if a.AfterRun {
				detail = fmt.Sprintf("%d/%d = %.3f > %g over the whole run", a.Errors, a.Records, a.Ratio(), *lim)
			}
		}
		fmt.Fprintf(w, "  %s --failed-request-threshold %g: %s\n", status, *lim, detail)
	}
	for _, o := range out.Thresholds {
		status := "PASS"
		if !o.Passed {
			status = "FAIL"
		}
		fmt.Fprintf(w, "  %s %s\n", status, checkLine(o))
	}
	fmt.Fprintf(w, "Exit status %d (%s)\n", out.ExitCode, ExitMeaning(out.ExitCode))
}

// JudgeMerged is the gate of a sharded run, applied by the launcher to the
// merged result: the --threshold checks against the merged metrics (one
// shard's stripe never decides), the --failed-request-threshold against the
// union's failed share, and the --junit and --markdown-summary reports of
// the whole run. A shard's own watch still stops that shard early; its exit
// status reaches the launcher in the shard's report (cmd/aiperf/shards.go),
// which settles the run's exit status and then prints the checks
// (PrintGate).
func JudgeMerged(s *Settings, res *sdk.Results) (*Outcome, error) {
	r := &Runner{Settings: s}
	out := &Outcome{Results: res}
	err := r.gateVerdict(out, unionTrip(s.Gate.FailedRequestThreshold, res))
	return out, err
}

// PrintGate prints a judged run's checks and its exit status to w, as a
// single run prints them after its footer.
func PrintGate(w io.Writer, s *Settings, out *Outcome) {
	(&Runner{Settings: s}).printGate(w, out)
}

// unionTrip is the --failed-request-threshold verdict over a merged run's
// records (nil: not set or not exceeded).
func unionTrip(limit *float64, res *sdk.Results) *gate.Abort {
	if limit == nil || res == nil {
		return nil
	}
	count := func(tag string) int64 {
		if m, ok := res.Metric(tag); ok && m.Avg != nil {
			return int64(*m.Avg)
		}
		return 0
	}
	errs := count("error_request_count")
	a := &gate.Abort{Flag: "--failed-request-threshold", Limit: *limit, Errors: errs, Records: errs + count("request_count"), AfterRun: true}
	if a.Records == 0 || a.Ratio() <= *limit {
		return nil
	}
	return a
}
