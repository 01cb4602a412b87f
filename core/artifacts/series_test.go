package artifacts

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

const telemetryFixture = "../../testdata/plot/telemetry_run"

// The telemetry fixture is a real run against the mock (its README): 30
// requests, five one-second windows, two DCGM GPUs sampled 14 times, the
// mock's vLLM page with per-slice values.
func TestReadRunSeriesFixture(t *testing.T) {
	run, err := ReadRun(telemetryFixture)
	if err != nil {
		t.Fatal(err)
	}
	if run.StartNs != 1795695730276371874 || run.SliceDuration != 1 {
		t.Errorf("StartNs %d SliceDuration %v, want the first request start and 1", run.StartNs, run.SliceDuration)
	}

	if len(run.Timeslices) != 5 {
		t.Fatalf("%d timeslices, want 5", len(run.Timeslices))
	}
	ts0 := run.Timeslices[0]
	if ts0.Index != 0 || ts0.StartNs != 1795695730276371968 || ts0.EndNs != 1795695731276371968 {
		t.Errorf("slice 0 = %d %d..%d", ts0.Index, ts0.StartNs, ts0.EndNs)
	}
	ttft := ts0.Metrics["Time to First Token"]
	if ttft.Unit != "ms" || ttft.Stats["avg"] != 15.9 || ttft.Stats["std"] != 0.18 || ttft.Stats["p99"] != 16.22 {
		t.Errorf("slice 0 TTFT = %+v", ttft)
	}
	if got := run.Timeslices[4].Metrics["Inter Token Latency"].Stats["avg"]; got != 1.98 {
		t.Errorf("slice 4 ITL avg = %v, want 1.98", got)
	}
	if got := run.Timeslices[4].Metrics["Request Throughput"]; got.Unit != "requests/sec" || got.Stats["avg"] != 5.95 {
		t.Errorf("slice 4 request throughput = %+v", got)
	}

	if len(run.GPUs) != 2 {
		t.Fatalf("%d GPUs, want 2", len(run.GPUs))
	}
	for i, g := range run.GPUs {
		if g.Index != i || g.Name != "NVIDIA H100 80GB HBM3" || g.Source != "http://127.0.0.1:18948/dcgm/metrics" || len(g.Times) != 14 {
			t.Errorf("GPU %d = index %d %q %q, %d samples", i, g.Index, g.Name, g.Source, len(g.Times))
		}
		if len(g.Metrics) != 11 {
			t.Errorf("GPU %d has %d fields, want the 11 of the mock's DCGM page", i, len(g.Metrics))
		}
		for f, v := range g.Metrics {
			if len(v) != len(g.Times) {
				t.Errorf("GPU %d %s: %d values for %d samples", i, f, len(v), len(g.Times))
			}
		}
	}
	g0 := run.GPUs[0]
	// The first sample precedes the first request by 44.767622 ms.
	if g0.Times[0] != -0.044767622 || g0.Metrics["nvidia_power_usage"][0] != 227.5 || g0.UUID != "GPU-5fd4c4a2-6a1b-4c1e-9f0a-000000000000" {
		t.Errorf("GPU 0 first sample at %v: power %v, uuid %s", g0.Times[0], g0.Metrics["nvidia_power_usage"][0], g0.UUID)
	}
	if last := run.GPUs[1].Metrics["nvidia_memory_used"][13]; last != 1.073741824 {
		t.Errorf("GPU 1 last memory used %v, want 1.073741824 GB", last)
	}

	byMetric := map[string][]int{}
	for i, s := range run.ServerMetrics {
		byMetric[s.Metric] = append(byMetric[s.Metric], i)
	}
	kv := run.ServerMetrics[byMetric["vllm:kv_cache_usage_perc"][0]]
	if kv.Type != "gauge" || kv.Unit != "ratio" || kv.Endpoint != "http://127.0.0.1:18948/metrics" ||
		!slices.Equal(kv.Values, []float64{0.001953125, 0.0026041666666666665, 0.0013020833333333333, 0}) {
		t.Errorf("kv cache series = %+v", kv)
	}
	if kv.Stats["avg"] != 0.0015024038461538462 {
		t.Errorf("kv cache avg %v", kv.Stats["avg"])
	}
	// A slice's value sits at its middle: 1795695730562547840 + 0.5 s.
	if kv.Times[0] != 0.786175966 {
		t.Errorf("kv cache first time %v, want 0.786175966", kv.Times[0])
	}
	gen := run.ServerMetrics[byMetric["vllm:generation_tokens"][0]]
	if gen.Type != "counter" || gen.Values[0] != 133 { // a counter plots its rate
		t.Errorf("generation tokens = %+v", gen)
	}
	succ := byMetric["vllm:request_success"]
	if len(succ) != 2 || run.ServerMetrics[succ[0]].Labels["finished_reason"] != "length" ||
		run.ServerMetrics[succ[1]].Labels["finished_reason"] != "stop" {
		t.Errorf("request_success series not in label order: %v", succ)
	}
	if !slices.IsSortedFunc(run.ServerMetrics, func(a, b sdk.PlotServerSeries) int { return strings.Compare(a.Metric, b.Metric) }) {
		t.Error("server series not sorted by metric")
	}
}

