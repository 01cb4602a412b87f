package plotdata

import (
	"math"
	"slices"
	"testing"

	"github.com/aiperf-go/aiperf/core/artifacts"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// telemetryRun is the checked-in run with timeslices, GPU telemetry and
// server metrics (testdata/plot/telemetry_run/README.md).
func telemetryRun(t *testing.T) *sdk.PlotRun {
	t.Helper()
	run, err := artifacts.ReadRun("../../../../testdata/plot/telemetry_run")
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// AIPerf's detect_directional_outliers: beyond run avg ± (run std + the
// window's std), above for a latency, below for a throughput.
func TestOutliers(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name         string
		ys, stds     []float64
		avg, std     float64
		higherBetter bool
		want         []bool
	}{
		{"latency", []float64{10, 14, 17}, []float64{0, 0, 5}, 12, 1, false, []bool{false, true, false}},
		{"latency without window stds", []float64{13, 13.5}, nil, 12, 1, false, []bool{false, true}},
		{"throughput", []float64{10, 14, 5}, []float64{0, 0, 5}, 12, 1, true, []bool{true, false, true}},
		{"no run std", []float64{100}, nil, 12, nan, false, []bool{false}},
		{"no run avg", []float64{100}, nil, nan, 1, false, []bool{false}},
		{"infinite run avg", []float64{100}, nil, math.Inf(1), 1, true, []bool{false}},
		// A window without a std is judged by the run's band alone (the HTML
		// report's rule; a PNG cannot draw such a window's bar).
		{"window without std", []float64{40, 14}, []float64{nan, math.Inf(1)}, 10.5, 0.5, false, []bool{true, true}},
		{"none", nil, nil, 1, 1, false, []bool{}},
	} {
		if got := Outliers(tc.ys, tc.stds, tc.avg, tc.std, tc.higherBetter); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The reference line comes from the summary, and not for a single-stat
// metric (AIPerf's _is_single_stat_metric).
func TestRunAverage(t *testing.T) {
	run := telemetryRun(t)
	if avg, std := RunAverage(run, "time_to_first_token"); avg != 15.928322666666666 || std != 0.2293197022212052 {
		t.Errorf("TTFT run average %v ± %v", avg, std)
	}
	if avg, std := RunAverage(run, "request_throughput"); !math.IsNaN(avg) || !math.IsNaN(std) {
		t.Errorf("request throughput (avg only) got a reference line %v ± %v", avg, std)
	}
	if avg, _ := RunAverage(run, "no_such_metric"); !math.IsNaN(avg) {
		t.Error("missing metric got a reference line")
	}
	noAvg := &sdk.PlotRun{Summary: map[string]sdk.PlotStat{"m": {Stats: map[string]float64{"std": 2, "p50": 1}}}}
	if avg, std := RunAverage(noAvg, "m"); !math.IsNaN(avg) || !math.IsNaN(std) {
		t.Errorf("a std without an avg: %v ± %v", avg, std)
	}
}

// The KV-cache series of the fixture: its avg and std over the run.
func TestSeriesAverage(t *testing.T) {
	kv := ServerSeries(telemetryRun(t), KVCacheMetrics, true)
	if len(kv) != 1 {
		t.Fatalf("%d KV-cache series", len(kv))
	}
	if avg, std := SeriesAverage(kv[0]); avg != 0.0015024038461538462 || std != 0.0025407954515155894 {
		t.Errorf("kv cache %v ± %v", avg, std)
	}
	if avg, std := SeriesAverage(sdk.PlotServerSeries{Stats: map[string]float64{"avg": 3, "std": 0.5}}); avg != 3 || std != 0.5 {
		t.Errorf("%v ± %v, want 3 ± 0.5", avg, std)
	}
	if avg, std := SeriesAverage(sdk.PlotServerSeries{Stats: map[string]float64{"std": 0.5}}); !math.IsNaN(avg) || !math.IsNaN(std) {
		t.Errorf("a std without an avg: %v ± %v", avg, std)
	}
}

// The fixture's TTFT windows (its timeslices.csv), and throughput windows
// that have no std.
func TestTimesliceWindows(t *testing.T) {
	run := telemetryRun(t)
	w := TimesliceWindows(run, "Time to First Token")
	if !slices.Equal(w.Index, []int{0, 1, 2, 3, 4}) || w.Unit != "ms" ||
		!slices.Equal(w.Avg, []float64{15.9, 15.99, 15.9, 15.95, 15.86}) || !slices.Equal(w.Std, []float64{0.18, 0.28, 0.22, 0.24, 0}) {
		t.Errorf("TTFT windows %+v", w)
	}
	if w := TimesliceWindows(run, "Request Throughput"); len(w.Index) != 5 || w.Std != nil || w.Unit != "requests/sec" {
		t.Errorf("throughput windows %+v", w)
	}
	if w := TimesliceWindows(run, "No Such Metric"); w.Index != nil || w.Avg != nil {
		t.Errorf("missing metric %+v", w)
	}
	// One window lacking its std drops every window's.
	mixed := &sdk.PlotRun{Timeslices: []sdk.PlotTimeslice{
		{Index: 3, Metrics: map[string]sdk.PlotStat{"L": {Stats: map[string]float64{"avg": 1, "std": 0.1}}}},
		{Index: 1, Metrics: map[string]sdk.PlotStat{"L": {Unit: "ms", Stats: map[string]float64{"avg": 2}}}},
		{Index: 2, Metrics: map[string]sdk.PlotStat{"L": {Stats: map[string]float64{"p50": 3}}}},
	}}
	if w := TimesliceWindows(mixed, "L"); !slices.Equal(w.Index, []int{3, 1}) || !slices.Equal(w.Avg, []float64{1, 2}) ||
		w.Std != nil || w.Unit != "ms" {
		t.Errorf("mixed windows %+v", w)
	}
}

func TestFinitePoints(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	xs, ys := FinitePoints([]float64{0, 1, 2, inf, 4, 5}, []float64{10, nan, 12, 13, -inf, 15, 16})
	if !slices.Equal(xs, []float64{0, 2, 5}) || !slices.Equal(ys, []float64{10, 12, 15}) {
		t.Errorf("FinitePoints = %v, %v", xs, ys)
	}
	if xs, ys := FinitePoints([]float64{1}, []float64{nan}); xs != nil || ys != nil {
		t.Errorf("no finite point: %v, %v, want nil", xs, ys)
	}
}

// AIPerf's aggregate_gpu_telemetry: the GPUs' mean at each sample time,
// a GPU without the value at a time left out of that mean.
func TestMeanAcrossGPUs(t *testing.T) {
	run := &sdk.PlotRun{GPUs: []sdk.PlotGPU{
		{Times: []float64{1, 0}, Metrics: map[string][]float64{"u": {40, 0}}},
		{Times: []float64{0, 1, 2}, Metrics: map[string][]float64{"u": {20, math.NaN(), 30}}},
	}}
	if xs, ys := MeanAcrossGPUs(run, "u"); !slices.Equal(xs, []float64{0, 1, 2}) || !slices.Equal(ys, []float64{10, 40, 30}) {
		t.Errorf("mean %v %v, want [0 1 2] [10 40 30]", xs, ys)
	}
	// The fixture's two GPUs: utilization 25 and 20 % at the first sample.
	if xs, ys := MeanAcrossGPUs(telemetryRun(t), "nvidia_gpu_utilization"); len(xs) != 14 || xs[0] != -0.044767622 || ys[0] != 22.5 || ys[1] != 45 {
		t.Errorf("fixture utilization mean: %d samples, first %v at %v", len(xs), ys, xs)
	}
}

// The first field any GPU has a finite value of, in the list's order.
func TestGPUField(t *testing.T) {
	nan := math.NaN()
	run := &sdk.PlotRun{GPUs: []sdk.PlotGPU{
		{Metrics: map[string][]float64{"nvidia_power_usage": {nan, nan}, "amd_power": {1}}},
		{Metrics: map[string][]float64{"nvidia_gpu_utilization": {math.Inf(1)}, "amd_temperature": {50}}},
	}}
	for _, tc := range []struct {
		fields []string
		want   string
		ok     bool
	}{
		{GPUPowerFields, "amd_power", true},
		{GPUActivityFields, "", false},
		{GPUTemperatureFields, "amd_temperature", true},
		{GPUMemoryUsedFields, "", false},
	} {
		if got, ok := GPUField(run, tc.fields); got != tc.want || ok != tc.ok {
			t.Errorf("GPUField(%v) = %q, %v; want %q, %v", tc.fields, got, ok, tc.want, tc.ok)
		}
	}
	if f, ok := GPUField(telemetryRun(t), GPUActivityFields); f != "nvidia_gpu_utilization" || !ok {
		t.Errorf("fixture activity field %q, %v", f, ok)
	}
}

func TestFieldLabel(t *testing.T) {
	for _, tc := range []struct{ field, display, axis, unit string }{
		{"nvidia_power_usage", "NVIDIA GPU Power Usage", "NVIDIA GPU Power Usage (W)", "W"},
		{"nvidia_gpu_utilization", "NVIDIA GPU Utilization", "NVIDIA GPU Utilization (%)", "%"},
		{"amd_temperature", "AMD GPU Temperature", "AMD GPU Temperature (°C)", "°C"},
		{"no_such_field", "no_such_field", "no_such_field", ""},
	} {
		if d, a, u := FieldLabel(tc.field); d != tc.display || a != tc.axis || u != tc.unit {
			t.Errorf("FieldLabel(%s) = %q, %q, %q", tc.field, d, a, u)
		}
	}
}

// A GPU's source shows only when the run scraped several.
func TestGPUName(t *testing.T) {
	one := &sdk.PlotRun{GPUs: []sdk.PlotGPU{{Index: 0, Source: "a"}, {Index: 1, Source: "a"}}}
	if got := GPUName(one, one.GPUs[1]); got != "GPU 1" {
		t.Errorf("one source: %q", got)
	}
	two := &sdk.PlotRun{GPUs: []sdk.PlotGPU{{Index: 0, Source: "a"}, {Index: 0, Source: "b"}}}
	if got := GPUName(two, two.GPUs[1]); got != "GPU 0 (b)" {
		t.Errorf("two sources: %q", got)
	}
}

// The first present metric (a series with a finite value), or all of them.
func TestServerSeriesAndLabels(t *testing.T) {
	nan := math.NaN()
	run := &sdk.PlotRun{ServerMetrics: []sdk.PlotServerSeries{
		{Metric: "vllm:kv_cache_usage_perc", Times: []float64{1}, Values: []float64{nan}},
		{Metric: "vllm:gpu_cache_usage_perc", Labels: map[string]string{"engine": "0", "model_name": "m"}, Times: []float64{1}, Values: []float64{0.9}},
		{Metric: "vllm:gpu_cache_usage_perc", Labels: map[string]string{"engine": "1", "model_name": "m"}, Times: []float64{1}, Values: []float64{0.8}},
		{Metric: "vllm:num_requests_waiting", Labels: map[string]string{"engine": "0"}, Times: []float64{1}, Values: []float64{2}},
		{Metric: "vllm:num_requests_running", Labels: map[string]string{"engine": "0"}, Times: []float64{1}, Values: []float64{3}},
	}}
	kv := ServerSeries(run, KVCacheMetrics, true)
	if len(kv) != 2 || kv[0].Metric != "vllm:gpu_cache_usage_perc" || kv[1].Labels["engine"] != "1" {
		t.Fatalf("KV-cache series %+v", kv)
	}
	if a, b := SeriesLabel(kv[0], kv), SeriesLabel(kv[1], kv); a != "vllm:gpu_cache_usage_perc engine=0" || b != "vllm:gpu_cache_usage_perc engine=1" {
		t.Errorf("labels %q, %q", a, b)
	}
	reqs := ServerSeries(run, RequestMetrics, false)
	if len(reqs) != 2 || reqs[0].Metric != "vllm:num_requests_running" || reqs[1].Metric != "vllm:num_requests_waiting" {
		t.Fatalf("request series %+v", reqs)
	}
	// Labels that do not tell series of one metric apart are left out.
	if got := SeriesLabel(reqs[1], reqs); got != "vllm:num_requests_waiting" {
		t.Errorf("label %q", got)
	}
	three := []sdk.PlotServerSeries{
		{Metric: "m", Labels: map[string]string{"b": "1", "a": "1", "c": "1"}},
		{Metric: "m", Labels: map[string]string{"b": "2", "a": "2", "c": "1"}},
	}
	if got := SeriesLabel(three[0], three); got != "m a=1, b=1" {
		t.Errorf("two telling labels: %q", got)
	}
	if got := ServerSeries(run, []string{"no_such_metric"}, true); got != nil {
		t.Errorf("missing metric: %+v", got)
	}
}

func TestLabelsAndDirection(t *testing.T) {
	if got := AxisLabel("Request Latency", "ms"); got != "Request Latency (ms)" {
		t.Errorf("AxisLabel = %q", got)
	}
	if got := AxisLabel("Requests", ""); got != "Requests" {
		t.Errorf("AxisLabel without unit = %q", got)
	}
	for metric, want := range map[string]bool{"Request Throughput": true, "output_token_throughput": true,
		"Time to First Token": false, "vllm:kv_cache_usage_perc": false} {
		if got := HigherIsBetter(metric); got != want {
			t.Errorf("HigherIsBetter(%q) = %v", metric, got)
		}
	}
}
