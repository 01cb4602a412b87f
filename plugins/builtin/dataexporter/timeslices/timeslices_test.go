package timeslices

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/aiperf-go/aiperf/internal/jsontest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func f(x float64) *float64 { return &x }

func scalar(tag, header, unit string, v float64, flags sdk.MetricFlags) sdk.MetricResult {
	return sdk.MetricResult{Tag: tag, Header: header, Unit: unit, Flags: flags, Avg: f(v)}
}

func latency(avg float64) sdk.MetricResult {
	n := int64(2)
	return sdk.MetricResult{Tag: "request_latency", Header: "Request Latency", Unit: "ms",
		Avg: f(avg), Min: f(avg - 10), Max: f(avg + 10), P1: f(avg - 9.8), P5: f(avg - 9), P10: f(avg - 8),
		P25: f(avg - 5), P50: f(avg), P75: f(avg + 5), P90: f(avg + 8), P95: f(avg + 9), P99: f(avg + 9.8),
		Std: f(10), Count: &n, Sum: f(2 * avg)}
}

// twoSlices are results as the accumulator makes them: metrics in result
// order (request_throughput before request_latency by display order), a
// hidden one, and a partial last slice.
func twoSlices() *sdk.Results {
	return &sdk.Results{Timeslices: []sdk.TimesliceResult{
		{StartNs: 1000, EndNs: 2000, Metrics: []sdk.MetricResult{
			scalar("request_throughput", "Request Throughput", "requests/sec", 2, 0),
			latency(20),
			scalar("min_request_timestamp", "Minimum Request Timestamp", "ns", 1000, sdk.FlagInternal),
		}},
		{StartNs: 2000, EndNs: 2500, Partial: true, Metrics: []sdk.MetricResult{
			scalar("request_throughput", "Request Throughput", "requests/sec", 4, 0),
			latency(50),
		}},
	}}
}

func export(t *testing.T, res *sdk.Results, files sdk.ArtifactFiles) (dir string, got []sdk.ExportedFile) {
	t.Helper()
	dir = t.TempDir()
	got, err := New().Export(context.Background(), &sdk.ExportContext{ArtifactDir: dir, Files: files, Results: res,
		InputConfig: map[string]any{"artifacts": map[string]any{"slice_duration": 1.0}}})
	if err != nil {
		t.Fatalf("Export: %v", err)
	}
	return dir, got
}

func read(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The JSON holds every slice in order with its bounds, is_complete false on
// the partial one only, the exported metrics in result order (hidden ones
// left out) and the input config.
func TestJSONLayout(t *testing.T) {
	dir, files := export(t, twoSlices(), sdk.ArtifactFiles{})
	if len(files) != 2 || files[0].Label != LabelJSON || files[1].Label != LabelCSV {
		t.Fatalf("files = %+v", files)
	}
	b := read(t, dir, DefaultJSONName)
	var doc struct {
		Timeslices  []json.RawMessage `json:"timeslices"`
		InputConfig map[string]any    `json:"input_config"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("JSON: %v\n%s", err, b)
	}
	if len(doc.Timeslices) != 2 || doc.InputConfig == nil {
		t.Fatalf("JSON layout:\n%s", b)
	}
	want := [][]string{
		{"start_ns", "end_ns", "request_throughput", "request_latency"},
		{"start_ns", "end_ns", "is_complete", "request_throughput", "request_latency"},
	}
	for i, raw := range doc.Timeslices {
		if got := jsontest.ObjectKeys(t, raw); strings.Join(got, ",") != strings.Join(want[i], ",") {
			t.Errorf("slice %d keys %v, want %v", i, got, want[i])
		}
	}
	for _, frag := range []string{
		"\"start_ns\": 2000,\n      \"end_ns\": 2500,\n      \"is_complete\": false,",
		"\"request_latency\": {\n        \"unit\": \"ms\",\n        \"avg\": 20.0,",
		"\"std\": 10.0,\n        \"count\": 2,\n        \"sum\": 40.0\n      }",
	} {
		if !bytes.Contains(b, []byte(frag)) {
			t.Errorf("JSON lacks %q:\n%s", frag, b)
		}
	}
}

// The CSV is AIPerf's long format: per slice, the metrics sorted by tag and
// named by header, each finite stat in STAT_KEYS order with two decimals.
func TestCSVLayout(t *testing.T) {
	dir, _ := export(t, twoSlices(), sdk.ArtifactFiles{})
	lines := strings.Split(strings.TrimSuffix(string(read(t, dir, DefaultCSVName)), "\r\n"), "\r\n")
	if lines[0] != "Timeslice,Start_NS,End_NS,Metric,Unit,Stat,Value" {
		t.Errorf("CSV header = %q", lines[0])
	}
	// Per slice: 14 latency stats, then 1 throughput row.
	if len(lines) != 1+2*15 {
		t.Fatalf("%d CSV lines, want 31:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	for i, want := range map[int]string{
		1:  "0,1000,2000,Request Latency,ms,avg,20.00",
		4:  "0,1000,2000,Request Latency,ms,sum,40.00",
		14: "0,1000,2000,Request Latency,ms,std,10.00",
		15: "0,1000,2000,Request Throughput,requests/sec,avg,2.00",
		30: "1,2000,2500,Request Throughput,requests/sec,avg,4.00",
	} {
		if lines[i] != want {
			t.Errorf("line %d = %q, want %q", i, lines[i], want)
		}
	}
	if strings.Contains(strings.Join(lines, "\n"), "Minimum Request Timestamp") {
		t.Error("the CSV carries an INTERNAL metric")
	}
}

// A run without timeslices (no --slice-duration) writes nothing.
func TestNothingWithoutTimeslices(t *testing.T) {
	for _, res := range []*sdk.Results{nil, {}} {
		dir, files := export(t, res, sdk.ArtifactFiles{})
		if files != nil {
			t.Errorf("files = %v, want none", files)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("wrote %d files", len(entries))
		}
	}
}

func TestFileNamesFollowPrefix(t *testing.T) {
	dir, files := export(t, twoSlices(), sdk.ArtifactFiles{SummaryJSON: "foo.json"})
	if len(files) != 2 || files[0].Path != filepath.Join(dir, "foo_timeslices.json") ||
		files[1].Path != filepath.Join(dir, "foo_timeslices.csv") {
		t.Errorf("files = %+v", files)
	}
}

func TestCSVFieldQuoting(t *testing.T) {
	for in, want := range map[string]string{"plain": "plain", "a,b": `"a,b"`, `say "x"`: `"say ""x"""`} {
		if got := csvField(in); got != want {
			t.Errorf("csvField(%q) = %q, want %q", in, got, want)
		}
	}
}
