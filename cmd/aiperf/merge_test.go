package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/metrics"
	"github.com/aiperf-go/aiperf/core/shardresult"
	"github.com/aiperf-go/aiperf/mockserver"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// splitRun is one real run against the mock (streaming chat, goodput SLO,
// some injected errors) whose records are dealt round-robin into four
// shard directories, each with the run's summary: four shards of one load.
type splitRun struct {
	run  *profileRun
	dirs []string
}

func newSplitRun(t *testing.T) splitRun {
	t.Helper()
	url := startMock(t, mockserver.Config{TTFT: 3 * time.Millisecond, ITL: 200 * time.Microsecond, ErrorRate: 5, RandomSeed: 7})
	r := profile(t, "-m", "test-model", "-u", url, "--endpoint-type", "chat", "--streaming",
		"--concurrency", "8", "--request-count", "240", "--isl", "16", "--osl", "12",
		"--goodput", "time_to_first_token:4")
	if r.code != 0 {
		t.Fatalf("profile exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	summary, err := os.ReadFile(filepath.Join(r.dir, "profile_export_aiperf.json"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(r.dir, "profile_export.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	parts := make([]bytes.Buffer, 4)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	n := 0
	for sc.Scan() {
		parts[n%4].Write(sc.Bytes())
		parts[n%4].WriteByte('\n')
		n++
	}
	if n != 240 {
		t.Fatalf("run wrote %d records, want 240", n)
	}
	s := splitRun{run: r}
	root := t.TempDir()
	for i := range parts {
		dir := filepath.Join(root, fmt.Sprintf("part-%d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "profile_export_aiperf.json"), summary, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "profile_export.jsonl"), parts[i].Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		s.dirs = append(s.dirs, dir)
	}
	return s
}

// reports are the four shards as a Kubernetes manager hands them back:
// result payloads only (with records when exact).
func (s splitRun) reports(t *testing.T, exact bool) []sdk.ShardReport {
	t.Helper()
	var out []sdk.ShardReport
	for i, dir := range s.dirs {
		b, err := shardPayload(dir, i, len(s.dirs), "plan-abc", exact)
		if err != nil {
			t.Fatalf("FromRunDir(%s): %v", dir, err)
		}
		out = append(out, sdk.ShardReport{Index: i, OK: true, Result: b})
	}
	return out
}

// mergedSummary is a merged profile_export_aiperf.json.
type mergedSummary struct {
	raw      map[string]json.RawMessage
	metrics  map[string]map[string]float64
	sharding *sdk.ShardingInfo
}

func readMerged(t *testing.T, dir string) mergedSummary {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "profile_export_aiperf.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := mergedSummary{metrics: map[string]map[string]float64{}}
	if err := json.Unmarshal(b, &m.raw); err != nil {
		t.Fatalf("merged summary: %v", err)
	}
	// Metric blocks: objects with a unit and numeric statistics.
	for k, v := range m.raw {
		var block map[string]any
		if json.Unmarshal(v, &block) != nil {
			continue
		}
		if _, ok := block["unit"].(string); !ok {
			continue
		}
		stats := map[string]float64{}
		for stat, x := range block {
			if f, ok := x.(float64); ok {
				stats[stat] = f
			}
		}
		if len(stats) > 0 {
			m.metrics[k] = stats
		}
	}
	if v, ok := m.raw["sharding"]; ok {
		m.sharding = &sdk.ShardingInfo{}
		if err := json.Unmarshal(v, m.sharding); err != nil {
			t.Fatalf("sharding block: %v", err)
		}
	}
	return m
}

func relDiff(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / math.Max(math.Abs(a), math.Abs(b))
}

// The sketch merge of four shard results equals the exact merge of the
// same records in every count, sum, min and max, in mean and std to 1e-9,
// in every throughput and goodput, and every percentile is within α.
func TestMergeShardResultsSketchMatchesExactMerge(t *testing.T) {
	s := newSplitRun(t)
	exactDir := filepath.Join(t.TempDir(), "exact")
	var stdout, stderr bytes.Buffer
	if err := processExportFiles(context.Background(), &stdout, &stderr, s.dirs, exactDir); err != nil {
		t.Fatalf("exact merge: %v\n%s", err, stderr.String())
	}
	sketchDir := filepath.Join(t.TempDir(), "sketch")
	stdout.Reset()
	m, err := mergeShardReports(context.Background(), &stdout, &stderr, s.reports(t, false), sketchDir, false)
	if err != nil {
		t.Fatalf("sketch merge: %v\n%s", err, stderr.String())
	}
	if m.Method != "ddsketch" || m.Shards != 4 || m.Completed != 4 || m.Partial || len(m.Failed) != 0 {
		t.Errorf("merge = %+v, want 4 of 4 shards by ddsketch, not partial", m)
	}
	ex, sk := readMerged(t, exactDir), readMerged(t, sketchDir)
	if sk.sharding == nil || sk.sharding.Percentiles != "ddsketch" || sk.sharding.RelativeAccuracy != 0.001 ||
		sk.sharding.Shards != 4 || sk.sharding.Completed != 4 || sk.sharding.Partial {
		t.Errorf("sharding block = %+v, want 4 of 4, ddsketch, relative_accuracy 0.001", sk.sharding)
	}
	if ex.sharding != nil {
		t.Errorf("process-export-files wrote a sharding block: %+v", ex.sharding)
	}
	for _, tag := range []string{"time_to_first_token", "inter_token_latency", "request_latency", "output_sequence_length",
		"request_throughput", "output_token_throughput", "goodput", "good_request_count", "error_request_count", "request_count"} {
		if ex.metrics[tag] == nil {
			t.Errorf("exact merge lacks %s", tag)
		}
	}
	if ex.metrics["error_request_count"]["avg"] == 0 {
		t.Error("the run had no failed request: the error paths are untested")
	}
	checked := 0
	for tag, want := range ex.metrics {
		got, ok := sk.metrics[tag]
		// The sweep metrics need every record's intervals: only an exact
		// merge has them.
		if ok == metrics.IsSweep(tag) {
			t.Errorf("sketch merge has %s: %v, want %v", tag, ok, !metrics.IsSweep(tag))
		}
		if !ok {
			continue
		}
		for stat, w := range want {
			g, ok := got[stat]
			if !ok {
				t.Errorf("%s.%s missing from the sketch merge", tag, stat)
				continue
			}
			tol := 1e-9
			if strings.HasPrefix(stat, "p") {
				tol = 0.001 + 1e-12
			}
			if d := relDiff(g, w); d > tol {
				t.Errorf("%s.%s = %v, exact merge %v (relative difference %.3g > %g)", tag, stat, g, w, d, tol)
			}
			checked++
		}
	}
	if checked < 100 {
		t.Errorf("compared only %d statistics", checked)
	}
	var eErrs, sErrs []sdk.ErrorCount
	json.Unmarshal(ex.raw["error_summary"], &eErrs)
	json.Unmarshal(sk.raw["error_summary"], &sErrs)
	if len(eErrs) == 0 || fmt.Sprint(eErrs) != fmt.Sprint(sErrs) {
		t.Errorf("error_summary: sketch %v, exact %v", sErrs, eErrs)
	}
	out := stdout.String()
	if !strings.Contains(out, "Merged 4 of 4 shards; ≈ percentiles") || !strings.Contains(out, "Merged 4 of 4 shards (240 profiling records)") {
		t.Errorf("console lacks the merge line:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(sketchDir, "profile_export_aiperf.csv")); err != nil {
		t.Errorf("sketch merge CSV: %v", err)
	}
	if _, err := os.Stat(filepath.Join(sdk.ShardDir(sketchDir, 2), "profile_export_aiperf.json")); err != nil {
		t.Errorf("shard 2's summary is not kept: %v", err)
	}
}

// Results that carry their records merge exactly: the same statistics as
// process-export-files, bit for bit, and the block says exact. A failed
// shard makes the merge PARTIAL and is listed with its reason.
func TestMergeShardResultsExactAndPartial(t *testing.T) {
	s := newSplitRun(t)
	exactDir := filepath.Join(t.TempDir(), "exact")
	var stdout, stderr bytes.Buffer
	if err := processExportFiles(context.Background(), &stdout, &stderr, s.dirs, exactDir); err != nil {
		t.Fatalf("exact merge: %v\n%s", err, stderr.String())
	}
	out := filepath.Join(t.TempDir(), "merged")
	m, err := mergeShardReports(context.Background(), &stdout, &stderr, s.reports(t, true), out, true)
	if err != nil {
		t.Fatalf("merge: %v", err)
	}
	if m.Method != "exact" {
		t.Errorf("method %q, want exact", m.Method)
	}
	ex, got := readMerged(t, exactDir), readMerged(t, out)
	for tag, want := range ex.metrics {
		if fmt.Sprint(got.metrics[tag]) != fmt.Sprint(want) {
			t.Errorf("%s = %v, process-export-files %v", tag, got.metrics[tag], want)
		}
	}
	if got.sharding == nil || got.sharding.Percentiles != "exact" || got.sharding.RelativeAccuracy != 0 || len(got.sharding.Failed) != 0 {
		t.Errorf("sharding block = %+v, want exact", got.sharding)
	}
	if _, err := os.Stat(filepath.Join(sdk.ShardDir(out, 3), "profile_export.jsonl")); err != nil {
		t.Errorf("shard 3's records were not written out: %v", err)
	}

	// Shard 1 failed; the local manager's reports point at directories.
	reports := []sdk.ShardReport{
		{Index: 3, OK: true, Dir: s.dirs[3]}, {Index: 0, OK: true, Dir: s.dirs[0]},
		{Index: 1, OK: false, ExitCode: -1, Reason: "killed by signal"}, {Index: 2, OK: true, Dir: s.dirs[2]},
	}
	stdout.Reset()
	out = filepath.Join(t.TempDir(), "partial")
	m, err = mergeShardReports(context.Background(), &stdout, &stderr, reports, out, false)
	if err != nil {
		t.Fatalf("partial merge: %v", err)
	}
	if !m.Partial || m.Completed != 3 || len(m.Failed) != 1 || m.Failed[0].Shard != 1 || m.Method != "exact" {
		t.Errorf("merge = %+v, want partial, 3 completed, shard 1 failed, exact", m)
	}
	p := readMerged(t, out)
	if p.sharding == nil || !p.sharding.Partial || p.sharding.Shards != 4 || p.sharding.Completed != 3 ||
		len(p.sharding.Failed) != 1 || p.sharding.Failed[0] != (sdk.ShardFailure{Shard: 1, Reason: "killed by signal"}) {
		t.Errorf("sharding block = %+v", p.sharding)
	}
	want := ex.metrics["request_count"]["avg"] + ex.metrics["error_request_count"]["avg"] - 60
	if c := p.metrics["request_count"]["avg"] + p.metrics["error_request_count"]["avg"]; c != want {
		t.Errorf("partial merge holds %v requests, want the three shards' %v", c, want)
	}
	if !strings.Contains(stdout.String(), "PARTIAL: merged 3 of 4 shards") || !strings.Contains(stdout.String(), "shard 1 failed: killed by signal") {
		t.Errorf("console does not say PARTIAL:\n%s", stdout.String())
	}

	// None completed: an error, nothing merged.
	if _, err := mergeShardReports(context.Background(), &stdout, &stderr, []sdk.ShardReport{{Index: 0, Reason: "x"}}, t.TempDir(), false); err == nil {
		t.Error("merging no completed shard succeeded")
	}
	// Results of different plans are refused.
	bad := s.reports(t, false)
	b, _ := shardPayload(s.dirs[1], 1, 4, "another-plan", false)
	bad[1].Result = b
	if _, err := mergeShardReports(context.Background(), &stdout, &stderr, bad, t.TempDir(), false); err == nil || !strings.Contains(err.Error(), "different plans") {
		t.Errorf("merging shards of two plans: err = %v", err)
	}
	// --exact without records in the results is refused.
	if _, err := mergeShardReports(context.Background(), &stdout, &stderr, s.reports(t, false), t.TempDir(), true); err == nil || !strings.Contains(err.Error(), "--exact") {
		t.Errorf("--exact with sketch-only results: err = %v", err)
	}
}

// FromRunDir → Decode keeps what a merge needs; WriteRunDir writes a
// directory process-export-files reads.
func TestShardResultRoundTrip(t *testing.T) {
	s := newSplitRun(t)
	b, err := shardPayload(s.dirs[0], 0, 4, "plan-abc", true)
	if err != nil {
		t.Fatal(err)
	}
	r, err := shardresult.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if r.ShardIndex != 0 || r.ShardCount != 4 || r.PlanHash != "plan-abc" || r.Records != 60 || r.Version != shardresult.Version {
		t.Errorf("decoded %d/%d plan %q records %d", r.ShardIndex, r.ShardCount, r.PlanHash, r.Records)
	}
	summary, _ := os.ReadFile(filepath.Join(s.dirs[0], "profile_export_aiperf.json"))
	records, _ := os.ReadFile(filepath.Join(s.dirs[0], "profile_export.jsonl"))
	if !bytes.Equal(r.Summary, summary) || !bytes.Equal(r.RecordsJSONL, records) {
		t.Error("summary or records not carried verbatim")
	}
	if r.Span.Start <= 0 || r.Span.End <= r.Span.Start {
		t.Errorf("span %+v", r.Span)
	}
	// The TTFT digest holds the shard's valid records' values, in ns.
	d := r.Partial.Metrics["time_to_first_token"]
	if d == nil || d.Count != r.Partial.Valid || d.Min < 1e6 {
		t.Fatalf("ttft digest %+v, valid %d", d, r.Partial.Valid)
	}
	if r.Partial.Valid+r.Partial.Errored != 60 {
		t.Errorf("valid %d + errored %d != 60", r.Partial.Valid, r.Partial.Errored)
	}
	dir := filepath.Join(t.TempDir(), "w")
	if err := r.WriteRunDir(dir); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := processExportFiles(context.Background(), &stdout, &stderr, []string{dir}, filepath.Join(t.TempDir(), "o")); err != nil {
		t.Errorf("process-export-files of a written run dir: %v", err)
	}
	// Without records WriteRunDir says why.
	b, _ = shardPayload(s.dirs[0], 0, 4, "plan-abc", false)
	r, _ = shardresult.Decode(b)
	if err := r.WriteRunDir(t.TempDir()); err == nil || !strings.Contains(err.Error(), "--exact") {
		t.Errorf("WriteRunDir without records: %v", err)
	}
}

// `aiperf merge DIR...` is process-export-files.
func TestMergeCommandAlias(t *testing.T) {
	s := newSplitRun(t)
	out := filepath.Join(t.TempDir(), "m")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append(append([]string{"merge"}, s.dirs...), "--artifact-dir", out), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("aiperf merge exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "Merged 4 runs (240 profiling records)") {
		t.Errorf("aiperf merge output:\n%s", stdout.String())
	}
	if _, err := os.Stat(filepath.Join(out, "profile_export_aiperf.json")); err != nil {
		t.Error(err)
	}
}
