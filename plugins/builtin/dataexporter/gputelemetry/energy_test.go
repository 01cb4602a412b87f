package gputelemetry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/csvexport"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/gputelemetry"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/jsonexport"
)

const energyFixture = "../../../../testdata/aiperf013/gpu_telemetry_dcgm/profile_export_aiperf.json"

// fixtureDoc is AIPerf 0.13's summary JSON: top-level keys in file order
// and each metric's unit and avg.
func fixtureDoc(t *testing.T, path string) (keys []string, metrics map[string]struct {
	Unit string   `json:"unit"`
	Avg  *float64 `json:"avg"`
}) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	all := map[string]json.RawMessage{}
	if err := json.Unmarshal(raw, &all); err != nil {
		t.Fatal(err)
	}
	metrics = map[string]struct {
		Unit string   `json:"unit"`
		Avg  *float64 `json:"avg"`
	}{}
	for k, v := range all {
		var m struct {
			Unit string   `json:"unit"`
			Avg  *float64 `json:"avg"`
		}
		if json.Unmarshal(v, &m) == nil && m.Avg != nil {
			metrics[k] = m
		}
	}
	return keys, metrics
}

func f64(v float64) *float64 { return &v }

// fixtureContext rebuilds the inputs of the fixture's run: the client
// results AIPerf joined (from the fixture), its profiling window
// (start_time to end_time, 2.653861135 s: AIPerf's energy / average power),
// and two GPUs whose energy counters moved by the fixture's per-GPU deltas
// and whose power averages over the window sum to its total GPU power.
func fixtureContext(t *testing.T, path string) *sdk.ExportContext {
	t.Helper()
	_, fx := fixtureDoc(t, path)
	res := &sdk.Results{}
	for _, tag := range []string{"total_osl", "total_isl", "request_count", "request_latency",
		"request_throughput", "output_token_throughput", "benchmark_duration"} {
		m, ok := fx[tag]
		if !ok {
			t.Fatalf("fixture lacks %s", tag)
		}
		res.Metrics = append(res.Metrics, sdk.MetricResult{Tag: tag, Header: tag, Unit: m.Unit, Avg: f64(*m.Avg)})
	}
	start := time.Date(2026, 11, 26, 10, 53, 54, 113418000, time.UTC)
	res.StartTime, res.EndTime = start, start.Add(2653861135*time.Nanosecond)
	at := func(d time.Duration) int64 { return start.Add(d).UnixNano() }
	// energy_consumption deltas of the fixture's telemetry_data (MJ).
	deltas := [2]float64{0.001495035999994343, 0.0012761250000039581}
	base := [2]float64{81.000527573, 79.500527573}
	gpu := func(i int, power, energy float64) sdk.GPUReading {
		return sdk.GPUReading{Index: i, UUID: "GPU-" + string(rune('0'+i)), Name: "NVIDIA H100 80GB HBM3",
			Metrics: map[string]float64{"nvidia_power_usage": power, "nvidia_energy_consumption": energy}}
	}
	samples := []sdk.GPUSample{
		// Before the window: the counters' baseline; its power is not averaged.
		{TimestampNs: at(-200 * time.Millisecond), GPUs: []sdk.GPUReading{gpu(0, 70, base[0]), gpu(1, 70, base[1])}},
		{TimestampNs: at(100 * time.Millisecond), GPUs: []sdk.GPUReading{gpu(0, 500, base[0]+deltas[0]/3), gpu(1, 400, base[1]+deltas[1]/3)}},
		{TimestampNs: at(2 * time.Second), GPUs: []sdk.GPUReading{gpu(0, 700, base[0]+deltas[0]/2), gpu(1, 483.375, base[1]+deltas[1]/2)}},
		// Inside the final-scrape grace: counts for energy, not for power.
		{TimestampNs: at(3 * time.Second), GPUs: []sdk.GPUReading{gpu(0, 9999, base[0]+deltas[0]), gpu(1, 9999, base[1]+deltas[1])}},
		// After the grace: ignored.
		{TimestampNs: at(4 * time.Second), GPUs: []sdk.GPUReading{gpu(0, 9999, base[0]+1), gpu(1, 9999, base[1]+1)}},
	}
	return &sdk.ExportContext{
		Results:      res,
		GPUTelemetry: []sdk.GPUTelemetrySeries{{Source: "http://127.0.0.1:18123/dcgm/metrics", Samples: samples}},
		InputConfig: map[string]any{"phases": []any{
			map[string]any{"name": "profiling", "kind": "profiling", "type": "concurrency", "requests": 60, "concurrency": 4},
		}},
	}
}