func TestReadRunWithoutSeries(t *testing.T) {
	run, err := ReadRun(fixture)
	if err != nil {
		t.Fatal(err)
	}
	if run.Timeslices != nil || run.GPUs != nil || run.ServerMetrics != nil || run.SliceDuration != 0 {
		t.Errorf("single_run has no series files, got %d slices, %d GPUs, %d server series, slice %v",
			len(run.Timeslices), len(run.GPUs), len(run.ServerMetrics), run.SliceDuration)
	}
}

// writeRun writes a minimal run (no requests) plus files.
func writeRun(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	base := map[string]string{SummaryFile: `{}`, RecordsFile: ""}
	for f, body := range files {
		base[f] = body
	}
	for f, body := range base {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// AIPerf's loader reads legacy field names as today's, a field a sample
// lacks is NaN there, and a run without requests starts at its first sample.
func TestReadGPUTelemetryAlignsFields(t *testing.T) {
	dir := writeRun(t, map[string]string{GPUTelemetryFile: `{"gpu_index":0,"gpu_uuid":"u0","timestamp_ns":5000000000,"telemetry_source_url":"s","telemetry_data":{"gpu_power_usage":100}}
{"gpu_index":1,"gpu_uuid":"u1","timestamp_ns":5000000000,"telemetry_source_url":"s","telemetry_data":{"nvidia_power_usage":90}}

{"gpu_index":0,"gpu_uuid":"u0","timestamp_ns":6500000000,"telemetry_source_url":"s","telemetry_data":{"nvidia_power_usage":110,"gpu_power_usage":1,"nvidia_gpu_utilization":50}}
{"gpu_index":0,"gpu_uuid":"u0","timestamp_ns":7000000000,"telemetry_source_url":"s","telemetry_data":{"nvidia_gpu_utilization":null}}
`})
	run, err := ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if run.StartNs != 5000000000 || len(run.GPUs) != 2 {
		t.Fatalf("StartNs %d, %d GPUs", run.StartNs, len(run.GPUs))
	}
	g := run.GPUs[0]
	same := func(a, b []float64) bool {
		return slices.EqualFunc(a, b, func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) })
	}
	nan := math.NaN()
	if !same(g.Times, []float64{0, 1.5, 2}) || !same(g.Metrics["nvidia_power_usage"], []float64{100, 110, nan}) ||
		!same(g.Metrics["nvidia_gpu_utilization"], []float64{nan, 50, nan}) || len(g.Metrics) != 2 {
		t.Errorf("GPU 0 = times %v, fields %v", g.Times, g.Metrics)
	}
	if g1 := run.GPUs[1]; g1.Index != 1 || !same(g1.Metrics["nvidia_power_usage"], []float64{90}) {
		t.Errorf("GPU 1 = %+v", g1)
	}
}

