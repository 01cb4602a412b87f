package sdktest

import (
	"context"
	"math"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

type fakeGPU struct {
	source string
	gpus   []sdk.GPUReading
	err    error
	panics bool
}

func (f fakeGPU) Source() string { return f.source }
func (f fakeGPU) Sample(context.Context) ([]sdk.GPUReading, error) {
	if f.panics {
		panic("driver gone")
	}
	return f.gpus, f.err
}

type fakeServer struct {
	source string
	body   string
}

func (f fakeServer) Source() string { return f.source }
func (f fakeServer) Scrape(context.Context) (sdk.ServerMetricsScrape, error) {
	return sdk.ServerMetricsScrape{Body: []byte(f.body), ContentType: "text/plain"}, nil
}

func TestTelemetryCollectorsConforming(t *testing.T) {
	good := fakeGPU{source: "pynvml://localhost", gpus: []sdk.GPUReading{
		{Index: 0, UUID: "GPU-a", Metrics: map[string]float64{"nvidia_power_usage": 300}},
		{Index: 1, UUID: "GPU-b", Metrics: map[string]float64{}}}}
	runSuite(t, func(tb testing.TB) { GPUCollector(tb, good) }).wantClean(t)
	runSuite(t, func(tb testing.TB) {
		ServerMetricsCollector(tb, fakeServer{source: "http://host:8000/metrics", body: "up 1\n"})
	}).wantClean(t)
}

func TestTelemetryCollectorsReportEachViolation(t *testing.T) {
	for _, tc := range []struct {
		name  string
		check func(tb testing.TB)
		want  []string
	}{
		{"no source", func(tb testing.TB) { GPUCollector(tb, fakeGPU{}) }, []string{"Source() is empty"}},
		{"credentials in the source", func(tb testing.TB) {
			ServerMetricsCollector(tb, fakeServer{source: "http://user:pw@host/metrics", body: "up 1\n"})
		}, []string{"looks like it carries credentials"}},
		{"no UUID", func(tb testing.TB) {
			GPUCollector(tb, fakeGPU{source: "s", gpus: []sdk.GPUReading{{Index: 0}}})
		}, []string{"no UUID"}},
		{"duplicate GPU", func(tb testing.TB) {
			GPUCollector(tb, fakeGPU{source: "s", gpus: []sdk.GPUReading{{UUID: "x"}, {UUID: "x"}}})
		}, []string{"UUID x reported twice"}},
		{"NaN value", func(tb testing.TB) {
			GPUCollector(tb, fakeGPU{source: "s", gpus: []sdk.GPUReading{{UUID: "x", Metrics: map[string]float64{"p": math.NaN()}}}})
		}, []string{"metric p is NaN"}},
		{"panic", func(tb testing.TB) { GPUCollector(tb, fakeGPU{source: "s", panics: true}) }, []string{"Sample panicked", "driver gone"}},
		{"empty scrape", func(tb testing.TB) { ServerMetricsCollector(tb, fakeServer{source: "s"}) }, []string{"empty body"}},
	} {
		t.Run(tc.name, func(t *testing.T) { runSuite(t, tc.check).wantReport(t, tc.want...) })
	}
}
