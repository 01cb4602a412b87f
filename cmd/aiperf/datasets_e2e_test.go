package main

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
)

// random_pool datasets run end to end: a directory of pools named
// explicitly, and a file whose records declare the type, recognized
// without --custom-dataset-type.
func TestRandomPoolDatasets(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true})
	typed := filepath.Join(t.TempDir(), "pool.jsonl")
	if err := os.WriteFile(typed, []byte(`{"type": "random_pool", "text": "first pooled prompt"}`+"\n"+
		`{"type": "random_pool", "text": "second pooled prompt"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"directory", []string{"--input-file", "../../plugins/builtin/dataset/customloader/randompool/testdata/pools",
			"--custom-dataset-type", "random_pool"}},
		{"detected file", []string{"--input-file", typed}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := profile(t, append([]string{"-m", "m", "-u", url, "--request-count", "6", "--concurrency", "2"}, c.args...)...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			if len(r.records) != 6 {
				t.Errorf("%d records, want 6", len(r.records))
			}
			if isl := r.mustMetric(t, "input_sequence_length"); *isl.Min <= 0 {
				t.Errorf("ISL min %v: the pooled prompts were not sent", *isl.Min)
			}
		})
	}
}

// Bailian and BurstGPT traces, recognized from their records, replay on
// their schedule like a mooncake trace: fixed-schedule mode, each request
// no earlier than its offset, its schedule lag exported.
func TestTraceReplayBailianAndBurstGPT(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true})
	dir := t.TempDir()
	traces := map[string]string{
		"bailian.jsonl": `{"chat_id": 1, "parent_chat_id": -1, "timestamp": 10.0, "input_length": 40, "output_length": 4, "type": "text", "turn": 1, "hash_ids": [1, 2]}` + "\n" +
			`{"chat_id": 2, "parent_chat_id": -1, "timestamp": 10.2, "input_length": 30, "output_length": 4, "type": "text", "turn": 1, "hash_ids": [1]}` + "\n" +
			`{"chat_id": 3, "parent_chat_id": -1, "timestamp": 10.35, "input_length": 50, "output_length": 4, "type": "text", "turn": 1, "hash_ids": [3, 4]}` + "\n",
		"burst.csv": "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n" +
			"10,ChatGPT,40,4,44,Conversation log\n10.2,ChatGPT,30,4,34,Conversation log\n10.35,ChatGPT,50,4,54,Conversation log\n",
	}
	offsetsMs := []float64{0, 200, 350}
	for name, body := range traces {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			r := profile(t, "-m", "m", "-u", url, "--input-file", path, "--fixed-schedule-auto-offset")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			if mode := r.inputConfigPhaseType(t); mode != "fixed_schedule" {
				t.Errorf("profiling phase type %q, want fixed_schedule", mode)
			}
			if len(r.records) != len(offsetsMs) {
				t.Fatalf("%d records, want one per trace entry", len(r.records))
			}
			ss := spans(t, r)
			sort.Slice(ss, func(i, j int) bool { return ss[i].start < ss[j].start })
			phaseStart := exportTime(t, r, "start_time").UnixNano()
			for i, s := range ss {
				if early := phaseStart + int64(offsetsMs[i]*1e6) - s.start; early > 1e6 {
					t.Errorf("entry %d sent %.1f ms before its offset", i, float64(early)/1e6)
				}
			}
			for i, rec := range r.records {
				if _, ok := rec.Metrics["schedule_lag"]; !ok {
					t.Errorf("record %d has no schedule_lag", i)
				}
			}
			// AIPerf 0.13 writes no inputs.json for trace datasets.
			if _, err := os.Stat(filepath.Join(r.dir, "inputs.json")); !os.IsNotExist(err) {
				t.Errorf("inputs.json written for a trace run: %v", err)
			}
		})
	}
}
