package main

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	plotbuiltin "github.com/aiperf-go/aiperf/plugins/builtin/plot"
)

// The example plot plugin's manifest, as shipped.
const plotExampleManifest = "../../examples/plugins/go-grpc-plot/aiperf-plugins.yaml"

// examplePlotPlugin builds the example ttft_cdf plugin into a temporary
// directory beside a copy of its shipped manifest (whose path,
// ./ttft-cdf-plugin, resolves against the manifest's directory) and
// returns the manifest's path.
func examplePlotPlugin(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	buildPlugin(t, dir, "ttft-cdf-plugin", "../../examples/plugins/go-grpc-plot")
	b, err := os.ReadFile(plotExampleManifest)
	if err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(dir, "aiperf-plugins.yaml")
	if err := os.WriteFile(manifest, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return manifest
}

// fixturePlotPlugin builds the plugin SDK's test plugin and a manifest
// declaring it as plot plugin name; mode (SDKTEST_PLUGIN_MODE, handed over
// with AIPERF_PLUGIN_ENV_) picks how it behaves.
func fixturePlotPlugin(t *testing.T, name, mode string) string {
	t.Helper()
	dir := t.TempDir()
	bin, sum := buildPlugin(t, dir, "fixture-plugin", "github.com/aiperf-go/aiperf/plugin-sdk/sdktest/testdata/plugin")
	t.Setenv("AIPERF_PLUGIN_ENV_SDKTEST_PLUGIN_MODE", mode)
	manifest := filepath.Join(dir, "plots.yaml")
	yaml := fmt.Sprintf("plot:\n  %s:\n    kind: grpc\n    description: sdktest fixture plot (%s)\n    path: %s\n    sha256: %s\n    api_version: 1\n",
		name, mode, filepath.Base(bin), sum)
	if err := os.WriteFile(manifest, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return manifest
}

func pngSize(t *testing.T, path string) (int, int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img.Bounds().Dx(), img.Bounds().Dy()
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// `aiperf plot --plugins` draws a vendor's plot type, served by a separate
// process, beside every built-in plot, at the size and in the format asked.
func TestPlotDrawsTheExamplePluginPlot(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a plugin binary")
	}
	manifest := examplePlotPlugin(t)
	run := fixtureRun(t)
	out := filepath.Join(t.TempDir(), "plots")
	code, stdout, stderr := runPlotCmd(t, "--plugins", manifest, run, "--output", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	want := []string{"summary.txt", "ttft_cdf.png"}
	for _, n := range plotbuiltin.Names {
		want = append(want, n+".png")
	}
	slices.Sort(want)
	if got := dirNames(t, out); !slices.Equal(got, want) {
		t.Fatalf("files %v\nwant %v", got, want)
	}
	// 1600x800 at 100 DPI, drawn at 150 DPI: AIPerf's size and scale, as the built-ins.
	if w, h := pngSize(t, filepath.Join(out, "ttft_cdf.png")); w != 2400 || h != 1200 {
		t.Errorf("ttft_cdf.png is %dx%d, want 2400x1200", w, h)
	}
	if w, h := pngSize(t, filepath.Join(out, plotbuiltin.TTFTDistribution+".png")); w != 2400 || h != 1200 {
		t.Errorf("the built-in plot is %dx%d", w, h)
	}
	if !strings.Contains(stdout, "Saved 9 plots to: "+out) {
		t.Errorf("stdout %q", stdout)
	}
	summary, err := os.ReadFile(filepath.Join(out, "summary.txt"))
	if err != nil || !strings.Contains(string(summary), "  - ttft_cdf.png\n") {
		t.Errorf("summary.txt does not list the plugin's plot (%v):\n%s", err, summary)
	}

	// SVG in the dark theme, through the same process protocol.
	svgOut := filepath.Join(t.TempDir(), "svg")
	if code, _, stderr := runPlotCmd(t, "--plugins", manifest, run, "--output", svgOut, "--format", "svg", "--theme", "dark"); code != 0 {
		t.Fatalf("svg: exit %d\n%s", code, stderr)
	}
	checkSVG(t, filepath.Join(svgOut, "ttft_cdf.svg"))
	doc, err := os.ReadFile(filepath.Join(svgOut, "ttft_cdf.svg"))
	if err != nil || !bytes.Contains(doc, []byte("Empirical CDF")) || !bytes.Contains(doc, []byte("p99 = ")) {
		t.Errorf("ttft_cdf.svg lacks its title or the p99 mark (%v)", err)
	}
}

// The manifest entry's config reaches the plugin before it draws: a value
// its Validate refuses stops the command, naming the plugin and the value.
func TestPlotPluginSettingsFromTheManifest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a plugin binary")
	}
	manifest := examplePlotPlugin(t)
	b, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(b), "percentiles: [50, 90, 99]", "percentiles: [50, 150]", 1)
	if bad == string(b) {
		t.Fatal("the shipped manifest no longer sets percentiles: [50, 90, 99]")
	}
	if err := os.WriteFile(manifest, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "plots")
	code, _, stderr := runPlotCmd(t, "--plugins", manifest, fixtureRun(t), "--output", out)
	if code == 0 || !strings.Contains(stderr, "plugin plot.ttft_cdf") || !strings.Contains(stderr, "percentiles: 150 is not between 0 and 100") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
}

