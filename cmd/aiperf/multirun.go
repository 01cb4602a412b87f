package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/core/aggregate"
	"github.com/aiperf-go/aiperf/core/app"
	"github.com/aiperf-go/aiperf/core/clock"
	"github.com/aiperf-go/aiperf/core/config"
	"github.com/aiperf-go/aiperf/internal/gcpolicy"
	"github.com/aiperf-go/aiperf/internal/pyfmt"
	"github.com/aiperf-go/aiperf/registry"
	"github.com/spf13/cobra"
)

// runProfileRuns runs a multi-run benchmark (--num-profile-runs > 1) as
// AIPerf 0.13's MultiRunOrchestrator does: the same benchmark N times, each
// run into <artifact dir>/profile_runs/run_NNNN/ with its usual files, a
// cooldown between runs, then the confidence aggregate of the successful
// runs in <artifact dir>/aggregate/ and its summary on the console.
//
// Ctrl-C stops the run in progress (its partial files are exported as in a
// single run), starts no other, and still aggregates the runs that
// finished, marked was_cancelled. The exit status is AIPerf's (1 when fewer
// than two runs succeeded, 0 after Ctrl-C), except that a run ending with
// another status than success or "every request failed" (a CI gate
// breach) passes that status on.
func runProfileRuns(ctx context.Context, cmd *cobra.Command, reg *registry.Registry, cfg *config.RunConfig, serviceKind string, rawArgs []string) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	mr := cfg.MultiRun()
	base := cfg.ArtifactDirectory(serviceKind)
	// Every run's settings are derived before anything is sent or written,
	// so a setting that cannot be resolved fails the benchmark at once.
	settings := make([]*app.Settings, mr.Runs)
	var gc gcpolicy.Tuner // started before each run's first send
	defer gc.Stop()
	for i := range settings {
		s, err := app.FromConfig(cfg.ProfileRun(aggregate.RunPath(base, i), i), serviceKind, rawArgs)
		if err != nil {
			return err
		}
		if seed := cfg.ProfileRunSeed(i); seed != nil {
			s.Seed, s.Dataset.RandomSeed = *seed, *seed
		}
		s.BeforeSend, s.AfterSend = gc.Start, gc.Settle
		settings[i] = s
	}
	logPath := filepath.Join(base, settings[0].Files.Log)
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return fmt.Errorf("create log directory: %w", err)
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return fmt.Errorf("create log file: %w", err)
	}
	defer logFile.Close()
	log := &runLog{console: stderr, file: logFile, quiet: settings[0].LogLevel > slog.LevelInfo}

	log.info("%s", strings.Repeat("=", 80))
	log.info("Starting Multi-Run Benchmark")
	log.info("  Configurations: 1")
	log.info("  Trials per config: %d", mr.Runs)
	log.info("  Total runs: %d", mr.Runs)
	log.info("  Confidence level: %.0f%%", mr.ConfidenceLevel*100)
	log.info("  Cooldown between runs: %ss", pyfmt.Float(cfg.ProfileRunCooldownSeconds))
	log.info("%s", strings.Repeat("=", 80))

	var runs []aggregate.Run
	exit, cancelled := app.ExitOK, false
	for i, s := range settings {
		if i > 0 && mr.Cooldown > 0 {
			log.info("Cooldown: %ss", pyfmt.Float(cfg.ProfileRunCooldownSeconds))
			if !clock.Sleep(ctx, mr.Cooldown) {
				cancelled = true
				break
			}
		}
		if ctx.Err() != nil {
			cancelled = true
			break
		}
		label := aggregate.RunLabel(i)
		log.info("[%d/%d] Executing %s...", i+1, mr.Runs, label)
		out, err := app.Profile(ctx, reg, s, stdout, stderr)
		// The next run builds its dataset under Go's defaults again.
		gc.Stop()
		runtime.GC()
		if ctx.Err() != nil && (out == nil || out.Results == nil || out.Results.WasCancelled) {
			// Ctrl-C: the partial run is exported but not aggregated (a
			// run that had finished measuring is kept; the loop stops
			// before the next).
			runs = append(runs, aggregate.Run{Label: label, Error: "Cancelled (Ctrl-C) before the run finished; its partial results are in " + filepath.Join(aggregate.RunsDir, label)})
			cancelled = true
			break
		}
		if err != nil && out == nil {
			if i == 0 {
				return err // a setup problem every run would hit
			}
			log.errorf("%s: %v", label, err)
			runs = append(runs, aggregate.Run{Label: label, Error: err.Error()})
			continue
		}
		if err != nil {
			log.errorf("%s: %v", label, err)
		}
		if out.ExitCode != app.ExitOK {
			log.errorf("Benchmark failed with exit code %d", out.ExitCode)
			runs = append(runs, aggregate.Run{Label: label, Error: fmt.Sprintf("Benchmark failed with exit code %d", out.ExitCode)})
			if out.ExitCode != app.ExitFailed && exit == app.ExitOK {
				exit = out.ExitCode
			}
			continue
		}
		if err != nil {
			runs = append(runs, aggregate.Run{Label: label, Error: err.Error()})
			continue
		}
		summary, rerr := aggregate.ReadSummary(filepath.Join(s.ArtifactDir, s.Files.SummaryJSON))
		if rerr != nil {
			log.errorf("Error extracting metrics: %v", rerr)
		}
		runs = append(runs, aggregate.Classify(label, summary))
	}

	ok := aggregateRuns(log, stdout, base, cfg, runs, cancelled)
	if cfg.GeneratePlots {
		for i, r := range runs {
			if !r.Success() {
				continue
			}
			if perr := generatedPlots(cmd.Context(), stdout, settings[i].ArtifactDir, cfg.Plugins); perr != nil {
				fmt.Fprintln(stderr, "Error: --generate-plots:", perr)
				return exitError{code: app.ExitFailed}
			}
		}
	}
	switch {
	case exit != app.ExitOK:
		return exitError{code: exit}
	case cancelled:
		return nil
	case ok < 2:
		return exitError{code: app.ExitFailed}
	}
	return nil
}

