package gputelemetry

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

const fixtureDir = "../../../../testdata/aiperf013/gpu_telemetry_dcgm"

// Every line AIPerf 0.13 wrote, rebuilt from its own values, comes out byte
// for byte the same.
func TestJSONLLineMatchesAIPerf(t *testing.T) {
	f, err := os.Open(filepath.Join(fixtureDir, "gpu_telemetry_export.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		var rec struct {
			GPUIndex  int                `json:"gpu_index"`
			UUID      string             `json:"gpu_uuid"`
			Model     string             `json:"gpu_model_name"`
			PCI       string             `json:"pci_bus_id"`
			Device    string             `json:"device"`
			Host      string             `json:"hostname"`
			TS        int64              `json:"timestamp_ns"`
			Source    string             `json:"telemetry_source_url"`
			Telemetry map[string]float64 `json:"telemetry_data"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		r := sdk.GPUReading{Index: rec.GPUIndex, UUID: rec.UUID, Name: rec.Model, PCIBusID: rec.PCI, Device: rec.Device,
			Hostname: rec.Host, Metrics: rec.Telemetry}
		got := AppendLine(nil, rec.Source, rec.TS, &r)
		if string(got) != sc.Text()+"\n" {
			t.Fatalf("line %d:\n got %s\nwant %s", n+1, got, sc.Text())
		}
		n++
	}
	if n != 4 {
		t.Fatalf("compared %d lines", n)
	}
}

func synthetic() *sdk.ExportContext {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(s float64) int64 { return t0.Add(time.Duration(s * float64(time.Second))).UnixNano() }
	reading := func(power, energyMJ float64) []sdk.GPUReading {
		return []sdk.GPUReading{{Index: 0, UUID: "GPU-a", Name: "H100", Hostname: "node1",
			Metrics: map[string]float64{"nvidia_power_usage": power, "nvidia_energy_consumption": energyMJ}}}
	}
	return &sdk.ExportContext{
		Results: &sdk.Results{StartTime: t0, EndTime: t0.Add(10 * time.Second)},
		GPUTelemetry: []sdk.GPUTelemetrySeries{
			{Source: "http://node1:9400/metrics", Samples: []sdk.GPUSample{
				{TimestampNs: at(-1), GPUs: reading(50, 1.0)},      // warmup: baseline only
				{TimestampNs: at(0), GPUs: reading(100, 1.001)},    // window start (included)
				{TimestampNs: at(5), GPUs: reading(200, 1.002)},    //
				{TimestampNs: at(10.5), GPUs: reading(300, 1.003)}, // within the 666 ms grace
				{TimestampNs: at(11), GPUs: reading(900, 1.009)},   // after it: left out
			}},
			{Source: "http://localhost:9401/metrics", Error: "connection refused"},
		},
	}
}

func TestSummarizeWindowAndCounters(t *testing.T) {
	s := Summarize(synthetic())
	if len(s.Endpoints) != 1 || s.Endpoints[0].Display != "node1:9400" {
		t.Fatalf("endpoints %+v", s.Endpoints)
	}
	if strings.Join(s.Configured, ",") != "http://node1:9400/metrics" ||
		strings.Join(s.Successful, ",") != "http://node1:9400/metrics" {
		t.Fatalf("configured %v successful %v", s.Configured, s.Successful)
	}
	g := s.Endpoints[0].GPUs[0]
	if len(g.Metrics) != 2 || g.Metrics[0].Field.Name != "nvidia_power_usage" || g.Platform != "nvidia" {
		t.Fatalf("metrics %+v", g.Metrics)
	}
	p := g.Metrics[0].Result
	// 100, 200, 300: mean 200, sample std 100, p50 200, p90 280.
	if *p.Avg != 200 || *p.Std != 100 || *p.P50 != 200 || *p.P90 != 280 || *p.Count != 3 || *p.Sum != 600 || *p.Min != 100 {
		t.Fatalf("power %+v", p)
	}
	e := g.Metrics[1].Result
	// Counter: last in window (1.003) minus the last sample before it (1.0).
	if e.Min != nil || e.Avg == nil || (*e.Avg-0.003) > 1e-12 || (*e.Avg-0.003) < -1e-12 {
		t.Fatalf("energy %+v", e)
	}
	if Summarize(&sdk.ExportContext{}) != nil {
		t.Fatal("no telemetry must give no summary")
	}
	dead := &sdk.ExportContext{GPUTelemetry: []sdk.GPUTelemetrySeries{{Source: "http://localhost:9400/metrics", Error: "refused"}}}
	if Summarize(dead) != nil {
		t.Fatal("sources without samples must give no summary")
	}
}

func TestExportWritesJSONL(t *testing.T) {
	ec := synthetic()
	ec.ArtifactDir = t.TempDir()
	files, err := New().Export(context.Background(), ec)
	if err != nil || len(files) != 1 || filepath.Base(files[0].Path) != DefaultFileName {
		t.Fatalf("%v %v", files, err)
	}
	b, _ := os.ReadFile(files[0].Path)
	if bytes.Count(b, []byte("\n")) != 5 || !bytes.Contains(b, []byte(`"telemetry_data":{"nvidia_power_usage":50.0,"nvidia_energy_consumption":1.0}}`)) {
		t.Fatalf("jsonl:\n%s", b)
	}
	if FileName(sdk.ArtifactFiles{RecordsJSONL: "foo.jsonl"}) != "foo_gpu_telemetry.jsonl" {
		t.Fatal("prefix name")
	}
	ec.GPUTelemetry = nil
	if files, err := New().Export(context.Background(), ec); err != nil || files != nil {
		t.Fatalf("without telemetry: %v %v", files, err)
	}
}