// A plugin that fails or panics loses only its own plot: the built-ins are
// drawn, summary.txt lists them, and the command exits 1 with the
// plugin's error naming it. The process survives a panic.
func TestPlotPluginFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a plugin binary")
	}
	for _, tc := range []struct{ mode, want string }{
		{"plot-fails", "plugin plot.vendor_plot: RenderPlot: fixture: cannot draw"},
		{"plot-panics", "plugin plot.vendor_plot: RenderPlot: panic in Render: fixture: render exploded"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			manifest := fixturePlotPlugin(t, "vendor_plot", tc.mode)
			out := filepath.Join(t.TempDir(), "plots")
			code, stdout, stderr := runPlotCmd(t, "--plugins", manifest, fixtureRun(t), "--output", out)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			if !strings.Contains(stderr, "Error: "+tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, stderr)
			}
			if !strings.Contains(stdout, "Saved 8 plots to: "+out) {
				t.Errorf("stdout %q", stdout)
			}
			names := dirNames(t, out)
			if slices.Contains(names, "vendor_plot.png") || len(names) != len(plotbuiltin.Names)+1 {
				t.Errorf("files %v: want the built-ins and summary.txt only", names)
			}
		})
	}
}

// A comparison plot plugin draws over a sweep's runs and is skipped for a
// single run.
func TestPlotComparisonPluginOverASweep(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a plugin binary")
	}
	manifest := fixturePlotPlugin(t, "vendor_sweep", "plot-compare")
	sweep := fixtureSweep(t)
	out := filepath.Join(t.TempDir(), "plots")
	code, stdout, stderr := runPlotCmd(t, "--plugins", manifest, sweep, "--output", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if w, h := pngSize(t, filepath.Join(out, "vendor_sweep.png")); w != 2400 || h != 1200 {
		t.Errorf("vendor_sweep.png is %dx%d, want 2400x1200", w, h)
	}
	names := dirNames(t, out)
	for _, n := range plotbuiltin.Names { // single-run plots are not drawn for a sweep
		if slices.Contains(names, n+".png") {
			t.Errorf("single-run plot %s drawn for a sweep", n)
		}
	}
	if !slices.Contains(names, "pareto_curve_throughput_vs_latency.png") {
		t.Errorf("the built-in comparison plots are missing: %v", names)
	}

	one := filepath.Join(t.TempDir(), "one")
	if code, _, stderr := runPlotCmd(t, "--plugins", manifest, fixtureRun(t), "--output", one); code != 0 {
		t.Fatalf("single run: exit %d\n%s", code, stderr)
	}
	if slices.Contains(dirNames(t, one), "vendor_sweep.png") {
		t.Error("the comparison plot was drawn for a single run")
	}
}

// The shipped manifest passes `aiperf plugins --validate` once its binary
// is built: the live load starts it and finds an sdk.Plot.
func TestPluginsValidateAcceptsTheExamplePlotManifest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a plugin binary")
	}
	manifest := examplePlotPlugin(t)
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"plugins", "--validate", "--plugins", manifest}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	want := "(OK) Live load: plot.ttft_cdf (grpc, " + manifest + "): loaded, implements sdk.Plot"
	if !strings.Contains(out.String(), want) || !strings.Contains(out.String(), "All checks passed") {
		t.Errorf("output lacks %q:\n%s", want, out.String())
	}
}

// --plugins takes every following word (AIPerf's multi-value form), so the
// run directories among its values are paths to plot; manifests, manifest
// directories and missing files stay manifests (the last fails, named).
func TestSplitPluginPaths(t *testing.T) {
	run := fixtureRun(t)
	sweep := fixtureSweep(t)
	manifestDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(manifestDir, "a.yaml"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(manifestDir, "a.yaml")
	missing := filepath.Join(t.TempDir(), "nope")
	empty := t.TempDir()
	manifests, runs := splitPluginPaths([]string{manifest, run, manifestDir, sweep, missing, empty})
	if want := []string{manifest, manifestDir, missing, empty}; !slices.Equal(manifests, want) {
		t.Errorf("manifests %v, want %v", manifests, want)
	}
	if want := []string{run, sweep}; !slices.Equal(runs, want) {
		t.Errorf("runs %v, want %v", runs, want)
	}
}
