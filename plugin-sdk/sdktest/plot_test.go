package sdktest

import (
	"bytes"
	"math"
	"reflect"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
	"github.com/aiperf-go/aiperf/plugin-sdk/sdktest/internal/fixtures"
)

func TestPlotAcceptsConformingPlots(t *testing.T) {
	runSuite(t, func(tb testing.TB) { Plot(tb, &fixtures.Plot{}) }).wantClean(t)
	runSuite(t, func(tb testing.TB) { Plot(tb, &fixtures.ComparisonPlot{}) }).wantClean(t)
}

func TestPlotReportsEachViolation(t *testing.T) {
	tests := []struct {
		name string
		plot sdk.Plot
		want []string
	}{
		{"size", &fixtures.Plot{Fault: fixtures.PLIgnoresSize},
			[]string{"Render(png 1600x800 at 150 DPI, light): the PNG is 640x480 pixels, want 2400x1200"}},
		{"panic", &fixtures.Plot{Fault: fixtures.PLPanics}, []string{"Render(png 1600x800 at 150 DPI, light) panicked", "render exploded"}},
		{"error", &fixtures.Plot{Fault: fixtures.PLFails}, []string{"Render(svg 1600x800 at 150 DPI, dark) returned error: fixture: cannot draw"}},
		{"never applies", &fixtures.Plot{Fault: fixtures.PLNeverApplies}, []string{"Applies(sample run) = false"}},
		{"svg", &fixtures.Plot{Fault: fixtures.PLBrokenSVG}, []string{"Render(svg 1600x800 at 150 DPI, dark): not an SVG document"}},
		{"applies panics", &fixtures.Plot{Fault: fixtures.PLAppliesPanics}, []string{"Applies(run without data) panicked", "applies exploded"}},
		{"comparison never applies", &fixtures.ComparisonPlot{Plot: fixtures.Plot{Fault: fixtures.PLNeverApplies}},
			[]string{"AppliesToRuns(sample runs) = false"}},
		{"comparison panics", &fixtures.ComparisonPlot{Plot: fixtures.Plot{Fault: fixtures.PLPanics}},
			[]string{"RenderRuns(png 640x480 at 100 DPI, dark) panicked", "render runs exploded"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runSuite(t, func(tb testing.TB) { Plot(tb, tc.plot) }).wantReport(t, tc.want...)
		})
	}
}

func TestGRPCPluginChecksPlots(t *testing.T) {
	requireBinary(t, fixtureBinary, fixtureSkip)
	for _, mode := range []string{"plot", "plot-compare"} {
		t.Run(mode, func(t *testing.T) {
			runSuite(t, func(tb testing.TB) { GRPCPlugin(tb, fixtureBinary, WithEnv("SDKTEST_PLUGIN_MODE="+mode)) }).wantClean(t)
		})
	}
	for _, tc := range []struct{ mode, want string }{
		{"plot-ignores-size", "the PNG is 640x480 pixels, want 2400x1200"},
		// Over gRPC the panic is the plugin's error, and the process lives on.
		{"plot-panics", "RenderPlot RPC: rpc error: code = Internal desc = panic in Render: fixture: render exploded"},
		{"plot-compare-never-applies", "AppliesToRuns(sample runs) = false"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			r := runSuite(t, func(tb testing.TB) { GRPCPlugin(tb, fixtureBinary, WithEnv("SDKTEST_PLUGIN_MODE="+tc.mode)) })
			r.wantReport(t, tc.want)
			for _, f := range r.all() {
				if bytes.Contains([]byte(f), []byte("stopped serving")) {
					t.Errorf("the plugin process died: %s", f)
				}
			}
		})
	}
}

