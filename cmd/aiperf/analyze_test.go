package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
)

// analyzeArgs is a small streaming sweep against url into dir, with the
// checkpoint in ckpt.
func analyzeArgs(url, dir, ckpt string, extra ...string) []string {
	args := []string{"analyze", "-m", "m", "-u", url, "--streaming", "--request-count", "4", "--isl", "16", "--osl", "4",
		"--ui", "none", "--tokenizer", "builtin", "--random-seed", "42", "--artifact-dir", dir, "--checkpoint-dir", ckpt}
	return append(args, extra...)
}

func readAnalyzeCSV(t *testing.T, dir string) (header []string, rows [][]string) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "analyze_export_genai_perf.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("analyze_export_genai_perf.csv: %v", err)
	}
	if len(recs) == 0 {
		t.Fatal("analyze_export_genai_perf.csv is empty")
	}
	return recs[0], recs[1:]
}

func readSweepCheckpoint(t *testing.T, ckpt string) *sweepCheckpoint {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ckpt, "checkpoint.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c sweepCheckpoint
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("checkpoint.json: %v\n%s", err, b)
	}
	return &c
}

func checkpointValues(c *sweepCheckpoint) []float64 {
	var v []float64
	for _, p := range c.Points {
		v = append(v, p.Value)
	}
	return v
}

func column(t *testing.T, header []string, name string) int {
	t.Helper()
	for i, h := range header {
		if h == name {
			return i
		}
	}
	t.Fatalf("no column %q in %v", name, header)
	return -1
}

// TestAnalyzeConcurrencySweep sweeps --sweep-range 1:4 (GenAI-Perf: the
// powers of two 1, 2, 4) against a mock with a 20 ms TTFT: three point
// folders with the profile's files, a CSV row per point with its
// concurrency, TTFTs at or above the injected 20 ms, a checkpoint naming
// all three and, with --generate-plots, the comparison plots.
func TestAnalyzeConcurrencySweep(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 20 * time.Millisecond, ITL: time.Millisecond})
	dir, ckpt := t.TempDir(), t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), analyzeArgs(url, dir, ckpt, "--sweep-type", "concurrency", "--sweep-range", "1:4", "--generate-plots"), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	for _, c := range []string{"1", "2", "4"} {
		for _, f := range []string{"profile_export_aiperf.json", "profile_export.jsonl", "inputs.json"} {
			if _, err := os.Stat(filepath.Join(dir, "m-openai-chat-concurrency"+c, f)); err != nil {
				t.Errorf("point file: %v", err)
			}
		}
	}
	header, rows := readAnalyzeCSV(t, dir)
	wantHead := []string{"Config Name", "Concurrency", "ISL", "Num Dataset Entries", "p99 Time To First Token (ms)",
		"p99 Inter Token Latency (ms)", "p99 Request Latency (ms)", "p99 Output Sequence Length (tokens)",
		"Avg. Output Token Throughput (tokens/sec)", "Request Throughput (requests/sec)"}
	if !reflect.DeepEqual(header[:len(wantHead)], wantHead) {
		t.Errorf("CSV header starts %q, want GenAI-Perf's %q", header[:len(wantHead)], wantHead)
	}
	if len(rows) != 3 {
		t.Fatalf("%d CSV rows, want 3: %v", len(rows), rows)
	}
	conc, ttftP99, ttftAvg, isl, rps := column(t, header, "Concurrency"), column(t, header, "p99 Time To First Token (ms)"),
		column(t, header, "Avg. Time To First Token (ms)"), column(t, header, "ISL"), column(t, header, "Request Throughput (requests/sec)")
	for i, want := range []string{"1", "2", "4"} {
		r := rows[i]
		if r[0] != "m_run_config_"+strconv.Itoa(i) || r[conc] != want || r[len(r)-2] != "concurrency" || r[len(r)-1] != want {
			t.Errorf("row %d: %v, want config m_run_config_%d at concurrency %s", i, r, i, want)
		}
		for _, c := range []int{ttftP99, ttftAvg} {
			if v, err := strconv.ParseFloat(r[c], 64); err != nil || v < 20 || v > 200 {
				t.Errorf("row %d %s = %q, want the mock's 20 ms plus client overhead", i, header[c], r[c])
			}
		}
		if r[isl] != "16" {
			t.Errorf("row %d ISL %q, want 16", i, r[isl])
		}
		if v, err := strconv.ParseFloat(r[rps], 64); err != nil || v <= 0 {
			t.Errorf("row %d request throughput %q", i, r[rps])
		}
	}
	if !strings.Contains(stdout.String(), "Sweep over concurrency") {
		t.Errorf("no sweep summary table on the console:\n%s", stdout.String())
	}
	// --generate-plots: the comparison plots over the three point folders.
	if _, err := os.Stat(filepath.Join(dir, "plots", "ttft_vs_load.png")); err != nil {
		t.Errorf("sweep plots: %v", err)
	}
	c := readSweepCheckpoint(t, ckpt)
	if c.SweepType != "concurrency" || len(c.ConfigHash) != 64 || !reflect.DeepEqual(checkpointValues(c), []float64{1, 2, 4}) {
		t.Errorf("checkpoint %+v, want concurrency points 1, 2, 4 with a config hash", c)
	}
	if got := c.Points[2].ArtifactDir; got != filepath.Join(dir, "m-openai-chat-concurrency4") {
		t.Errorf("checkpoint point 4 artifact dir %q", got)
	}
}

