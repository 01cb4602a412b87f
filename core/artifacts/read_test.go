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
