package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/aiperf-go/aiperf/core/app"
	"github.com/aiperf-go/aiperf/core/config"
	"github.com/aiperf-go/aiperf/core/shardresult"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/registry"
	"github.com/spf13/cobra"
)

// runShardedProfile is `aiperf profile --service-manager local|kubernetes
// --shards N`: the service manager runs the shards, each a disjoint stripe
// of the one plan, and their results are merged into this run's artifact
// directory (merge.go). A shard that fails is never re-run: the others
// finish and the merged result is PARTIAL (exit app.ExitPartial unless
// --allow-partial).
func runShardedProfile(ctx context.Context, cmd *cobra.Command, reg *registry.Registry, cfg *config.RunConfig, serviceKind string, rawArgs []string) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	sh := cfg.Sharding()
	settings, err := app.FromConfig(cfg, serviceKind, rawArgs)
	if err != nil {
		return err
	}
	host := app.NewPluginHost(reg, settings)
	defer host.Close()
	var overlay map[string]any
	if sh.Manager == "kubernetes" {
		overlay = cfg.KubernetesSettings()
	}
	mgr, err := app.Use(ctx, host, sdk.ServiceManagers, sh.Manager, overlay, "")
	if err != nil {
		return fmt.Errorf("--service-manager %s: %w", sh.Manager, err)
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the aiperf executable the shards run: %w", err)
	}
	if err := os.MkdirAll(settings.ArtifactDir, 0o755); err != nil {
		return fmt.Errorf("create the artifact directory %s: %w", settings.ArtifactDir, err)
	}
	job := sdk.ShardJob{
		Shards: sh.Shards, Args: config.ShardArgs(rawArgs, settings.Seed), ArtifactDir: settings.ArtifactDir,
		Exact: sh.Exact, BarrierTimeout: sh.Timeout, Executable: exe, Progress: stderr,
	}
	fmt.Fprintf(stderr, "Running %d shards with the %s service manager (seed %d); merged results go to %s\n",
		sh.Shards, sh.Manager, settings.Seed, settings.ArtifactDir)
	reports, runErr := mgr.RunShards(ctx, job)
	if runErr != nil {
		fmt.Fprintln(stderr, "Error:", runErr)
		// A plan mismatch or a barrier timeout: nothing was measured.
		for _, r := range reports {
			if r.ExitCode == app.ExitShardPlanMismatch || r.ExitCode == app.ExitShardBarrierTimeout {
				return exitError{code: r.ExitCode}
			}
		}
		if len(reports) == 0 {
			return exitError{code: app.ExitFailed}
		}
	}
	merged, err := mergeShardReports(ctx, stdout, stderr, reports, settings.ArtifactDir, sh.Exact)
	if err != nil {
		fmt.Fprintln(stderr, "Error: merge the shards:", err)
		return exitError{code: app.ExitFailed}
	}
	// The CI gate judges the whole run, never one shard's stripe.
	verdict, gateErr := app.JudgeMerged(settings, merged.Results)
	if gateErr != nil {
		fmt.Fprintln(stderr, "Error:", gateErr)
	}
	code, why := shardedExitCode(verdict, reports)
	if code != app.ExitOK {
		fmt.Fprintln(stderr, why)
	}
	if cfg.GeneratePlots && code != app.ExitFailedRequests && code != app.ExitInvalidRun {
		if perr := generatedPlots(cmd.Context(), stdout, settings.ArtifactDir, cfg.Plugins); perr != nil {
			fmt.Fprintln(stderr, "Error: --generate-plots:", perr)
			if code == app.ExitOK {
				code = app.ExitFailed
			}
		}
	}
	if merged.Partial {
		fmt.Fprintf(stderr, "PARTIAL: %d of %d shards completed; the merged result holds theirs only\n", merged.Completed, merged.Shards)
		if !sh.AllowPartial && code == app.ExitOK {
			code = app.ExitPartial
		}
	}
	if code == app.ExitOK && gateErr != nil {
		code = app.ExitFailed
	}
	verdict.ExitCode = code
	app.PrintGate(stdout, settings, verdict)
	if code != app.ExitOK {
		return exitError{code: code}
	}
	return nil // also after Ctrl-C: what was measured is merged; AIPerf exits 0
}

// shardedExitCode is a sharded run's exit status and why: the merged
// result's gate verdict, unless a completed shard reported a graver one of
// its own (its --failed-request-threshold watch stopped it, every one of
// its requests failed, or its run was invalid).
func shardedExitCode(verdict *app.Outcome, reports []sdk.ShardReport) (int, string) {
	code, why := verdict.ExitCode, verdict.Verdict
	for _, r := range reports {
		if !r.OK || (r.ExitCode != app.ExitFailedRequests && r.ExitCode != app.ExitInvalidRun) {
			continue
		}
		if code == app.ExitOK || code == app.ExitThresholds {
			code = r.ExitCode
			why = fmt.Sprintf("shard %d: exit status %d (%s); see its log", r.Index, r.ExitCode, app.ExitMeaning(r.ExitCode))
		}
	}
	return code, why
}

// terminationLogPath is where a shard in a pod writes its termination
// message (Kubernetes' default terminationMessagePath).
func terminationLogPath() string {
	if p := os.Getenv("AIPERF_TERMINATION_LOG"); p != "" {
		return p
	}
	return "/dev/termination-log"
}

// emitShardResult ends a shard run with --shard-emit-result: its result
// as framed lines on stdout (the pod log the CLI reads) and its status
// with the result's checksum in the termination message (a run that
// measured nothing, out nil, gets its error there). It returns an error
// only when the result could not be emitted; otherwise the shard's own
// exit status stands.
func emitShardResult(stdout io.Writer, settings *app.Settings, out *app.Outcome, runErr error, exact bool) error {
	sh := settings.Shard
	term := shardresult.Termination{Status: "failed", ExitCode: app.ExitFailed}
	defer func() {
		if err := os.WriteFile(terminationLogPath(), shardresult.MarshalTermination(term), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "Warning: write the termination message:", err)
		}
	}()
	if out == nil {
		term.Reason = fmt.Sprint(runErr)
		var ece *app.ExitCodeError
		if errors.As(runErr, &ece) {
			term.ExitCode = ece.Code
		}
		return nil
	}
	payload, err := shardPayload(settings.ArtifactDir, sh.Index, sh.Count, out.PlanHash, exact)
	if err != nil {
		term.Reason = "build the shard result: " + err.Error()
		return errors.New(term.Reason)
	}
	sum, err := shardresult.WriteFrames(stdout, payload)
	if err != nil {
		term.Reason = "write the shard result: " + err.Error()
		return errors.New(term.Reason)
	}
	term = shardresult.Termination{Status: "ok", Checksum: sum, ExitCode: out.ExitCode}
	return nil
}