// aggregateRuns logs the outcome of the runs and, with at least two
// successful runs (one after Ctrl-C), writes and prints the confidence
// aggregate. It returns how many runs succeeded.
func aggregateRuns(log *runLog, stdout io.Writer, base string, cfg *config.RunConfig, runs []aggregate.Run, cancelled bool) int {
	ok := 0
	var failed []string
	for _, r := range runs {
		if r.Success() {
			ok++
		} else {
			failed = append(failed, r.Label)
		}
	}
	log.info("%s", strings.Repeat("=", 80))
	if cancelled {
		log.info("Cancelled: %d/%d runs finished successfully", ok, cfg.NumProfileRuns)
	} else {
		log.info("All runs complete: %d/%d successful", ok, len(runs))
	}
	if len(failed) > 0 {
		log.warn("Failed runs: %s", strings.Join(failed, ", "))
	}
	log.info("%s", strings.Repeat("=", 80))
	switch {
	case ok == 0 && cancelled:
		log.info("No run finished before Ctrl-C: no aggregate written.")
		return ok
	case ok == 0:
		log.errorf("All runs failed - cannot compute aggregate statistics. Please check the error messages above.")
		return ok
	case ok == 1 && !cancelled:
		log.warn("Only 1 successful run - cannot compute confidence statistics. At least 2 successful runs are required.")
		return ok
	}
	log.info("Computing aggregate statistics...")
	res, err := aggregate.Aggregate(runs, cfg.ConfidenceLevel)
	if err != nil {
		log.errorf("Aggregate: %v", err)
		return ok
	}
	res.CooldownSeconds, res.WasCancelled = cfg.ProfileRunCooldownSeconds, cancelled
	jsonPath, csvPath, err := aggregate.Export(aggregate.Path(base), res)
	if err != nil {
		log.errorf("Aggregate: %v", err)
		return ok
	}
	log.info("Aggregate JSON written to: %s", jsonPath)
	log.info("Aggregate CSV written to: %s", csvPath)
	if err := res.WriteSummary(io.MultiWriter(stdout, log.file)); err != nil {
		log.errorf("Aggregate summary: %v", err)
	}
	return ok
}

// runLog writes the multi-run orchestration messages, AIPerf's banner and
// run-by-run progress, to the console and to <artifact dir>/logs/aiperf.log.
type runLog struct {
	console io.Writer
	file    io.Writer
	// quiet drops info lines from the console (--log-level above INFO).
	quiet bool
}

func (l *runLog) write(level, prefix string, console bool, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintf(l.file, "%s - aiperf.multirun - %s - %s\n", time.Now().Format("2006-01-02 15:04:05.000"), level, msg)
	if console {
		fmt.Fprintln(l.console, prefix+msg)
	}
}

func (l *runLog) info(format string, args ...any) { l.write("INFO", "", !l.quiet, format, args...) }
func (l *runLog) warn(format string, args ...any) {
	l.write("WARNING", "Warning: ", true, format, args...)
}
func (l *runLog) errorf(format string, args ...any) {
	l.write("ERROR", "Error: ", true, format, args...)
}
