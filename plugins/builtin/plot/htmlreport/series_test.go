package htmlreport

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	plotbuiltin "github.com/aiperf-go/aiperf/plugins/builtin/plot"
)

// The telemetry fixture's report carries the PNGs' time-series charts,
// after the per-request ones, with the fixture's numbers (values checked
// against the fixture's files: core/artifacts reads them the same way).
func TestTelemetryRunDataCarriesTheSeries(t *testing.T) {
	run := telemetryRun(t)
	page := render(t, []*sdk.PlotRun{run}, Options{Metrics: builtinSpecs(t)})
	d := embeddedData(t, page)
	var ids []string
	byID := map[string]int{}
	for i, c := range d.Charts {
		ids = append(ids, c.ID)
		byID[c.ID] = i
	}
	if want := append(slices.Clone(plotbuiltin.Names), plotbuiltin.SeriesNames...); !slices.Equal(ids, want) {
		t.Fatalf("charts %v, want %v", ids, want)
	}

	ttft := d.Charts[byID[plotbuiltin.TimeslicesTTFT]]
	if ttft.Kind != kindTimeslice || ttft.Title != "Time to First Token Across Time Slices" || ttft.XLabel != "Timeslice (s)" ||
		ttft.YLabel != "Time to First Token (ms)" || ttft.Unit != "ms" || ttft.Windows != 5 || ttft.SliceDuration != 1 ||
		!slices.Equal(ttft.X, []float64{0, 1, 2, 3, 4}) || !slices.Equal(ttft.Y, []float64{15.9, 15.99, 15.9, 15.95, 15.86}) ||
		!slices.Equal(ttft.Err, []float64{0.18, 0.28, 0.22, 0.24, 0}) {
		t.Errorf("timeslices_ttft %+v", ttft)
	}
	if ttft.RunAvg == nil || *ttft.RunAvg != 15.928322666666666 || ttft.RunStd == nil || *ttft.RunStd != 0.2293197022212052 {
		t.Errorf("timeslices_ttft run average %v ± %v", ttft.RunAvg, ttft.RunStd)
	}
	// Request throughput: the summary has only its avg (no run line), the windows no std.
	tput := d.Charts[byID[plotbuiltin.TimeslicesThroughput]]
	if tput.RunAvg != nil || tput.Err != nil || !tput.HigherBetter || tput.YLabel != "Request Throughput (requests/sec)" ||
		!slices.Equal(tput.Y, []float64{9, 7, 8, 5, 5.95}) {
		t.Errorf("timeslices_throughput %+v", tput)
	}
	if itl := d.Charts[byID[plotbuiltin.TimeslicesITL]]; itl.Y[4] != 1.98 || itl.HigherBetter {
		t.Errorf("timeslices_itl %+v", itl)
	}

	// A line per GPU, times in s from the first request (the first sample 44.767622 ms before it).
	power := d.Charts[byID[plotbuiltin.GPUPowerOverTime]]
	if power.Kind != kindLines || power.Title != "NVIDIA GPU Power Usage Over Time" || power.YLabel != "NVIDIA GPU Power Usage (W)" ||
		power.XLabel != "Time (s)" || len(power.Lines) != 2 || power.Lines[0].Name != "GPU 0" || power.Lines[1].Name != "GPU 1" {
		t.Fatalf("gpu power %+v", power)
	}
	for _, l := range power.Lines {
		if len(l.X) != 14 || len(l.Y) != 14 || l.X[0] != -0.04476762 || l.X[13] != 4.169299 {
			t.Errorf("%s: %d times %v", l.Name, len(l.X), l.X)
		}
	}
	if power.Lines[0].Y[0] != 227.5 || power.Lines[0].Y[1] != 385 || power.Lines[1].Y[0] != 196 {
		t.Errorf("power %v / %v", power.Lines[0].Y, power.Lines[1].Y)
	}
	if mem := d.Charts[byID[plotbuiltin.GPUMemoryUsedOverTime]]; mem.Unit != "GB" || mem.Lines[1].Y[13] != 1.073742 {
		t.Errorf("gpu memory %+v", mem)
	}
	if util := d.Charts[byID[plotbuiltin.GPUUtilizationOverTime]]; util.YMax != 100 || util.YLabel != "NVIDIA GPU Utilization (%)" {
		t.Errorf("gpu utilization y max %v label %q", util.YMax, util.YLabel)
	}
	if temp := d.Charts[byID[plotbuiltin.GPUTemperatureOverTime]]; temp.YLabel != "NVIDIA GPU Temperature (°C)" || temp.YMax != 0 ||
		temp.Lines[0].Y[1] != 58 {
		t.Errorf("gpu temperature %+v", temp)
	}

	// Throughput with utilization: the GPUs' mean (25 and 20 % make 22.5) on the right axis.
	dual := d.Charts[byID[plotbuiltin.GPUUtilizationThroughput]]
	if dual.Kind != kindThroughputGPU || dual.Title != "Output Token Throughput with GPU Utilization" ||
		dual.Subtitle != "GPU activity semantics are vendor-specific and not comparable across vendors." ||
		dual.YLabel != "Output Token Throughput (tokens/s)" || dual.Y2Label != "NVIDIA GPU Utilization (%)" || dual.OriginMs != 0 ||
		len(dual.Lines) != 1 || !slices.Equal(dual.Lines[0].Y, []float64{22.5, 45, 0, 22.5, 22.5, 0, 45, 0, 0, 22.5, 0, 0, 0, 0}) {
		t.Errorf("throughput and utilization %+v", dual)
	}

	// Server metrics: KV-cache usage as a scatter with its run average, requests as two lines.
	kv := d.Charts[byID[plotbuiltin.ServerKVCacheUsageOverTime]]
	if kv.Kind != kindTimeslice || kv.Title != "vllm:kv_cache_usage_perc Over Time" || kv.YLabel != "vllm:kv_cache_usage_perc (ratio)" ||
		kv.Windows != 0 || !slices.Equal(kv.Y, []float64{0.001953125, 0.002604167, 0.001302083, 0}) ||
		!slices.Equal(kv.X, []float64{0.786176, 1.786176, 2.786176, 3.727613}) || kv.Err != nil {
		t.Errorf("kv cache %+v", kv)
	}
	if kv.RunAvg == nil || *kv.RunAvg != 0.0015024038461538462 || kv.XMin == nil || math.Abs(*kv.XMin-0.286175966) > 1e-9 ||
		kv.XMax == nil || math.Abs(*kv.XMax-4.227613301) > 1e-9 {
		t.Errorf("kv cache run average %v, x range %v..%v", kv.RunAvg, kv.XMin, kv.XMax)
	}
	reqs := d.Charts[byID[plotbuiltin.ServerRequestsOverTime]]
	if reqs.Kind != kindLines || reqs.Title != "Server Requests Running and Waiting Over Time" || reqs.YLabel != "Requests" ||
		len(reqs.Lines) != 2 || reqs.Lines[0].Name != "vllm:num_requests_running" || reqs.Lines[1].Name != "vllm:num_requests_waiting" ||
		!slices.Equal(reqs.Lines[0].Y, []float64{0.5, 0.6666667, 0.3333333, 0}) {
		t.Errorf("server requests %+v", reqs)
	}

	// Compact: plain arrays of numbers, 7 significant digits.
	for _, want := range []string{`"y":[227.5,385,70,227.5,227.5,70,385,70,70,227.5,70,70,70,70]`,
		`"x":[-0.04476762,0.2857516,0.6188978,`, `"y":[15.9,15.99,15.9,15.95,15.86],"err":[0.18,0.28,0.22,0.24,0]`} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("data block lacks %s", want)
		}
	}
	if !bytes.Contains(page, []byte(`<h3 id="over-time">`)) {
		t.Error("no heading over the time-series charts")
	}
}