func relClose(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

// Over the fixture's inputs the energy-efficiency results are AIPerf's:
// same tags in the same order, same units, same values.
func TestEnergyMetricsMatchAIPerf(t *testing.T) {
	keys, fx := fixtureDoc(t, energyFixture)
	var want []string
	for _, k := range keys {
		if strings.HasPrefix(k, "nvidia_") {
			want = append(want, k)
		}
	}
	if len(want) != 11 {
		t.Fatalf("fixture has %d nvidia_* keys: %v", len(want), want)
	}
	got := gputelemetry.EnergyMetrics(fixtureContext(t, energyFixture))
	if len(got) != len(want) {
		t.Fatalf("got %d metrics, want %d (%v)", len(got), len(want), want)
	}
	for i, m := range got {
		f := fx[want[i]]
		if m.Tag != want[i] || m.Unit != f.Unit || !relClose(*m.Avg, *f.Avg) {
			t.Errorf("#%d: got %s %q %.15g, want %s %q %.15g", i, m.Tag, m.Unit, *m.Avg, want[i], f.Unit, *f.Avg)
		}
		if m.ConsoleGroup != gputelemetry.GroupPowerEfficiencyNVIDIA {
			t.Errorf("%s: console group %q", m.Tag, m.ConsoleGroup)
		}
	}
}

// The JSON gets them last, after every other metric, and the CSV among the
// scalar metrics sorted by tag, as AIPerf writes them.
func TestEnergyMetricsInSummaryFiles(t *testing.T) {
	ec := fixtureContext(t, energyFixture)
	doc, err := jsonexport.Render(ec)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "out.json")
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	keys, got := fixtureDoc(t, path)
	tail := keys[len(keys)-11:]
	if tail[0] != "nvidia_total_gpu_power" || tail[10] != "nvidia_output_tps_per_watt" {
		t.Errorf("JSON ends with %v", tail)
	}
	if m := got["nvidia_energy_per_output_token"]; m.Unit != "mJ/token" || !relClose(*m.Avg, 1519.2768640341565) {
		t.Errorf("JSON nvidia_energy_per_output_token = %+v", m)
	}

	ec.ArtifactDir = t.TempDir()
	if _, err := csvexport.New().Export(context.Background(), ec); err != nil {
		t.Fatal(err)
	}
	csv, err := os.ReadFile(filepath.Join(ec.ArtifactDir, csvexport.DefaultFileName))
	if err != nil {
		t.Fatal(err)
	}
	wantRows := "Average GPU Power (W),1044.20\r\nEnergy Delay Product (J*s),7.84\r\n" +
		"Energy per Output Token (mJ/token),1519.28\r\nEnergy per Request (joules/request),46.19\r\n" +
		"Energy per Total Token (mJ/token),740.16\r\nEnergy per User (joules/user),692.79\r\n" +
		"Output Tokens per Joule (tokens/J),0.66\r\nOutput Tokens per Second per Watt (tokens/sec/W),0.66\r\n" +
		"Performance per Watt (requests/sec/W),0.02\r\nTotal GPU Energy (J),2771.16\r\nTotal GPU Power (W),1041.69\r\n"
	if !strings.Contains(string(csv), wantRows) {
		t.Errorf("CSV lacks AIPerf's rows:\n%s", csv)
	}

	// A phase's own files carry none of them.
	ec.Phase = &sdk.PhaseInfo{Name: "profiling", Kind: "profiling"}
	doc, err = jsonexport.Render(ec)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(doc, []byte("nvidia_")) {
		t.Error("phase JSON has energy metrics")
	}
}

// Without an energy counter (NVML, --gpu-telemetry pynvml) energy is the
// summed mean power times the window; without a concurrency there is no
// energy per user; without token results the per-token metrics are left out.
func TestEnergyMetricsPowerIntegration(t *testing.T) {
	start := time.Unix(1000, 0)
	at := func(s int) int64 { return start.Add(time.Duration(s) * time.Second).UnixNano() }
	reading := func(p float64) []sdk.GPUReading {
		return []sdk.GPUReading{{UUID: "GPU-a", Metrics: map[string]float64{"nvidia_power_usage": p}}}
	}
	ec := &sdk.ExportContext{
		Results: &sdk.Results{StartTime: start, EndTime: start.Add(10 * time.Second), Metrics: []sdk.MetricResult{
			{Tag: "request_count", Avg: f64(50)},
			{Tag: "request_throughput", Avg: f64(5)},
		}},
		GPUTelemetry: []sdk.GPUTelemetrySeries{{Source: "pynvml://localhost", Samples: []sdk.GPUSample{
			{TimestampNs: at(1), GPUs: reading(200)}, {TimestampNs: at(9), GPUs: reading(300)},
		}}},
	}
	got := map[string]float64{}
	var order []string
	for _, m := range gputelemetry.EnergyMetrics(ec) {
		got[m.Tag] = *m.Avg
		order = append(order, m.Tag)
	}
	want := map[string]float64{
		"nvidia_total_gpu_power":      250,
		"nvidia_average_gpu_power":    250,
		"nvidia_total_gpu_energy":     2500,
		"nvidia_energy_per_request":   50,
		"nvidia_performance_per_watt": 0.02,
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", order, want)
	}
	for k, v := range want {
		if !relClose(got[k], v) {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}

	// No power and no energy: nothing but nothing to show.
	ec.GPUTelemetry[0].Samples = []sdk.GPUSample{{TimestampNs: at(1), GPUs: []sdk.GPUReading{{UUID: "GPU-a",
		Metrics: map[string]float64{"nvidia_gpu_utilization": 50}}}}}
	if ms := gputelemetry.EnergyMetrics(ec); len(ms) != 0 {
		t.Errorf("without power: %+v", ms)
	}
	ec.GPUTelemetry = nil
	if ms := gputelemetry.EnergyMetrics(ec); ms != nil {
		t.Errorf("without telemetry: %+v", ms)
	}
}
