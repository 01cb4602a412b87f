package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/aiperf-go/aiperf/core/app"
	"github.com/aiperf-go/aiperf/core/config"
	"github.com/aiperf-go/aiperf/internal/gcpolicy"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/registry"
	"github.com/aiperf-go/aiperf/registry/grpcloader"
	"github.com/spf13/cobra"
)

// newProfileCmd builds `aiperf profile`; rawArgs are the process arguments as
// typed, recorded (redacted) in the footer and the JSON export.
func newProfileCmd(rawArgs []string) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profile",
		Short: "Run the Profile subcommand.",
		Long: "Benchmark generative AI models and measure performance metrics including throughput, latency,\n" +
			"token statistics, and resource utilization.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runProfile(cmd, rawArgs) },
	}
	config.RegisterProfileFlags(cmd)
	if reg, err := embeddedRegistry(); err == nil {
		config.AnnotateChoices(cmd, choices(reg))
	}
	return cmd
}

// choices are the registered names of every category, the values the
// plugin-naming flags accept.
func choices(reg *registry.Registry) config.Choices {
	ch := config.Choices{}
	for _, c := range sdk.Categories {
		ch[c.Name] = reg.Names(c.Name)
	}
	return ch
}

func runProfile(cmd *cobra.Command, rawArgs []string) error {
	stderr := cmd.ErrOrStderr()
	cfg, warnings, err := config.Load(cmd, os.Environ())
	if err != nil {
		return err
	}
	// Ctrl-C is handled from here on, plugin start-up included (app/signals.go).
	ctx, stop := app.WithInterrupts(cmd.Context(), stderr, grpcloader.KillAll)
	defer stop()
	reg, ep, err := prepareProfile(ctx, stderr, cfg, warnings)
	if err != nil {
		return interruptedOr(ctx, stderr, err)
	}
	defer closeRegistry(stderr, reg)
	// --num-profile-runs > 1: the same benchmark N times and its confidence
	// aggregate (multirun.go).
	if cfg.NumProfileRuns > 1 {
		return runProfileRuns(ctx, cmd, reg, cfg, ep.Metadata().ServiceKind, rawArgs)
	}
	// --service-manager local|kubernetes: shards elsewhere, merged here.
	if cfg.Sharding().Launches() {
		return runShardedProfile(ctx, cmd, reg, cfg, ep.Metadata().ServiceKind, rawArgs)
	}
	settings, err := app.FromConfig(cfg, ep.Metadata().ServiceKind, rawArgs)
	if err != nil {
		return err
	}
	// Loading runs with Go's default collector; the timed run's policy
	// (internal/gcpolicy) holds from the first send to the last response,
	// then summarizing and exporting collect tightly.
	var gc gcpolicy.Tuner
	settings.BeforeSend, settings.AfterSend = gc.Start, gc.Settle
	defer gc.Stop()
	out, err := app.Profile(ctx, reg, settings, cmd.OutOrStdout(), stderr)
	if settings.Shard.EmitResult {
		// A shard in a pod: its result goes out through its log.
		if eerr := emitShardResult(cmd.OutOrStdout(), settings, out, err, cfg.Exact); eerr != nil {
			fmt.Fprintln(stderr, "Error:", eerr)
			return exitError{code: app.ExitFailed}
		}
	}
	if err != nil {
		var ece *app.ExitCodeError
		if out == nil && errors.As(err, &ece) {
			// A shard whose plan differs from the others', or that
			// missed the start barrier: nothing was sent.
			fmt.Fprintln(stderr, "Error:", err)
			return exitError{code: ece.Code}
		}
		if out == nil {
			return interruptedOr(ctx, stderr, err)
		}
		fmt.Fprintln(stderr, "Error:", err)
	}
	if out.ExitCode != app.ExitOK {
		// The verdict: every request failed, --failed-request-threshold, or
		// breached --threshold checks (app/exitcodes.go). A run that only
		// breached thresholds is whole, so its plots are still drawn.
		fmt.Fprintln(stderr, out.Verdict)
		if out.ExitCode != app.ExitThresholds {
			return exitError{code: out.ExitCode}
		}
	}
	// GenAI-Perf's --generate-plots: what `aiperf plot --dashboard` gives,
	// drawn from the artifacts just written (also after Ctrl-C: they hold
	// what was measured).
	if cfg.GeneratePlots {
		if perr := generatedPlots(cmd.Context(), cmd.OutOrStdout(), settings.ArtifactDir, cfg.Plugins); perr != nil {
			fmt.Fprintln(stderr, "Error: --generate-plots:", perr)
			if out.ExitCode == app.ExitOK {
				return exitError{code: app.ExitFailed}
			}
		}
	}
	if out.ExitCode != app.ExitOK {
		return exitError{code: out.ExitCode}
	}
	// A cancelled run exits 0 (AIPerf) even if exporting part of it failed;
	// the errors were printed above.
	if err != nil && !out.Results.WasCancelled {
		return exitError{code: app.ExitFailed}
	}
	return nil
}

