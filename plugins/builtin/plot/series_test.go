package plot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/core/artifacts"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	gplot "gonum.org/v1/plot"
)

func readFixture(t *testing.T, name string) *sdk.PlotRun {
	t.Helper()
	run, err := artifacts.ReadRun("../../../testdata/plot/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// svgText is every <text> of an SVG, which must parse as XML.
func svgText(t *testing.T, b []byte) string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	var root string
	var text strings.Builder
	inText := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("svg does not parse: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = el.Name.Local
			}
			inText = el.Name.Local == "text"
		case xml.CharData:
			if inText {
				text.Write(el)
				text.WriteByte('\n')
			}
		case xml.EndElement:
			inText = false
		}
	}
	if root != "svg" {
		t.Fatalf("svg root element %q", root)
	}
	return text.String()
}

// Every time-series plot draws on the telemetry fixture (a real run against
// the mock): PNGs at AIPerf's 1600x800 scale 1.5, SVGs that parse and carry
// the plot's title and legend.
func TestSeriesPlotsRenderOnTelemetryRun(t *testing.T) {
	run := readFixture(t, "telemetry_run")
	want := map[string][]string{
		TimeslicesTTFT:       {"Time to First Token Across Time Slices", "Time to First Token (ms)", "Timeslice (s)", "0-1", "4-5", "Run Average: 15.93 ms", "Run Std: 0.23 ms", "Timeslice Average", "±1 Timeslice Std"},
		TimeslicesITL:        {"Inter Token Latency Across Time Slices", "Inter Token Latency (ms)", "Run Average:"},
		TimeslicesThroughput: {"Request Throughput Across Time Slices", "Request Throughput (requests/sec)", "Timeslice Average"},
		TimeslicesLatency:    {"Request Latency Across Time Slices", "Request Latency (ms)", "Run Average:"},
		GPUUtilizationThroughput: {"Output Token Throughput with GPU Utilization",
			"GPU activity semantics are vendor-specific and not comparable across vendors.",
			"Output Token Throughput (tokens/s)", "NVIDIA GPU Utilization (%)", "Time (s)"},
		GPUPowerOverTime:           {"NVIDIA GPU Power Usage Over Time", "NVIDIA GPU Power Usage (W)", "GPU 0", "GPU 1"},
		GPUUtilizationOverTime:     {"NVIDIA GPU Utilization Over Time", "NVIDIA GPU Utilization (%)", "GPU 1"},
		GPUMemoryUsedOverTime:      {"NVIDIA GPU Memory Used Over Time", "NVIDIA GPU Memory Used (GB)"},
		GPUTemperatureOverTime:     {"NVIDIA GPU Temperature Over Time", "NVIDIA GPU Temperature (°C)"},
		ServerKVCacheUsageOverTime: {"vllm:kv_cache_usage_perc Over Time", "vllm:kv_cache_usage_perc (ratio)", "Run Average: 0.0015 ratio"},
		ServerRequestsOverTime:     {"Server Requests Running and Waiting Over Time", "vllm:num_requests_running", "vllm:num_requests_waiting"},
	}
	if len(want) != len(SeriesNames) {
		t.Fatalf("test covers %d plots, SeriesNames has %d", len(want), len(SeriesNames))
	}
	for _, name := range SeriesNames {
		t.Run(name, func(t *testing.T) {
			p := New(name)
			if p == nil || !p.Applies(run) {
				t.Fatalf("%s does not apply to a run with its data", name)
			}
			text := pngAndSVG(t, func(o sdk.PlotOptions, w io.Writer) error { return p.Render(run, o, w) })
			for _, w := range want[name] {
				if !strings.Contains(text, w) {
					t.Errorf("svg text lacks %q:\n%s", w, text)
				}
			}
		})
	}
}

// A run without the files (single_run has no timeslices, GPU telemetry or
// server metrics) gets none of these plots, so `aiperf plot` skips them.
func TestSeriesPlotsSkipRunsWithoutData(t *testing.T) {
	run := readFixture(t, "single_run")
	for _, name := range SeriesNames {
		if New(name).Applies(run) {
			t.Errorf("%s applies to a run without its data", name)
		}
	}
	// The data present but not the field: AMD power only, no utilization.
	amd := &sdk.PlotRun{GPUs: []sdk.PlotGPU{{Times: []float64{0}, Metrics: map[string][]float64{"amd_power": {300}}}}}
	for name, want := range map[string]bool{GPUPowerOverTime: true, GPUUtilizationOverTime: false, GPUUtilizationThroughput: false, GPUTemperatureOverTime: false} {
		if got := New(name).Applies(amd); got != want {
			t.Errorf("%s.Applies(AMD power only) = %v, want %v", name, got, want)
		}
	}
	// Timeslices without the metric.
	other := &sdk.PlotRun{Timeslices: []sdk.PlotTimeslice{{Metrics: map[string]sdk.PlotStat{"Request Latency": {Stats: map[string]float64{"avg": 1}}}}}}
	if New(TimeslicesTTFT).Applies(other) || !New(TimeslicesLatency).Applies(other) {
		t.Error("timeslice plots apply by their own metric")
	}
}

