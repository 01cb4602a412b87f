package main

import (
	"bytes"
	"image/png"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/sdktest"
)

// The plot passes the SDK's conformance checks in process (sizes, themes,
// SVG, settings); cmd/aiperf's tests run it as a process.
func TestConformance(t *testing.T) {
	sdktest.Plot(t, New())
}

func TestApplies(t *testing.T) {
	p := New()
	for _, tc := range []struct {
		name string
		run  *sdk.PlotRun
		want bool
	}{
		{"sample", sdktest.SamplePlotRun(10), true},
		{"no requests", &sdk.PlotRun{}, false},
		{"failed requests only", &sdk.PlotRun{Requests: []sdk.PlotRequest{
			{Error: true, Metrics: map[string]float64{"time_to_first_token": 5}}}}, false},
		{"not streamed", &sdk.PlotRun{Requests: []sdk.PlotRequest{{Metrics: map[string]float64{"request_latency": 5}}}}, false},
	} {
		if got := p.Applies(tc.run); got != tc.want {
			t.Errorf("%s: Applies = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The percentiles follow numpy's linear interpolation (AIPerf's p50/p90/p99).
func TestQuantile(t *testing.T) {
	vs := []float64{10, 20, 30, 40}
	for _, tc := range []struct{ q, want float64 }{{0.5, 25}, {0.9, 37}, {0.99, 39.7}, {0.01, 10.3}} {
		if got := quantile(vs, tc.q); got < tc.want-1e-9 || got > tc.want+1e-9 {
			t.Errorf("quantile(%v) = %v, want %v", tc.q, got, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	p := New()
	if err := p.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	if err := sdk.ApplyConfig(p, "plot.ttft_cdf", []byte(`{"percentiles": [50, 100]}`)); err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "percentiles: 100 is not between 0 and 100") {
		t.Errorf("Validate = %v", err)
	}
}

// A 100k-request run draws, at the size asked.
func TestRenderLargeRun(t *testing.T) {
	var buf bytes.Buffer
	opts := sdk.PlotOptions{Format: "png", Width: 1600, Height: 800, DPI: 150, Theme: "dark"}
	if err := New().Render(sdktest.SamplePlotRun(100_000), opts, &buf); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 2400 || b.Dy() != 1200 {
		t.Errorf("PNG %dx%d, want 2400x1200", b.Dx(), b.Dy())
	}
}