// The windows beyond the run's band travel in the data, picked by the
// PNGs' rule: above it for a latency, below it for a throughput (whose
// summary here has a std, so it gets a band), none without a band.
func TestOutliersTravelInTheData(t *testing.T) {
	run := telemetryRun(t)
	run.Timeslices[2].Metrics["Time to First Token"].Stats["avg"] = 30
	run.Timeslices[1].Metrics["Request Throughput"].Stats["avg"] = 0.5
	run.Summary["request_throughput"] = sdk.PlotStat{Stats: map[string]float64{"avg": 7, "std": 1, "p50": 7}}
	d := embeddedData(t, render(t, []*sdk.PlotRun{run}, Options{}))
	want := map[string][]int{plotbuiltin.TimeslicesTTFT: {2}, plotbuiltin.TimeslicesThroughput: {1, 3, 4},
		plotbuiltin.TimeslicesITL: nil, plotbuiltin.ServerKVCacheUsageOverTime: nil}
	seen := 0
	for _, c := range d.Charts {
		if w, ok := want[c.ID]; ok {
			seen++
			if !slices.Equal(c.Outliers, w) {
				t.Errorf("%s: outliers %v, want %v (y %v, band %v ± %v)", c.ID, c.Outliers, w, c.Y, c.RunAvg, c.RunStd)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("%d of the %d charts", seen, len(want))
	}
}

// single_run wrote no timeslices, telemetry or server metrics: no
// time-series chart, no heading, nothing of their data.
func TestSingleRunHasNoSeriesCharts(t *testing.T) {
	run := singleRun(t)
	if len(run.Timeslices)+len(run.GPUs)+len(run.ServerMetrics) != 0 {
		t.Fatal("fixture: single_run has time series")
	}
	page := render(t, []*sdk.PlotRun{run}, Options{})
	for _, c := range embeddedData(t, page).Charts {
		if slices.Contains(plotbuiltin.SeriesNames, c.ID) || c.Lines != nil || c.Y != nil {
			t.Errorf("single_run has time-series chart %s", c.ID)
		}
	}
	for _, bad := range []string{`id="over-time"`, `"lines":`, `"windows":`, `"run_avg":`} {
		if bytes.Contains(page, []byte(bad)) {
			t.Errorf("page contains %s", bad)
		}
	}
}

// Edge cases of the series data: a window index no category axis should
// hold, a GPU sample without the field, GPUs of two sources, several
// series of the KV-cache metric, and a run with telemetry but no requests.
func TestSeriesChartEdgeCases(t *testing.T) {
	for _, tc := range seriesEdgeCases() {
		t.Run(tc.name, func(t *testing.T) {
			byID := map[string]chartSpec{}
			for _, c := range seriesCharts(tc.run) {
				byID[c.ID] = c
			}
			tc.check(t, byID)
			// Every chart renders into a page.
			if page := string(render(t, []*sdk.PlotRun{tc.run}, Options{})); !strings.Contains(page, `id="over-time"`) {
				t.Error("page lacks the time-series charts")
			}
		})
	}
}

type seriesEdgeCase struct {
	name  string
	run   *sdk.PlotRun
	check func(t *testing.T, byID map[string]chartSpec)
}

// seriesEdgeCases are runs the browser test opens too.
func seriesEdgeCases() []seriesEdgeCase {
	nan := math.NaN()
	return []seriesEdgeCase{
		{"huge window index", &sdk.PlotRun{SliceDuration: 0.5, Timeslices: []sdk.PlotTimeslice{
			{Index: 5, Metrics: map[string]sdk.PlotStat{"Request Latency": {Unit: "ms", Stats: map[string]float64{"avg": 40, "std": 2}}}},
			{Index: 200_000, Metrics: map[string]sdk.PlotStat{"Request Latency": {Unit: "ms", Stats: map[string]float64{"avg": 50}}}},
		}}, func(t *testing.T, byID map[string]chartSpec) {
			c := byID[plotbuiltin.TimeslicesLatency]
			// On a value axis at the windows' middles; one window lacks its std, so none has a bar.
			if c.Windows != 0 || !slices.Equal(c.X, nums{2.75, 100000.25}) || c.Err != nil || *c.XMin != 2.25 || *c.XMax != 100000.75 {
				t.Errorf("latency %+v", c)
			}
		}},
		{"no slice duration", &sdk.PlotRun{Timeslices: []sdk.PlotTimeslice{
			{Index: 0, Metrics: map[string]sdk.PlotStat{"Inter Token Latency": {Stats: map[string]float64{"avg": 2, "std": 0.1}}}},
			{Index: 2, Metrics: map[string]sdk.PlotStat{"Inter Token Latency": {Stats: map[string]float64{"avg": 3, "std": 0.2}}}},
		}}, func(t *testing.T, byID map[string]chartSpec) {
			c := byID[plotbuiltin.TimeslicesITL]
			if c.Windows != 3 || c.SliceDuration != 0 || c.XLabel != "Timeslice" || c.YLabel != "Inter Token Latency" ||
				!slices.Equal(c.X, nums{0, 2}) || !slices.Equal(c.Err, nums{0.1, 0.2}) {
				t.Errorf("itl %+v", c)
			}
		}},
		{"GPUs of two sources, a sample without power", &sdk.PlotRun{GPUs: []sdk.PlotGPU{
			{Index: 0, Source: "a", Times: []float64{0, 1, 2}, Metrics: map[string][]float64{"nvidia_power_usage": {100, nan, 120}}},
			{Index: 0, Source: "b", Times: []float64{0, 1}, Metrics: map[string][]float64{"nvidia_power_usage": {200, 210}, "amd_temperature": {50, 51}}},
		}}, func(t *testing.T, byID map[string]chartSpec) {
			c := byID[plotbuiltin.GPUPowerOverTime]
			if len(c.Lines) != 2 || c.Lines[0].Name != "GPU 0 (a)" || c.Lines[1].Name != "GPU 0 (b)" ||
				!slices.Equal(c.Lines[0].X, nums{0, 2}) || !slices.Equal(c.Lines[0].Y, nums{100, 120}) {
				t.Errorf("power %+v", c.Lines)
			}
			// Temperature falls back to AMD's field; only GPU b has it.
			temp := byID[plotbuiltin.GPUTemperatureOverTime]
			if temp.Title != "AMD GPU Temperature Over Time" || len(temp.Lines) != 1 || temp.Lines[0].Name != "GPU 0 (b)" {
				t.Errorf("temperature %+v", temp)
			}
			if _, ok := byID[plotbuiltin.GPUUtilizationOverTime]; ok {
				t.Error("a utilization chart without utilization")
			}
		}},
		{"two KV-cache series", &sdk.PlotRun{ServerMetrics: []sdk.PlotServerSeries{
			{Metric: "vllm:gpu_cache_usage_perc", Unit: "ratio", Times: []float64{1}, Values: []float64{0.9}},
			{Metric: "vllm:kv_cache_usage_perc", Unit: "ratio", Labels: map[string]string{"engine": "0", "model_name": "m"}, Times: []float64{1, 2}, Values: []float64{0.1, 0.2}},
			{Metric: "vllm:kv_cache_usage_perc", Unit: "ratio", Labels: map[string]string{"engine": "1", "model_name": "m"}, Times: []float64{1, 2}, Values: []float64{0.3, nan}},
		}}, func(t *testing.T, byID map[string]chartSpec) {
			c := byID[plotbuiltin.ServerKVCacheUsageOverTime]
			if c.Kind != kindLines || c.Unit != "ratio" || len(c.Lines) != 2 || c.Lines[0].Name != "vllm:kv_cache_usage_perc engine=0" ||
				c.Lines[1].Name != "vllm:kv_cache_usage_perc engine=1" || !slices.Equal(c.Lines[1].Y, nums{0.3}) {
				t.Errorf("kv cache %+v", c)
			}
		}},
		{"telemetry without requests", &sdk.PlotRun{GPUs: []sdk.PlotGPU{
			{Index: 0, Times: []float64{0, 1}, Metrics: map[string][]float64{"nvidia_gpu_utilization": {10, 20}}},
		}}, func(t *testing.T, byID map[string]chartSpec) {
			if _, ok := byID[plotbuiltin.GPUUtilizationThroughput]; ok {
				t.Error("a throughput chart without requests")
			}
			if c := byID[plotbuiltin.GPUUtilizationOverTime]; len(c.Lines) != 1 || c.Lines[0].Name != "GPU 0" {
				t.Errorf("utilization %+v", c)
			}
		}},
	}
}