// A 100k-request run crosses to a plugin and back intact, although both
// the plugin and this host keep gRPC's default 4 MiB message limit: calls
// and images stream in chunks of at most 1 MiB.
func TestPlotCallsStreamLargeRunsWithinDefaultLimits(t *testing.T) {
	requireBinary(t, fixtureBinary, fixtureSkip)
	big := SamplePlotRun(100_000)
	call, err := pluginpb.MarshalPlotCall([]*sdk.PlotRun{big}, false, sdk.PlotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(call) <= 4<<20 {
		t.Fatalf("the run encodes to %d bytes; the test needs more than gRPC's 4 MiB limit", len(call))
	}
	t.Logf("a %d-request run encodes to %.1f MiB", len(big.Requests), float64(len(call))/(1<<20))
	rpc := startPlugin(t, fixtureBinary, grpcConfig{env: []string{"SDKTEST_PLUGIN_MODE=plot-echo-default-limits"}, defaultLimits: true})
	p := &grpcPlot{rpc: rpc, t: t}
	if !p.Applies(big) {
		t.Fatal("Applies(100k requests) = false, want true")
	}
	opts := sdk.PlotOptions{Format: "png", Width: 1600, Height: 800, DPI: 150, Theme: "dark"}
	var echo bytes.Buffer
	if err := p.Render(big, opts, &echo); err != nil {
		t.Fatal(err)
	}
	runs, comparison, gotOpts, err := pluginpb.UnmarshalPlotCall(echo.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if comparison || len(runs) != 1 || gotOpts != opts {
		t.Fatalf("echo: comparison %v, %d runs, options %+v", comparison, len(runs), gotOpts)
	}
	sameRun(t, runs[0], big)

	// A comparison call carries every run.
	small := SamplePlotRun(10)
	cp := grpcComparisonPlot{p}
	if !cp.AppliesToRuns([]*sdk.PlotRun{big, small}) {
		t.Fatal("AppliesToRuns = false")
	}
	echo.Reset()
	if err := cp.RenderRuns([]*sdk.PlotRun{small, big}, opts, &echo); err != nil {
		t.Fatal(err)
	}
	if runs, comparison, _, err = pluginpb.UnmarshalPlotCall(echo.Bytes()); err != nil || !comparison || len(runs) != 2 {
		t.Fatalf("comparison echo: %d runs, comparison %v, %v", len(runs), comparison, err)
	}
	sameRun(t, runs[0], small)
	sameRun(t, runs[1], big)
}

// sameRun compares runs field by field; NaN equals NaN (GPU samples
// without a field).
func sameRun(t *testing.T, got, want *sdk.PlotRun) {
	t.Helper()
	if got.Dir != want.Dir || got.StartNs != want.StartNs || got.SliceDuration != want.SliceDuration || got.Config != want.Config {
		t.Errorf("run header: got %+v %d %v %+v, want %+v %d %v %+v", got.Dir, got.StartNs, got.SliceDuration, got.Config,
			want.Dir, want.StartNs, want.SliceDuration, want.Config)
	}
	if len(got.Requests) != len(want.Requests) {
		t.Fatalf("%d requests, want %d", len(got.Requests), len(want.Requests))
	}
	for i := range want.Requests {
		if !reflect.DeepEqual(got.Requests[i], want.Requests[i]) {
			t.Fatalf("request %d: got %+v, want %+v", i, got.Requests[i], want.Requests[i])
		}
	}
	for name, v := range map[string][2]any{"summary": {got.Summary, want.Summary}, "timeslices": {got.Timeslices, want.Timeslices},
		"server metrics": {got.ServerMetrics, want.ServerMetrics}} {
		if !reflect.DeepEqual(v[0], v[1]) {
			t.Errorf("%s: got %+v, want %+v", name, v[0], v[1])
		}
	}
	if len(got.GPUs) != len(want.GPUs) {
		t.Fatalf("%d GPUs, want %d", len(got.GPUs), len(want.GPUs))
	}
	for i, w := range want.GPUs {
		g := got.GPUs[i]
		if g.Index != w.Index || g.UUID != w.UUID || g.Name != w.Name || g.Source != w.Source || !reflect.DeepEqual(g.Times, w.Times) ||
			len(g.Metrics) != len(w.Metrics) {
			t.Errorf("GPU %d: got %+v, want %+v", i, g, w)
			continue
		}
		for field, vs := range w.Metrics {
			gv := g.Metrics[field]
			if len(gv) != len(vs) {
				t.Errorf("GPU %d %s: %d values, want %d", i, field, len(gv), len(vs))
				continue
			}
			for k := range vs {
				if gv[k] != vs[k] && !(math.IsNaN(gv[k]) && math.IsNaN(vs[k])) {
					t.Errorf("GPU %d %s[%d] = %v, want %v", i, field, k, gv[k], vs[k])
				}
			}
		}
	}
}
