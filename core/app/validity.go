package app

import (
	"fmt"
	"io"
	"strings"

	"github.com/aiperf-go/aiperf/core/config"
	"github.com/aiperf-go/aiperf/core/validity"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// The run-validity verdict (core/validity, docs/METRICS.md "Run
// validity"): measured on every run, reported after the CI gate, written to
// validity.json, and an exit status only with --fail-on-client-limited.

// validityTarget is what the profiling phase asked for.
func (r *Runner) validityTarget() validity.Target {
	p := r.Settings.Profiling
	t := validity.Target{Mode: string(p.Mode), Concurrency: p.Concurrency}
	switch p.Mode {
	case config.ModeRequestRate:
		t.OpenLoop, t.Rate, t.Ramp = true, p.Rate, p.RateRamp
	case config.ModeUserCentric:
		t.OpenLoop, t.Rate = true, p.UserCentricRate
	case config.ModeFixedSchedule:
		t.OpenLoop = true
	default:
		t.Ramp = p.ConcurrencyRamp
	}
	return t
}

// newValidity is the collector the record collector feeds.
func (r *Runner) newValidity() *validity.Collector {
	return validity.NewCollector(r.validityTarget().OpenLoop)
}

// validityReport evaluates the verdict and writes validity.json; the file
// is listed with the exports.
func (r *Runner) validityReport(c *validity.Collector) (*validity.Report, []sdk.ExportedFile, error) {
	rep := validity.Evaluate(c.Input(r.validityTarget()), validity.Defaults)
	path, err := rep.WriteFile(r.Settings.ArtifactDir)
	if err != nil {
		return rep, nil, err
	}
	return rep, []sdk.ExportedFile{{Label: "Validity Report", Path: path}}, nil
}

// validityExit applies --fail-on-client-limited after the gate's verdict:
// an invalid run outranks breached thresholds, too many failed requests
// outrank it (exitcodes.go).
func (r *Runner) validityExit(out *Outcome) {
	v := out.Validity
	if v == nil || !r.Settings.Gate.FailOnClientLimited || v.Verdict == validity.Valid {
		return
	}
	if out.ExitCode != ExitOK && out.ExitCode != ExitThresholds {
		return
	}
	out.ExitCode = ExitInvalidRun
	out.Verdict = fmt.Sprintf("The run is %s (--fail-on-client-limited): %s.", v.Verdict, strings.Join(v.Reasons, "; "))
}

// printValidity prints the "Run validity" block after the CI gate's.
func (r *Runner) printValidity(w io.Writer, out *Outcome) {
	if out.Validity == nil {
		return
	}
	out.Validity.Print(w)
	// The gate's block already gave the exit status when it printed.
	g := &r.Settings.Gate
	if g.FailOnClientLimited && len(out.Thresholds) == 0 && g.FailedRequestThreshold == nil {
		fmt.Fprintf(w, "Exit status %d (%s)\n", out.ExitCode, ExitMeaning(out.ExitCode))
	}
}