// TestAnalyzeResumesAfterInterruption stops a three-point sweep after its
// first point (as Ctrl-C between points would), then reruns the same
// command: it skips the recorded point with GenAI-Perf's message, profiles
// only the other two, and reports all three. A changed configuration is
// refused, naming the checkpoint.
func TestAnalyzeResumesAfterInterruption(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 5 * time.Millisecond, ITL: time.Millisecond})
	dir, ckpt := t.TempDir(), t.TempDir()
	args := analyzeArgs(url, dir, ckpt, "--sweep-list", "1,2,4")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var done []float64
	analyzePointDone = func(v float64) {
		done = append(done, v)
		cancel()
	}
	defer func() { analyzePointDone = nil }()
	var stdout, stderr bytes.Buffer
	if code := run(ctx, args, &stdout, &stderr); code != 0 {
		t.Fatalf("interrupted sweep: exit %d, want 0 as after Ctrl-C\n%s", code, stderr.String())
	}
	if !reflect.DeepEqual(done, []float64{1}) {
		t.Fatalf("points finished before the interruption: %v, want [1]", done)
	}
	if c := readSweepCheckpoint(t, ckpt); !reflect.DeepEqual(checkpointValues(c), []float64{1}) {
		t.Errorf("checkpoint after the interruption holds %v, want [1]", checkpointValues(c))
	}
	if _, err := os.Stat(filepath.Join(dir, "m-openai-chat-concurrency2")); err == nil {
		t.Error("the interrupted sweep started point 2")
	}
	if _, rows := readAnalyzeCSV(t, dir); len(rows) != 1 {
		t.Errorf("CSV after the interruption has %d rows, want 1", len(rows))
	}
	first, err := os.ReadFile(filepath.Join(dir, "m-openai-chat-concurrency1", "profile_export_aiperf.json"))
	if err != nil {
		t.Fatal(err)
	}

	analyzePointDone = nil
	stdout.Reset()
	stderr.Reset()
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("resumed sweep: exit %d\n%s", code, stderr.String())
	}
	log := stderr.String()
	if !strings.Contains(log, "m_run_config_0:concurrency1 found in checkpoint - skipping profiling...") {
		t.Errorf("resume did not say it skipped point 1:\n%s", log)
	}
	if strings.Contains(log, "Profiling concurrency1") || !strings.Contains(log, "[2/3] Profiling concurrency2") || !strings.Contains(log, "[3/3] Profiling concurrency4") {
		t.Errorf("resume profiled the wrong points:\n%s", log)
	}
	if again, _ := os.ReadFile(filepath.Join(dir, "m-openai-chat-concurrency1", "profile_export_aiperf.json")); !bytes.Equal(first, again) {
		t.Error("resume rewrote point 1's export")
	}
	if c := readSweepCheckpoint(t, ckpt); !reflect.DeepEqual(checkpointValues(c), []float64{1, 2, 4}) {
		t.Errorf("checkpoint after resume holds %v, want [1 2 4]", checkpointValues(c))
	}
	header, rows := readAnalyzeCSV(t, dir)
	conc := column(t, header, "Concurrency")
	if len(rows) != 3 || rows[0][conc] != "1" || rows[1][conc] != "2" || rows[2][conc] != "4" {
		t.Errorf("CSV after resume: %v, want concurrencies 1, 2, 4", rows)
	}

	// Another output length is another benchmark: the checkpoint refuses it.
	stderr.Reset()
	changed := analyzeArgs(url, dir, ckpt, "--sweep-list", "1,2,4", "--osl", "8")
	if code := run(context.Background(), changed, &stdout, &stderr); code != 1 {
		t.Errorf("changed config: exit %d, want 1", code)
	}
	if want := filepath.Join(ckpt, "checkpoint.json") + " was written for another sweep"; !strings.Contains(stderr.String(), want) {
		t.Errorf("changed config: stderr %q, want %q", stderr.String(), want)
	}
}

