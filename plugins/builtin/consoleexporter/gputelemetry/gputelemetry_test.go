package gputelemetry

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Two GPUs of one DCGM source: the reachability header once, one table per
// GPU titled source | GPU index | model, gauges with every stat and
// counters (energy, XID errors) with their delta as avg and N/A elsewhere,
// as AIPerf 0.13 prints them.
func TestRenderTablesPerGPU(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(s int) int64 { return start.Add(time.Duration(s) * time.Second).UnixNano() }
	gpu := func(i int, power, energy, xid float64) sdk.GPUReading {
		return sdk.GPUReading{Index: i, UUID: "GPU-" + string(rune('a'+i)), Name: "NVIDIA H100 80GB HBM3",
			Metrics: map[string]float64{"nvidia_power_usage": power, "nvidia_energy_consumption": energy, "nvidia_xid_errors": xid}}
	}
	ec := &sdk.ExportContext{
		Results: &sdk.Results{StartTime: start, EndTime: start.Add(10 * time.Second)},
		GPUTelemetry: []sdk.GPUTelemetrySeries{
			{Source: "http://127.0.0.1:18123/dcgm/metrics", Samples: []sdk.GPUSample{
				{TimestampNs: at(-1), GPUs: []sdk.GPUReading{gpu(0, 70, 1, 0), gpu(1, 70, 2, 0)}},
				{TimestampNs: at(1), GPUs: []sdk.GPUReading{gpu(0, 100, 1.5, 0), gpu(1, 300, 2.25, 1)}},
				{TimestampNs: at(5), GPUs: []sdk.GPUReading{gpu(0, 200, 2.5, 0), gpu(1, 500, 3, 3)}},
			}},
			// A source that never answered is not listed (AIPerf leaves it out).
			{Source: "http://localhost:9400/metrics", Error: "connection refused"},
		},
	}
	var buf bytes.Buffer
	if err := New().WithColor(false).Render(context.Background(), &buf, ec); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"AIPerf | GPU Telemetry Summary",
		"1/1 telemetry sources reachable",
		"• 127.0.0.1:18123/dcgm ✔",
		"127.0.0.1:18123/dcgm | GPU 0 | NVIDIA H100 80GB HBM3",
		"127.0.0.1:18123/dcgm | GPU 1 | NVIDIA H100 80GB HBM3",
		// GPU 0: power 100, 200 over the window.
		"│     NVIDIA GPU Power Usage (W) │ 150.00 │ 100.00 │ 200.00 │ 199.00 │ 190.00 │ 150.00 │ 70.71 │",
		"│ NVIDIA Energy Consumption (MJ) │   1.50 │    N/A │    N/A │    N/A │    N/A │    N/A │   N/A │",
		"│      NVIDIA XID Errors (count) │   0.00 │    N/A │    N/A │    N/A │    N/A │    N/A │   N/A │",
		// GPU 1: deltas from the sample before the window.
		"│ NVIDIA Energy Consumption (MJ) │   1.00 │    N/A │    N/A │    N/A │    N/A │    N/A │    N/A │",
		"│      NVIDIA XID Errors (count) │   3.00 │    N/A │    N/A │    N/A │    N/A │    N/A │    N/A │",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "GPU Telemetry Summary"); n != 1 {
		t.Errorf("summary header printed %d times", n)
	}
	if n := strings.Count(out, "┏"); n != 2 {
		t.Errorf("%d tables, want 2", n)
	}
	if strings.Contains(out, "9400") {
		t.Errorf("lists the source that never answered:\n%s", out)
	}

	// Nothing without samples.
	buf.Reset()
	ec.GPUTelemetry = ec.GPUTelemetry[1:]
	if err := New().WithColor(false).Render(context.Background(), &buf, ec); err != nil || buf.Len() != 0 {
		t.Errorf("without samples: %v %q", err, buf.String())
	}
}
