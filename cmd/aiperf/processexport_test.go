package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
)

// Two runs against the mock, merged: counts add up, min/max/percentiles
// equal those of the union of both JSONL files, and the throughput divides
// the total by the union's span.
func TestProcessExportFilesMergesTwoRunsExactly(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 8 * time.Millisecond, ITL: time.Millisecond})
	args := []string{"-m", "test-model", "-u", url, "--endpoint-type", "chat", "--streaming",
		"--concurrency", "2", "--isl", "16", "--osl", "8"}
	a := profile(t, append(args, "--request-count", "12")...)
	b := profile(t, append(args, "--request-count", "9")...)
	for _, r := range []*profileRun{a, b} {
		if r.code != 0 {
			t.Fatalf("profile exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
	}
	out := filepath.Join(t.TempDir(), "merged")
	var stdout, stderr bytes.Buffer
	if err := processExportFiles(context.Background(), &stdout, &stderr, []string{a.dir, b.dir}, out); err != nil {
		t.Fatalf("process-export-files: %v\n%s", err, stderr.String())
	}
	m := &profileRun{dir: out}
	raw, err := os.ReadFile(filepath.Join(out, "profile_export_aiperf.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &m.summary); err != nil {
		t.Fatalf("merged summary does not parse: %v", err)
	}
	if got := *m.mustMetric(t, "request_count").Avg; got != 21 {
		t.Errorf("request_count = %v, want 12+9 = 21", got)
	}

	// The union of both runs' TTFT values and span, computed here from the
	// inputs' JSONL lines.
	var ttft []float64
	start, end := int64(math.MaxInt64), int64(math.MinInt64)
	for _, r := range []*profileRun{a, b} {
		for _, rec := range r.records {
			var v float64
			if err := json.Unmarshal(rec.Metrics["time_to_first_token"].Value, &v); err != nil {
				t.Fatalf("TTFT of a record: %v", err)
			}
			ttft = append(ttft, v)
			s, e := int64(rec.Metadata["request_start_ns"].(float64)), int64(rec.Metadata["request_end_ns"].(float64))
			start, end = min(start, s), max(end, e)
		}
	}
	sort.Float64s(ttft)
	got := m.mustMetric(t, "time_to_first_token")
	for _, c := range []struct {
		stat      string
		got, want float64
	}{
		{"min", *got.Min, ttft[0]},
		{"max", *got.Max, ttft[len(ttft)-1]},
		{"p50", *got.P50, linearPct(ttft, 50)},
		{"p99", *got.P99, linearPct(ttft, 99)},
		{"count", *got.Count, float64(len(ttft))},
	} {
		if math.Abs(c.got-c.want) > 1e-9*math.Max(1, math.Abs(c.want)) {
			t.Errorf("time_to_first_token.%s = %v, from the union of both JSONL files %v", c.stat, c.got, c.want)
		}
	}
	// Float64 metadata rounds epoch ns to 256 ns (its ulp there), so each
	// bound of the span read here may be off by 128 ns: the rate is
	// compared within that, far below any real difference.
	wantRate := 21 / (float64(end-start) / 1e9)
	if rate := *m.mustMetric(t, "request_throughput").Avg; math.Abs(rate-wantRate) > (1e-9+300/float64(end-start))*wantRate {
		t.Errorf("request_throughput = %v, want 21 / union span = %v", rate, wantRate)
	}
	// The merged JSONL holds every line of both inputs, and the merged
	// summary recomputes from it as a single run's does.
	lines, err := os.ReadFile(filepath.Join(out, "profile_export.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(lines), "\n"); n != 21 {
		t.Errorf("merged profile_export.jsonl has %d lines, want 21", n)
	}
	m.records = append(append(m.records, a.records...), b.records...)
	checkJSONLRecomputesSummary(t, m)
	if !strings.Contains(stdout.String(), "Time to First Token") || !strings.Contains(stdout.String(), "Merged 2 runs (21 profiling records)") {
		t.Errorf("console output lacks the metrics table or the footer:\n%s", stdout.String())
	}
	if _, err := os.Stat(filepath.Join(out, "profile_export_aiperf.csv")); err != nil {
		t.Errorf("merged CSV: %v", err)
	}

	// A run of another endpoint type is refused, naming both.
	c := profile(t, "-m", "test-model", "-u", url, "--endpoint-type", "completions", "--streaming",
		"--concurrency", "2", "--request-count", "4", "--isl", "16", "--osl", "8")
	if c.code != 0 {
		t.Fatalf("profile exit %d\n%s\n%s", c.code, c.stdout, c.stderr)
	}
	err = processExportFiles(context.Background(), &stdout, &stderr, []string{a.dir, c.dir}, filepath.Join(t.TempDir(), "x"))
	if err == nil || !strings.Contains(err.Error(), "endpoint type") || !strings.Contains(err.Error(), "completions") ||
		!strings.Contains(err.Error(), "chat") || !strings.Contains(err.Error(), c.dir) {
		t.Errorf("merging chat with completions: err = %v, want a refusal naming the endpoint types and %s", err, c.dir)
	}
}

func TestProcessExportFilesRefusesBadInputs(t *testing.T) {
	empty := t.TempDir()
	half := t.TempDir()
	if err := os.WriteFile(filepath.Join(half, "profile_export.jsonl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		dirs []string
		out  string
		want []string
	}{
		{"no artifacts", []string{empty}, filepath.Join(t.TempDir(), "o"), []string{empty, "profile_export_aiperf.json and profile_export.jsonl"}},
		{"summary missing", []string{half}, filepath.Join(t.TempDir(), "o"), []string{half, "lacks profile_export_aiperf.json"}},
		{"missing dir", []string{filepath.Join(empty, "nope")}, filepath.Join(t.TempDir(), "o"), []string{"does not exist"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := runCommand(t, "process-export-files", append(c.dirs, "--artifact-dir", c.out)...)
			if err == nil {
				t.Fatalf("no error; output:\n%s", out)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
			if _, statErr := os.Stat(c.out); statErr == nil {
				t.Errorf("--artifact-dir %s was created for a refused merge", c.out)
			}
		})
	}
}
