package timeslices

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func rec(start, end int64, latency float64) *sdk.RecordInfo {
	return &sdk.RecordInfo{
		Metadata: sdk.RecordMetadata{RequestStartNs: start, RequestEndNs: end},
		Metrics: map[string]sdk.RecordMetric{
			"request_latency":     {Value: latency, Unit: "ms"},
			"output_token_count":  {Value: 10, Unit: "tokens"},
			"effective_latency":   {Value: 1.0, Unit: "ms"},
			"inter_chunk_latency": {Value: []any{1.0, 2.0}, Unit: "ms"},
		},
	}
}

func find(ms []sdk.MetricResult, tag string) *sdk.MetricResult {
	for i := range ms {
		if ms[i].Tag == tag {
			return &ms[i]
		}
	}
	return nil
}

func TestSlicesByStartDropEmptyThroughput(t *testing.T) {
	e := New()
	e.settings.SliceDuration = 1 // 1 s slices
	const s = int64(1e9)
	base := int64(1_000_000_000_000)
	// Slice 0: two records (one ends in slice 1 but starts in 0); slice 1
	// empty; slice 2: one record.
	for _, r := range []*sdk.RecordInfo{
		rec(base, base+s/2, 10), rec(base+s/2, base+s+s/2, 30), rec(base+2*s+s/4, base+2*s+s/2, 50),
	} {
		if err := e.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	files, err := e.Export(context.Background(), &sdk.ExportContext{ArtifactDir: dir,
		Results:     &sdk.Results{Metrics: []sdk.MetricResult{{Tag: "request_latency", Header: "Request Latency", Unit: "ms"}}},
		InputConfig: map[string]any{"artifacts": map[string]any{"slice_duration": 1.0}}})
	if err != nil || len(files) != 2 {
		t.Fatalf("Export = %v, %v", files, err)
	}
	sl := compute(e.records, 1e9)
	if len(sl) != 2 {
		t.Fatalf("got %d slices, want 2 (the empty one dropped)", len(sl))
	}
	if sl[0].StartNs != base || sl[0].EndNs != base+s || sl[1].StartNs != base+2*s || sl[1].EndNs != base+2*s+s/2 {
		t.Errorf("bounds = %+v %+v", sl[0], sl[1])
	}
	if c := find(sl[0].Metrics, "request_count"); c == nil || *c.Avg != 2 {
		t.Errorf("slice 0 request_count = %+v, want 2", c)
	}
	if c := find(sl[0].Metrics, "request_throughput"); c == nil || *c.Avg != 2 {
		t.Errorf("slice 0 request_throughput = %+v, want 2/s", c)
	}
	if c := find(sl[0].Metrics, "output_token_throughput"); c == nil || *c.Avg != 20 {
		t.Errorf("slice 0 output_token_throughput = %+v, want 20", c)
	}
	if c := find(sl[0].Metrics, "request_latency"); c == nil || *c.Avg != 20 || *c.Count != 2 {
		t.Errorf("slice 0 request_latency = %+v", c)
	}
	if c := find(sl[0].Metrics, "inter_chunk_latency"); c == nil || *c.Count != 4 {
		t.Errorf("slice 0 inter_chunk_latency = %+v, want 4 values", c)
	}
	if find(sl[0].Metrics, "effective_latency") != nil {
		t.Error("effective_latency must be left out")
	}
	// The last slice is clipped to the run end: 1 request in 0.5 s.
	if c := find(sl[1].Metrics, "request_throughput"); c == nil || *c.Avg != 2 {
		t.Errorf("slice 1 request_throughput = %+v, want 2/s", c)
	}

	csv, _ := os.ReadFile(filepath.Join(dir, DefaultCSVName))
	lines := strings.Split(string(csv), "\r\n")
	if lines[0] != "Timeslice,Start_NS,End_NS,Metric,Unit,Stat,Value" {
		t.Errorf("CSV header = %q", lines[0])
	}
	if !strings.Contains(string(csv), "Request Latency,ms,avg,20.00\r\n") {
		t.Errorf("CSV lacks the Request Latency avg row:\n%s", csv)
	}
	var doc struct {
		Timeslices  []map[string]any `json:"timeslices"`
		InputConfig map[string]any   `json:"input_config"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, DefaultJSONName))
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("JSON: %v\n%s", err, b)
	}
	if len(doc.Timeslices) != 2 || doc.InputConfig == nil || doc.Timeslices[0]["start_ns"] == nil {
		t.Errorf("JSON layout: %s", b)
	}
}

func TestInactiveWithoutSliceDuration(t *testing.T) {
	e := New()
	_ = e.WriteRecord(rec(1, 2, 3))
	files, err := e.Export(context.Background(), &sdk.ExportContext{ArtifactDir: t.TempDir()})
	if err != nil || files != nil || len(e.records) != 0 {
		t.Errorf("inactive exporter: %v %v %d", files, err, len(e.records))
	}
}

func TestFileNamesFollowPrefix(t *testing.T) {
	j, c := fileNames(sdk.ArtifactFiles{SummaryJSON: "foo.json"})
	if j != "foo_timeslices.json" || c != "foo_timeslices.csv" {
		t.Errorf("got %s %s", j, c)
	}
}

// Slices cut the profiling phase: warmup records, which the sinks now
// receive too, are left out.
func TestWarmupRecordsAreNotSliced(t *testing.T) {
	e := New()
	e.settings.SliceDuration = 1
	w := rec(1, 2, 3)
	w.Metadata.BenchmarkPhase = sdk.PhaseWarmup
	p := rec(5, 6, 7)
	p.Metadata.BenchmarkPhase = sdk.PhaseProfiling
	for _, r := range []*sdk.RecordInfo{w, p} {
		if err := e.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
	}
	if len(e.records) != 1 || e.records[0].start != 5 {
		t.Errorf("kept %+v, want only the profiling record", e.records)
	}
}
