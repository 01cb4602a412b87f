package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// An AIPerf-format plot config (--config) picks the plots: its
// *_run_defaults lists, with AIPerf's own presets we do not draw skipped
// with a line naming the file.
const aiperfStyleConfig = `
visualization:
  multi_run_defaults:
    - latency_throughput_uncertainty
    - ttft_vs_throughput
  single_run_defaults:
    - ttft_over_time
    - ttft_timeline
    - timeslices_ttft
    - no_such_plot
  multi_run_plots:
    latency_throughput_uncertainty:
      type: latency_throughput_uncertainty
  single_run_plots:
    ttft_timeline:
      type: request_timeline
`

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plot_config.yaml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func pngsIn(t *testing.T, dir string) []string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(dir, "*.png"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range matches {
		names = append(names, filepath.Base(m))
	}
	return names
}

func TestPlotConfigSelectsPlots(t *testing.T) {
	cfg := writeConfig(t, aiperfStyleConfig)

	run := fixtureRun(t)
	out := filepath.Join(t.TempDir(), "single")
	code, stdout, stderr := runPlotCmd(t, run, "--config", cfg, "--output", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if got := pngsIn(t, out); !slices.Equal(got, []string{"ttft_over_time.png"}) {
		t.Errorf("single run drew %v, want only ttft_over_time.png", got)
	}
	for _, want := range []string{
		"Skipping plot 'ttft_timeline' (from " + cfg + `): AIPerf preset of type "request_timeline"`,
		"Skipping plot 'no_such_plot' (from " + cfg + "): no plot type of that name; plot types: ttft_over_time,",
		"Skipping plot 'timeslices_ttft': required data not available",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout, "Saved 1 plot to:") {
		t.Errorf("stdout: %s", stdout)
	}

	sweepOut := filepath.Join(t.TempDir(), "sweep")
	code, _, stderr = runPlotCmd(t, filepath.Join("..", "..", "testdata", "plot", "sweep"), "--config", cfg, "--output", sweepOut)
	if code != 0 {
		t.Fatalf("sweep: exit %d\n%s", code, stderr)
	}
	if got := pngsIn(t, sweepOut); !slices.Equal(got, []string{"ttft_vs_throughput.png"}) {
		t.Errorf("sweep drew %v, want only ttft_vs_throughput.png", got)
	}
	if !strings.Contains(stderr, `Skipping plot 'latency_throughput_uncertainty' (from `+cfg+`): AIPerf preset of type "latency_throughput_uncertainty"`) {
		t.Errorf("sweep stderr lacks the preset line:\n%s", stderr)
	}
}

func TestPlotConfigBadInput(t *testing.T) {
	run := fixtureRun(t)
	for _, tc := range []struct {
		name, body, want string
	}{
		{"not yaml", "visualization:\n  single_run_defaults: [a\n", "yaml: line 1"},
		{"no visualization section", "plots: []\n", "no `visualization:` section"},
		{"wrong shape", "visualization:\n  single_run_defaults: 3\n", "line 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := writeConfig(t, tc.body)
			code, _, stderr := runPlotCmd(t, run, "--config", cfg, "--output", t.TempDir())
			if code == 0 || !strings.Contains(stderr, "--config") || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q: want an error naming --config and %q", code, stderr, tc.want)
			}
		})
	}
	code, _, stderr := runPlotCmd(t, run, "--config", filepath.Join(t.TempDir(), "missing.yaml"))
	if code == 0 || !strings.Contains(stderr, "missing.yaml") {
		t.Errorf("missing config: exit %d, %q", code, stderr)
	}
}
