package powerefficiency

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func f64(v float64) *float64 { return &v }

// fixtureRun has the inputs of testdata/aiperf013/gpu_telemetry_dcgm: its
// client results, its 2.653861135 s profiling window, and two GPUs whose
// energy counters moved by the fixture's deltas (MJ) with power averaging
// 1041.6875 W in total over the window.
func fixtureRun() *sdk.ExportContext {
	start := time.Date(2026, 11, 26, 10, 53, 54, 113418000, time.UTC)
	at := func(d time.Duration) int64 { return start.Add(d).UnixNano() }
	gpu := func(i int, power, energy float64) sdk.GPUReading {
		return sdk.GPUReading{Index: i, UUID: "GPU-" + string(rune('0'+i)),
			Metrics: map[string]float64{"nvidia_power_usage": power, "nvidia_energy_consumption": energy}}
	}
	return &sdk.ExportContext{
		Results: &sdk.Results{StartTime: start, EndTime: start.Add(2653861135 * time.Nanosecond), Metrics: []sdk.MetricResult{
			{Tag: "total_osl", Avg: f64(1824)}, {Tag: "total_isl", Avg: f64(1920)}, {Tag: "request_count", Avg: f64(60)},
			{Tag: "request_latency", Avg: f64(169.83105908333334)}, {Tag: "request_throughput", Avg: f64(22.60856802516911)},
			{Tag: "output_token_throughput", Avg: f64(687.3004679651409)},
		}},
		GPUTelemetry: []sdk.GPUTelemetrySeries{{Source: "http://127.0.0.1:18123/dcgm/metrics", Samples: []sdk.GPUSample{
			{TimestampNs: at(-time.Second), GPUs: []sdk.GPUReading{gpu(0, 70, 81), gpu(1, 70, 79)}},
			{TimestampNs: at(time.Second), GPUs: []sdk.GPUReading{gpu(0, 600, 81.001), gpu(1, 441.6875, 79.001)}},
			{TimestampNs: at(3 * time.Second), GPUs: []sdk.GPUReading{gpu(0, 9999, 81+0.001495035999994343), gpu(1, 9999, 79+0.0012761250000039581)}},
		}}},
		InputConfig: map[string]any{"phases": []any{map[string]any{"kind": "profiling", "concurrency": 4}}},
	}
}

// The table is AIPerf's, line for line, as its console printed it for the
// fixture's run.
func TestTableMatchesAIPerf(t *testing.T) {
	raw, err := os.ReadFile("../../../../testdata/aiperf013/gpu_telemetry_dcgm/profile_export_console.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	var want []string
	for i, l := range lines {
		if strings.TrimSpace(l) == Title {
			for _, m := range lines[i:] {
				want = append(want, strings.TrimRight(m, " "))
				if strings.HasPrefix(m, "└") {
					break
				}
			}
			break
		}
	}
	if len(want) != 17 {
		t.Fatalf("fixture table has %d lines", len(want))
	}
	var buf bytes.Buffer
	if err := New().WithColor(false).Render(context.Background(), &buf, fixtureRun()); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimPrefix(buf.String(), "\n"), "\n")
	for i, w := range want {
		if i >= len(got) || strings.TrimRight(got[i], " ") != w {
			t.Fatalf("line %d:\n got %q\nwant %q\nwhole:\n%s", i, got[min(i, len(got)-1)], w, buf.String())
		}
	}
}

// Without GPU telemetry, or without power and energy, nothing is printed.
func TestNothingWithoutEnergy(t *testing.T) {
	ec := fixtureRun()
	for _, s := range ec.GPUTelemetry[0].Samples {
		for _, g := range s.GPUs {
			delete(g.Metrics, "nvidia_power_usage")
			delete(g.Metrics, "nvidia_energy_consumption")
			g.Metrics["nvidia_gpu_utilization"] = 50
		}
	}
	for _, ec := range []*sdk.ExportContext{ec, {Results: ec.Results}} {
		var buf bytes.Buffer
		if err := New().WithColor(false).Render(context.Background(), &buf, ec); err != nil {
			t.Fatal(err)
		}
		if buf.Len() != 0 {
			t.Errorf("printed %q", buf.String())
		}
	}
	if err := New().Render(context.Background(), &bytes.Buffer{}, nil); err == nil {
		t.Error("nil context accepted")
	}
}