// Window ticks sit mid-window labelled "start-end" as AIPerf's; past 30
// windows every k-th is labelled.
func TestSliceTicks(t *testing.T) {
	label := func(ts []gplot.Tick) (vals []float64, labels []string) {
		for _, tk := range ts {
			vals, labels = append(vals, tk.Value), append(labels, tk.Label)
		}
		return
	}
	vals, labels := label(sliceTicks(2, 10))
	if !slices.Equal(vals, []float64{5, 15, 25}) || !slices.Equal(labels, []string{"0-10", "10-20", "20-30"}) {
		t.Errorf("10 s windows: %v %v", vals, labels)
	}
	if _, labels := label(sliceTicks(1, 0.5)); !slices.Equal(labels, []string{"0-0.5", "0.5-1"}) {
		t.Errorf("half-second windows: %v", labels)
	}
	ts := sliceTicks(99, 1)
	n := 0
	for i, tk := range ts {
		if tk.Label != "" {
			n++
			if i%4 != 0 {
				t.Errorf("window %d labelled", i)
			}
		}
	}
	if len(ts) != 100 || n != 25 {
		t.Errorf("100 windows: %d ticks, %d labelled, want 100 and 25", len(ts), n)
	}
	// A billion windows (a corrupt index) still makes about 30 ticks.
	ts = sliceTicks(999_999_999, 1)
	if len(ts) != 30 || ts[1].Value != 33_333_334.5 || ts[1].Label != "33333334-33333335" {
		t.Errorf("a billion windows: %d ticks, second %+v", len(ts), ts[1])
	}
}

// Without a slice duration the windows are numbered, not timed, and a
// plot asked to draw data it lacks says so instead of panicking.
func TestSeriesPlotsEdgeCases(t *testing.T) {
	run := &sdk.PlotRun{Timeslices: []sdk.PlotTimeslice{
		{Index: 0, Metrics: map[string]sdk.PlotStat{"Request Latency": {Unit: "ms", Stats: map[string]float64{"avg": 10}}}},
		{Index: 1, Metrics: map[string]sdk.PlotStat{"Request Latency": {Unit: "ms", Stats: map[string]float64{"avg": 12}}}},
	}}
	var b bytes.Buffer
	if err := New(TimeslicesLatency).Render(run, sdk.PlotOptions{Format: "svg"}, &b); err != nil {
		t.Fatal(err)
	}
	if text := svgText(t, b.Bytes()); !strings.Contains(text, "Timeslice\n") || strings.Contains(text, "Timeslice (s)") {
		t.Errorf("x axis without a slice duration:\n%s", text)
	}
	// A window whose std (or average) is not a number draws without a bar
	// (or not at all) instead of failing the plot.
	nan := &sdk.PlotRun{Timeslices: []sdk.PlotTimeslice{
		{Index: 0, Metrics: map[string]sdk.PlotStat{"Request Latency": {Unit: "ms", Stats: map[string]float64{"avg": 10, "std": math.NaN()}}}},
		{Index: 1, Metrics: map[string]sdk.PlotStat{"Request Latency": {Unit: "ms", Stats: map[string]float64{"avg": 12, "std": math.Inf(1)}}}},
		{Index: 2, Metrics: map[string]sdk.PlotStat{"Request Latency": {Unit: "ms", Stats: map[string]float64{"avg": math.NaN(), "std": 1}}}},
	}}
	for _, format := range []string{"png", "svg"} {
		if err := New(TimeslicesLatency).Render(nan, sdk.PlotOptions{Format: format, Width: 800, Height: 400, DPI: 100}, io.Discard); err != nil {
			t.Errorf("%s with non-finite window stats: %v", format, err)
		}
	}
	// Render without Applies on a run lacking the metric is an error, not a panic.
	if err := New(TTFTDistribution).Render(&sdk.PlotRun{}, sdk.PlotOptions{Format: "png"}, io.Discard); err == nil {
		t.Error("a distribution of no values rendered")
	}
	empty := &sdk.PlotRun{}
	for _, name := range SeriesNames {
		if err := New(name).Render(empty, sdk.PlotOptions{Format: "png"}, io.Discard); err == nil {
			t.Errorf("%s rendered a run without its data", name)
		}
	}
}

// pngAndSVG renders a plot as AIPerf's 2400x1200 PNG (checking it decodes
// at that size) and as a dark SVG, and returns the SVG's text.
func pngAndSVG(t *testing.T, render func(sdk.PlotOptions, io.Writer) error) string {
	t.Helper()
	var b bytes.Buffer
	if err := render(sdk.PlotOptions{Format: "png", Width: 1600, Height: 800, DPI: 150, Theme: "light"}, &b); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	if bd := img.Bounds(); bd.Dx() != 2400 || bd.Dy() != 1200 {
		t.Errorf("png %dx%d, want 2400x1200", bd.Dx(), bd.Dy())
	}
	b.Reset()
	if err := render(sdk.PlotOptions{Format: "svg", Width: 1600, Height: 800, Theme: "dark"}, &b); err != nil {
		t.Fatal(err)
	}
	return svgText(t, b.Bytes())
}