// TestAnalyzeSweepFlagErrors: bad sweep flags fail before any request,
// with exit 1 and the flag named.
func TestAnalyzeSweepFlagErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no values", nil, "--sweep-list, --sweep-range or --sweep-min/--sweep-max"},
		{"list and range", []string{"--sweep-list", "1,2", "--sweep-range", "1:4"}, "exactly one of --sweep-list"},
		{"not a number", []string{"--sweep-list", "1,x"}, `--sweep-list "1,x": "x" is not a whole number`},
		{"zero concurrency", []string{"--sweep-list", "0"}, `--sweep-list "0": "0" is not a whole number of at least 1`},
		{"duplicate", []string{"--sweep-list", "2,2"}, "2 appears twice"},
		{"zero rate", []string{"--sweep-type", "request_rate", "--sweep-list", "0"}, `"0" is not a request rate above 0`},
		{"batch size", []string{"--sweep-type", "batch_size", "--sweep-list", "1"}, "--sweep-type batch_size: Perf Analyzer's model batch size has no equivalent"},
		{"unknown type", []string{"--sweep-type", "osl", "--sweep-list", "1"}, `--sweep-type "osl": choose one of concurrency, request_rate`},
		{"range shape", []string{"--sweep-range", "1"}, `--sweep-range "1": want min:max or min:max:step`},
		{"range reversed", []string{"--sweep-range", "8:2"}, "max 2 is below min 8"},
		{"no power of two", []string{"--sweep-range", "3:3"}, "no power of two between 3 and 3"},
		{"bad step", []string{"--sweep-range", "1:8:0"}, `step: "0" is not a whole number`},
		{"min without max", []string{"--sweep-min", "1"}, "--sweep-min and --sweep-max go together"},
		{"multi-run", []string{"--sweep-list", "1", "--num-profile-runs", "2"}, "--num-profile-runs 2"},
		{"point too big", []string{"--sweep-list", "1,8"}, "sweep point concurrency8: --concurrency (8) cannot be greater than --request-count (4)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), analyzeArgs("http://127.0.0.1:1", dir, dir, tc.args...), &stdout, &stderr)
			if code != 1 || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr.String(), tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "checkpoint.json")); err == nil {
		t.Error("a refused sweep wrote a checkpoint")
	}
}

// TestSweepRange checks GenAI-Perf's range semantics (docs/analyze.md:
// 8:256 sweeps 8..256 by powers of two, 100:500:50 by steps of 50).
func TestSweepRange(t *testing.T) {
	for _, tc := range []struct {
		typ, min, max, step string
		want                []float64
	}{
		{"concurrency", "8", "256", "", []float64{8, 16, 32, 64, 128, 256}},
		{"concurrency", "1", "256", "", []float64{1, 2, 4, 8, 16, 32, 64, 128, 256}},
		{"concurrency", "3", "20", "", []float64{4, 8, 16}},
		{"request_rate", "100", "500", "50", []float64{100, 150, 200, 250, 300, 350, 400, 450, 500}},
		{"num_dataset_entries", "100", "200", "50", []float64{100, 150, 200}},
		{"input_sequence_length", "100", "120", "30", []float64{100}},
		{"request_rate", "0.5", "2", "", []float64{0.5, 1, 2}},
	} {
		got, err := sweepRange(tc.typ, tc.min, tc.max, tc.step)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %s:%s:%s = %v, %v; want %v", tc.typ, tc.min, tc.max, tc.step, got, err, tc.want)
		}
	}
	// Tenths must not drift past max (0.1+2*0.1 is 0.30000000000000004).
	got, err := sweepRange("request_rate", "0.1", "0.3", "0.1")
	if err != nil || len(got) != 3 {
		t.Errorf("request_rate 0.1:0.3:0.1 = %v, %v; want three rates", got, err)
	}
}

// TestAnalyzeCorruptCheckpoint: an unreadable checkpoint stops the sweep
// and names the file.
func TestAnalyzeCorruptCheckpoint(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "checkpoint.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), analyzeArgs("http://127.0.0.1:1", dir, dir, "--sweep-list", "1"), &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "checkpoint "+path) {
		t.Errorf("exit %d, stderr %q; want 1 naming %s", code, stderr.String(), path)
	}
}
