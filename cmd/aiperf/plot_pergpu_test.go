package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	plotbuiltin "github.com/aiperf-go/aiperf/plugins/builtin/plot"
)

// A sweep whose runs all carry GPU telemetry (testdata/plot/sweep_gpu) gets
// AIPerf's two per-GPU Pareto curves besides the other comparison plots; the
// sweep without telemetry skips them with a line each.
func TestPlotGPUSweepDrawsPerGPUPlots(t *testing.T) {
	gpuSweep := filepath.Join("..", "..", "testdata", "plot", "sweep_gpu")
	out := filepath.Join(t.TempDir(), "gpu")
	code, stdout, stderr := runPlotCmd(t, gpuSweep, "--output", out)
	if code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, stderr)
	}
	if !strings.Contains(stdout, "Saved 8 plots to: "+out) {
		t.Errorf("stdout %q lacks the saved line", stdout)
	}
	if strings.Contains(stderr, "Skipping plot") {
		t.Errorf("a plot was skipped on the GPU sweep:\n%s", stderr)
	}
	var want []string
	for _, n := range append(slices.Clone(plotbuiltin.ComparisonNames), plotbuiltin.PerGPUComparisonNames...) {
		want = append(want, n+".png")
	}
	slices.Sort(want)
	if got := pngsIn(t, out); !slices.Equal(got, want) {
		t.Fatalf("drew %v, want %v", got, want)
	}
	for _, n := range plotbuiltin.PerGPUComparisonNames {
		checkPNG(t, filepath.Join(out, n+".png"))
	}

	out = filepath.Join(t.TempDir(), "plain")
	code, stdout, stderr = runPlotCmd(t, filepath.Join("..", "..", "testdata", "plot", "sweep"), "--output", out)
	if code != 0 || !strings.Contains(stdout, "Saved 6 plots") {
		t.Fatalf("sweep without telemetry: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	for _, n := range plotbuiltin.PerGPUComparisonNames {
		if line := "Skipping plot '" + n + "': required data not available in every run"; !strings.Contains(stderr, line) {
			t.Errorf("stderr lacks %q:\n%s", line, stderr)
		}
	}
}

// AIPerf 0.13's own multi_run_defaults (default_plot_config.yaml) draw on
// the GPU sweep: its two per-GPU Pareto curves and ttft_vs_throughput, with
// only latency_throughput_uncertainty skipped as a preset we do not draw.
func TestPlotConfigAIPerfMultiRunDefaultsOnGPUSweep(t *testing.T) {
	cfg := writeConfig(t, `
visualization:
  multi_run_defaults:
    - pareto_curve_throughput_per_gpu_vs_latency
    - pareto_curve_throughput_per_gpu_vs_interactivity
    - ttft_vs_throughput
    - latency_throughput_uncertainty
  multi_run_plots:
    latency_throughput_uncertainty:
      type: latency_throughput_uncertainty
`)
	out := t.TempDir()
	code, stdout, stderr := runPlotCmd(t, filepath.Join("..", "..", "testdata", "plot", "sweep_gpu"), "--config", cfg, "--output", out)
	if code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, stderr)
	}
	want := []string{"pareto_curve_throughput_per_gpu_vs_interactivity.png", "pareto_curve_throughput_per_gpu_vs_latency.png", "ttft_vs_throughput.png"}
	if got := pngsIn(t, out); !slices.Equal(got, want) {
		t.Errorf("drew %v, want %v", got, want)
	}
	if line := "Skipping plot 'latency_throughput_uncertainty' (from " + cfg + `): AIPerf preset of type "latency_throughput_uncertainty"`; !strings.Contains(stderr, line) {
		t.Errorf("stderr lacks %q:\n%s", line, stderr)
	}
	if !strings.Contains(stdout, "Saved 3 plots") {
		t.Errorf("stdout: %s", stdout)
	}
}
