package grpcloader

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/sdktest"
)

func renderString(p sdk.Plot, run *sdk.PlotRun, opts sdk.PlotOptions) (string, error) {
	var buf bytes.Buffer
	err := p.Render(run, opts, &buf)
	return buf.String(), err
}

// A single-run plot plugin: settings reach it, the run and the options
// cross, and a 100k-request run (about 7 MiB encoded) streams both ways.
func TestPlotAdapter(t *testing.T) {
	l, _ := newLoader(t, Options{})
	v, err := l.Load(context.Background(), entry(sdk.CategoryPlot, "tp", testPluginBin))
	if err != nil {
		t.Fatal(err)
	}
	p, ok := v.(*Plot)
	if !ok {
		t.Fatalf("Load returned %T, want *Plot (the plugin is no comparison plot)", v)
	}
	if err := p.Configure(context.Background(), []byte(`{"path": "/custom"}`)); err != nil {
		t.Fatal(err)
	}
	if p.Applies(&sdk.PlotRun{Dir: "none"}) {
		t.Error("Applies(none) = true")
	}
	opts := sdk.PlotOptions{Format: "svg", Width: 800, Height: 600, DPI: 120, Theme: "dark"}
	run := &sdk.PlotRun{Dir: "r", Requests: []sdk.PlotRequest{
		{Metrics: map[string]float64{"time_to_first_token": 12.5}},
		{Error: true, Metrics: map[string]float64{}},
		{Metrics: map[string]float64{"time_to_first_token": 7.25}},
	}}
	if !p.Applies(run) {
		t.Error("Applies(r) = false")
	}
	got, err := renderString(p, run, opts)
	if want := "r: 3 requests, ttft sum 19.8, 1 failed, svg 800x600@120 dark, path /custom"; err != nil || got != want {
		t.Errorf("Render = %q, %v\nwant %q", got, err, want)
	}

	big := sdktest.SamplePlotRun(100_000)
	big.Dir = "big"
	ttft, failed := 0.0, 0
	for _, r := range big.Requests {
		ttft += r.Metrics["time_to_first_token"]
		if r.Error {
			failed++
		}
	}
	got, err = renderString(p, big, opts)
	if want := fmt.Sprintf("big: 100000 requests, ttft sum %.1f, %d failed,", ttft, failed); err != nil || !strings.HasPrefix(got, want) {
		t.Errorf("Render(100k requests) = %q, %v\nwant prefix %q", got, err, want)
	}
}

// The plugin's errors and panics come back as errors naming the plugin
// and the call; a failed Applies is reported by the following Render, not
// taken for missing data; the process lives on after a panic.
func TestPlotAdapterErrors(t *testing.T) {
	l, _ := newLoader(t, Options{})
	e := entry(sdk.CategoryPlot, "tp", testPluginBin)
	e.Limits.CallTimeoutMS = 300
	p := mustLoad[*Plot](t, l, e)
	opts := sdk.PlotOptions{Format: "png", Width: 100, Height: 100, DPI: 100, Theme: "light"}
	for _, tc := range []struct{ dir, want string }{
		{"fail", "plugin plot.tp: RenderPlot: this run cannot be drawn"},
		{"panic", "plugin plot.tp: RenderPlot: panic in Render: testplugin: render exploded"},
		{"sleep", "plugin plot.tp: RenderPlot: no answer within 300ms"},
	} {
		if _, err := renderString(p, &sdk.PlotRun{Dir: tc.dir}, opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Render(%s) err = %v, want %q", tc.dir, err, tc.want)
		}
	}
	if !p.Applies(&sdk.PlotRun{Dir: "applies-panic"}) {
		t.Error("a failed Applies answered false: the failure would read as missing data")
	}
	_, err := renderString(p, &sdk.PlotRun{Dir: "r"}, opts)
	if want := "plugin plot.tp: PlotApplies: panic in Applies: testplugin: applies exploded"; err == nil || err.Error() != want {
		t.Errorf("Render after a failed Applies: err = %v, want %q", err, want)
	}
	if got, err := renderString(p, &sdk.PlotRun{Dir: "r"}, opts); err != nil || !strings.HasPrefix(got, "r: 0 requests") {
		t.Errorf("Render after the failures = %q, %v", got, err)
	}

	if _, err := renderString(p, &sdk.PlotRun{Dir: "exit"}, opts); err == nil || !strings.Contains(err.Error(), "plugin plot.tp: RenderPlot: the plugin process") {
		t.Errorf("Render(exit) err = %v", err)
	}
	if !p.Applies(&sdk.PlotRun{Dir: "r"}) {
		t.Error("Applies after the exit answered false")
	}
	if _, err := renderString(p, &sdk.PlotRun{Dir: "r"}, opts); err == nil || !strings.Contains(err.Error(), "plugin plot.tp: PlotApplies: the plugin process") ||
		!strings.Contains(err.Error(), "has exited") {
		t.Errorf("Render after the exit: err = %v", err)
	}
}

// A plugin whose Describe reports comparison_plot gets the
// sdk.ComparisonPlot adapter, and its calls carry every run.
func TestComparisonPlotAdapter(t *testing.T) {
	t.Setenv("AIPERF_PLUGIN_ENV_AIPERF_TESTPLUGIN_COMPARISON_PLOT", "1")
	l, _ := newLoader(t, Options{})
	cp := mustLoad[*ComparisonPlot](t, l, entry(sdk.CategoryPlot, "tp", testPluginBin))
	runs := []*sdk.PlotRun{{Dir: "c1", Requests: make([]sdk.PlotRequest, 2)}, {Dir: "c4", Requests: make([]sdk.PlotRequest, 5)}}
	if cp.Applies(runs[0]) {
		t.Error("a comparison plot's single-run Applies = true")
	}
	if !cp.AppliesToRuns(runs) || cp.AppliesToRuns(runs[:1]) {
		t.Error("AppliesToRuns does not follow the plugin")
	}
	var buf bytes.Buffer
	if err := cp.RenderRuns(runs, sdk.PlotOptions{Format: "png", Theme: "dark"}, &buf); err != nil || buf.String() != "c1=2 c4=5 png dark" {
		t.Errorf("RenderRuns = %q, %v", buf.String(), err)
	}
	err := cp.RenderRuns([]*sdk.PlotRun{{Dir: "panic"}, {Dir: "x"}}, sdk.PlotOptions{}, &buf)
	if want := "plugin plot.tp: RenderPlot: panic in RenderRuns: testplugin: render exploded"; err == nil || err.Error() != want {
		t.Errorf("RenderRuns(panic) err = %v, want %q", err, want)
	}
}