func TestReadSeriesBadFiles(t *testing.T) {
	const csvHeader = "Timeslice,Start_NS,End_NS,Metric,Unit,Stat,Value\r\n"
	const gpuOK = `{"gpu_index":0,"timestamp_ns":1,"telemetry_data":{}}` + "\n"
	for _, tc := range []struct {
		name, file, body string
		want             []string
	}{
		{"timeslice value", TimeslicesFile, csvHeader + "0,1,2,Request Latency,ms,avg,1.5\r\n0,1,2,Request Latency,ms,p50,fast\r\n",
			[]string{TimeslicesFile + ":3:", `Value "fast" is not a number`}},
		{"timeslice index", TimeslicesFile, csvHeader + "x,1,2,Request Latency,ms,avg,1.5\r\n",
			[]string{TimeslicesFile + ":2:", `Timeslice "x"`}},
		{"timeslice start", TimeslicesFile, csvHeader + "0,soon,2,Request Latency,ms,avg,1.5\r\n",
			[]string{TimeslicesFile + ":2:", `Start_NS "soon"`}},
		{"timeslice columns", TimeslicesFile, "Timeslice,Metric,Unit,Stat\r\n0,a,b,c\r\n",
			[]string{TimeslicesFile + ":1:", "lacks column Value"}},
		{"timeslice field count", TimeslicesFile, csvHeader + "0,1,2,Request Latency,ms,avg\r\n",
			[]string{TimeslicesFile + ":2:", "wrong number of fields"}},
		{"timeslice quote", TimeslicesFile, csvHeader + "0,1,2,Request Latency,ms,avg,1.5\r\n0,1,2,\"Request Latency,ms,avg,1.5\r\n",
			[]string{TimeslicesFile + ":3:"}},
		{"gpu json", GPUTelemetryFile, gpuOK + "{\"gpu_index\":0,\n", []string{GPUTelemetryFile + ":2:"}},
		{"gpu timestamp", GPUTelemetryFile, `{"gpu_index":0,"telemetry_data":{}}` + "\n", []string{GPUTelemetryFile + ":1:", "no timestamp_ns"}},
		{"gpu index", GPUTelemetryFile, gpuOK + gpuOK + `{"timestamp_ns":1}` + "\n", []string{GPUTelemetryFile + ":3:", "no gpu_index"}},
		{"gpu value", GPUTelemetryFile, `{"gpu_index":0,"timestamp_ns":1,"telemetry_data":{"nvidia_power_usage":"hot"}}` + "\n",
			[]string{GPUTelemetryFile + ":1:"}},
		{"server syntax", ServerMetricsFile, "{\n  \"metrics\": {\n    \"a\": {\"type\": \"gauge\",,\n", []string{ServerMetricsFile + ":3:"}},
		{"server type", ServerMetricsFile, "{\n  \"metrics\": {\n    \"a\": {\n      \"series\": \"many\"\n    }\n  }\n}\n", []string{ServerMetricsFile + ":4:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeRun(t, map[string]string{tc.file: tc.body})
			_, err := ReadRun(dir)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range append(tc.want, filepath.Join(dir, tc.file)) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// A series without timeslices (a run without --slice-duration) has no
// time series; an empty timeslice file has no windows.
func TestReadSeriesEmpty(t *testing.T) {
	dir := writeRun(t, map[string]string{
		TimeslicesFile:    "",
		ServerMetricsFile: `{"metrics":{"vllm:kv_cache_usage_perc":{"type":"gauge","series":[{"endpoint_url":"u","stats":{"avg":0.5}}]}}}`,
	})
	run, err := ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Timeslices) != 0 || len(run.ServerMetrics) != 0 || run.StartNs != 0 {
		t.Errorf("got %d slices, %d server series, start %d", len(run.Timeslices), len(run.ServerMetrics), run.StartNs)
	}
}