// interruptedOr is the exit of a profiling command that failed before
// measuring anything: 130 when Ctrl-C caused it (nothing was sent, so
// there is nothing to export), else err.
func interruptedOr(ctx context.Context, stderr io.Writer, err error) error {
	if ctx.Err() == nil {
		return err
	}
	fmt.Fprintf(stderr, "Interrupted before the benchmark started (%v); nothing was sent.\n", err)
	return exitError{code: app.ExitInterrupted}
}

// prepareProfile is what every command that profiles (profile, analyze)
// does with a loaded configuration before building a run: join the
// external plugins (discovered or given with --plugins) to the built-ins,
// print the warnings, detect the dataset type, validate against the
// registry's choices and against what the endpoint accepts. Close the
// registry after use (closeRegistry): that stops plugin processes.
func prepareProfile(ctx context.Context, stderr io.Writer, cfg *config.RunConfig, warnings []string) (*registry.Registry, sdk.Endpoint, error) {
	pluginLog := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	opts := registryOptions(cfg.Plugins...)
	opts.Loaders = app.ExternalLoaders(pluginLog)
	reg, regWarnings, err := app.LoadRegistry(opts)
	if err != nil {
		return nil, nil, err
	}
	// A plugin still starting when Ctrl-C comes is stopped, not waited for.
	reg.BindContext(ctx)
	fail := func(err error) (*registry.Registry, sdk.Endpoint, error) {
		closeRegistry(stderr, reg)
		return nil, nil, err
	}
	for _, w := range append(warnings, regWarnings...) {
		fmt.Fprintln(stderr, "Warning:", w)
	}
	// Detected before validation, which checks the trace options against
	// the dataset's type.
	if cfg.InputFile != "" && cfg.CustomDatasetType == "" {
		cfg.UseDetectedDatasetType(detectDatasetType(reg, cfg.InputFile))
	}
	if err := cfg.Validate(choices(reg)); err != nil {
		return fail(err)
	}
	// The endpoint's service kind names the artifact directory.
	ep, err := registry.Get(reg, sdk.Endpoints, cfg.EndpointType)
	if err != nil {
		return fail(fmt.Errorf("--endpoint-type: %w", err))
	}
	// Rules that depend on what the endpoint accepts (multipart form data).
	if err := cfg.CheckEndpoint(ep.Metadata()); err != nil {
		return fail(err)
	}
	return reg, ep, nil
}

// detectDatasetType names the first custom dataset loader, in manifest
// order, that recognizes path; "" when none does (the custom composer then
// says so with the list of formats).
func detectDatasetType(reg *registry.Registry, path string) string {
	for _, name := range reg.Names(sdk.CategoryCustomDataset) {
		l, err := registry.Get(reg, sdk.CustomDatasetLoaders, name)
		if err == nil && l.CanLoad(path) {
			return name
		}
	}
	return ""
}
