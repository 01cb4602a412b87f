package artifacts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const fixture = "../../testdata/plot/single_run"

func TestReadRunFixture(t *testing.T) {
	run, err := ReadRun(fixture)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Requests) != 30 {
		t.Fatalf("%d requests, want 30", len(run.Requests))
	}
	r := run.Requests[0]
	if r.StartNs != 1795693298386708759 || r.EndNs != 1795693298432968985 || r.Error {
		t.Errorf("first request stamps %d..%d error=%v", r.StartNs, r.EndNs, r.Error)
	}
	for name, want := range map[string]float64{
		"time_to_first_token": 15.562613, "request_latency": 46.175921,
		"input_sequence_length": 74, "output_sequence_length": 16,
	} {
		if got, ok := r.Metrics[name]; !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", name, got, ok, want)
		}
	}
	if _, ok := r.Metrics["inter_chunk_latency"]; ok {
		t.Error("list-valued inter_chunk_latency kept as a scalar")
	}
	ttft := run.Summary["time_to_first_token"]
	if ttft.Unit != "ms" || ttft.Stats["p50"] != 15.7741475 {
		t.Errorf("summary TTFT = %+v", ttft)
	}
	if _, ok := run.Summary["schema_version"]; ok {
		t.Error("non-metric field read as a metric")
	}
}

func TestReadRunBadInput(t *testing.T) {
	dir := t.TempDir()
	onlySummary := t.TempDir()
	if err := os.WriteFile(filepath.Join(onlySummary, SummaryFile), []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	badLine := t.TempDir()
	for f, body := range map[string]string{SummaryFile: `{}`, RecordsFile: "{\"metadata\":{}}\n{not json\n"} {
		if err := os.WriteFile(filepath.Join(badLine, f), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, dir string
		want      []string
	}{
		{"empty", dir, []string{dir, "lacks " + SummaryFile + " and " + RecordsFile + ":"}},
		{"records missing", onlySummary, []string{onlySummary, "lacks " + RecordsFile + ":"}},
		{"missing dir", filepath.Join(dir, "x"), []string{"does not exist"}},
		{"bad jsonl line", badLine, []string{filepath.Join(badLine, RecordsFile) + ":2:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadRun(tc.dir)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// GPUCount counts the GPUs of telemetry_data across its endpoints as
// AIPerf's calculate_gpu_count_from_telemetry; any other shape counts 0.
func TestReadRunGPUCount(t *testing.T) {
	for _, tc := range []struct {
		name, dir string
		want      int
	}{
		{"telemetry run: one DCGM endpoint, two GPUs", "../../testdata/plot/telemetry_run", 2},
		{"no telemetry: empty endpoints", fixture, 0},
		{"no telemetry: sweep run", "../../testdata/plot/sweep/concurrency_1", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run, err := ReadRun(tc.dir)
			if err != nil {
				t.Fatal(err)
			}
			if run.GPUCount != tc.want {
				t.Errorf("GPUCount = %d, want %d", run.GPUCount, tc.want)
			}
		})
	}
	gpu := `{"gpu_index": 0}`
	for _, tc := range []struct {
		name, telemetry string
		want            int
	}{
		{"two endpoints", `{"summary": {}, "endpoints": {"a:9400": {"gpus": {"gpu_0": ` + gpu + `, "gpu_1": ` + gpu +
			`}}, "b:9400": {"gpus": {"gpu_0": ` + gpu + `}}}}`, 3},
		{"an endpoint that is not an object counts nothing", `{"summary": {}, "endpoints": {"a": [], "b": {"gpus": {"gpu_0": {}}}}}`, 1},
		{"gpus not an object", `{"summary": {}, "endpoints": {"a": {"gpus": ["gpu_0"]}}}`, 0},
		{"gpus null", `{"summary": {}, "endpoints": {"a": {"gpus": null}}}`, 0},
		{"no summary", `{"endpoints": {"a": {"gpus": {"gpu_0": {}}}}}`, 0},
		{"no endpoints", `{"summary": {}}`, 0},
		{"endpoints not an object", `{"summary": {}, "endpoints": []}`, 0},
		{"not an object", `[1, 2]`, 0},
		{"null", `null`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			summary := `{"request_latency": {"unit": "ms", "avg": 5}, "telemetry_data": ` + tc.telemetry + `}`
			if err := os.WriteFile(filepath.Join(dir, SummaryFile), []byte(summary), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, RecordsFile), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			run, err := ReadRun(dir)
			if err != nil {
				t.Fatal(err)
			}
			if run.GPUCount != tc.want {
				t.Errorf("GPUCount = %d, want %d", run.GPUCount, tc.want)
			}
			if run.Summary["request_latency"].Stats["avg"] != 5 {
				t.Errorf("summary lost: %+v", run.Summary)
			}
		})
	}
}
