package main

// End-to-end tests of server metrics (issue 12): `aiperf profile` against
// the mock server scrapes its vLLM-style /metrics and writes AIPerf 0.13's
// server_metrics_export.* files, compared by shape with AIPerf's own
// (testdata/aiperf013/j_server_metrics).

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
)

func smKeys(m any) []string {
	mm, _ := m.(map[string]any)
	return slices.Sorted(maps.Keys(mm))
}

// dig walks nested objects and arrays ("series", 0 picks the first item).
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// csvHeaders are the section header rows of a server-metrics CSV, without
// the label columns (they depend on the server's labels).
func csvHeaders(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n") {
		if strings.HasPrefix(line, "Endpoint,") {
			var cols []string
			for _, c := range strings.Split(line, ",") {
				if c != "model_name" && c != "finished_reason" {
					cols = append(cols, c)
				}
			}
			out = append(out, strings.Join(cols, ","))
		}
	}
	return out
}

func TestServerMetricsExportsMatchAIPerfShape(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 5 * time.Millisecond, ITL: time.Millisecond})
	r := profile(t, "--no-gpu-telemetry", "--model", "mock-model", "--url", url, "--endpoint-type", "chat", "--streaming",
		"--concurrency", "2", "--request-count", "12", "--warmup-request-count", "4", "--isl", "32", "--osl", "8",
		"--extra-inputs", "ignore_eos:true", "--server-metrics-formats", "json", "csv", "jsonl")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	ref := filepath.Join("..", "..", "testdata", "aiperf013", "j_server_metrics")
	want := readJSONMap(t, filepath.Join(ref, "server_metrics_export.trimmed.json"))
	got := readJSONMap(t, filepath.Join(r.dir, "server_metrics_export.json"))

	for _, path := range [][]any{{}, {"summary"}, {"summary", "phase_time_ranges"}, {"summary", "phase_time_ranges", "profiling"}} {
		if w, g := smKeys(dig(want, path...)), smKeys(dig(got, path...)); !slices.Equal(w, g) {
			t.Errorf("keys at %v: got %v, want %v", path, g, w)
		}
	}
	endpoint := strings.TrimRight(url, "/") + "/metrics"
	if w, g := smKeys(dig(want, "summary", "endpoint_info", "http://127.0.0.1:18431/metrics")), smKeys(dig(got, "summary", "endpoint_info", endpoint)); !slices.Equal(w, g) {
		t.Errorf("endpoint_info keys: got %v, want %v", g, w)
	}
	// Every metric family AIPerf reported from our mock is there, with
	// the same type, unit, series keys and stats keys.
	for _, section := range []string{"metrics", "warmup_metrics"} {
		for _, name := range smKeys(want[section]) {
			wm, gm := dig(want, section, name), dig(got, section, name)
			if gm == nil {
				t.Errorf("%s.%s missing", section, name)
				continue
			}
			for _, k := range []string{"type", "unit", "description"} {
				if dig(wm, k) != dig(gm, k) {
					t.Errorf("%s.%s.%s = %v, want %v", section, name, k, dig(gm, k), dig(wm, k))
				}
			}
			paths := [][]any{{"series", 0}, {"series", 0, "stats"}}
			if section == "warmup_metrics" && dig(wm, "type") == "histogram" {
				// Whether a warmup histogram has observations depends on
				// whether a scrape landed mid-warmup: series keys only.
				paths = paths[:1]
			}
			for _, p := range paths {
				if w, g := smKeys(dig(wm, p...)), smKeys(dig(gm, p...)); !slices.Equal(w, g) {
					t.Errorf("%s.%s keys at %v: got %v, want %v", section, name, p, g, w)
				}
			}
		}
	}
	// The counters are deltas over profiling only: 12 requests, not 16.
	for _, s := range dig(got, "metrics", "vllm:request_success", "series").([]any) {
		if dig(s, "labels", "finished_reason") == "length" {
			if total := dig(s, "stats", "total"); total != 12.0 {
				t.Errorf("profiling request_success total = %v, want 12", total)
			}
		}
	}
	if c := dig(got, "metrics", "vllm:e2e_request_latency_seconds", "series", 0, "buckets", "+Inf"); c != 12.0 {
		t.Errorf("e2e histogram +Inf bucket delta = %v, want 12", c)
	}
	// "1 means 100 percent" in the help makes it a ratio (AIPerf's infer_unit).
	if dig(got, "metrics", "vllm:kv_cache_usage_perc", "unit") != "ratio" {
		t.Errorf("kv cache usage gauge = %v", dig(got, "metrics", "vllm:kv_cache_usage_perc"))
	}

	if w, g := csvHeaders(t, filepath.Join(ref, "server_metrics_export.csv")), csvHeaders(t, filepath.Join(r.dir, "server_metrics_export.csv")); !slices.Equal(w, g) {
		t.Errorf("CSV section headers:\n got %q\nwant %q", g, w)
	}
	wantLine := readFirstLine(t, filepath.Join(ref, "server_metrics_export.head.jsonl"))
	gotLine := readFirstLine(t, filepath.Join(r.dir, "server_metrics_export.jsonl"))
	if w, g := smKeys(wantLine), smKeys(gotLine); !slices.Equal(w, g) {
		t.Errorf("JSONL line keys: got %v, want %v", g, w)
	}
	checkPhaseServerMetrics(t, r.dir, ref, strings.TrimPrefix(strings.TrimRight(url, "/"), "http://"), got)
}

// checkPhaseServerMetrics compares phases/<phase>/server_metrics.json and
// their phase_manifest.json keys with AIPerf's (same fixture run), and the
// profiling phase's numbers with server_metrics_export.json's (one window).
func checkPhaseServerMetrics(t *testing.T, dir, ref, display string, export map[string]any) {
	t.Helper()
	manifest := readJSONMap(t, filepath.Join(dir, "phase_manifest.json"))
	for i, phase := range []string{"warmup", "profiling"} {
		rel := "phases/" + phase + "/server_metrics.json"
		if g := dig(manifest, "phases", i, "server_metrics_json"); g != rel {
			t.Errorf("phase_manifest phases[%d].server_metrics_json = %v, want %s", i, g, rel)
		}
		want := readJSONMap(t, filepath.Join(ref, filepath.FromSlash(rel)))
		got := readJSONMap(t, filepath.Join(dir, filepath.FromSlash(rel)))
		wantEP, gotEP := []any{"data", "endpoint_summaries", "127.0.0.1:18431"}, []any{"data", "endpoint_summaries", display}
		for _, path := range [][]any{{}, {"phase"}, {"data"}} {
			if w, g := smKeys(dig(want, path...)), smKeys(dig(got, path...)); !slices.Equal(w, g) {
				t.Errorf("%s keys at %v: got %v, want %v", rel, path, g, w)
			}
		}
		// One endpoint, keyed by its host:port (AIPerf's ran on another port).
		if g := smKeys(dig(got, "data", "endpoint_summaries")); len(g) != 1 || g[0] != display {
			t.Errorf("%s endpoint_summaries keys %v, want [%s]", rel, g, display)
		}
		for _, sub := range [][]any{{}, {"info"}} {
			if w, g := smKeys(dig(want, append(wantEP, sub...)...)), smKeys(dig(got, append(gotEP, sub...)...)); !slices.Equal(w, g) {
				t.Errorf("%s endpoint summary keys at %v: got %v, want %v", rel, sub, g, w)
			}
		}
		if dig(got, "phase", "phase_name") != phase || dig(got, "data", "phase_kind") != phase {
			t.Errorf("%s names phase %v / %v", rel, dig(got, "phase", "phase_name"), dig(got, "data", "phase_kind"))
		}
		wm, gm := dig(want, append(wantEP, "metrics")...), dig(got, append(gotEP, "metrics")...)
		for _, name := range smKeys(wm) {
			paths := [][]any{{}, {"series", 0}, {"series", 0, "stats"}}
			if phase == "warmup" && dig(wm, name, "type") == "histogram" {
				paths = paths[:2] // observations depend on where scrapes landed
			}
			for _, p := range paths {
				if w, g := smKeys(dig(wm, append([]any{name}, p...)...)), smKeys(dig(gm, append([]any{name}, p...)...)); !slices.Equal(w, g) {
					t.Errorf("%s %s keys at %v: got %v, want %v", rel, name, p, g, w)
				}
			}
		}
		if phase != "profiling" {
			continue
		}
		// One profiling window: the same numbers as the run's export.
		for _, name := range smKeys(gm) {
			g, e := dig(gm, name, "series", 0, "stats"), dig(export, "metrics", name, "series", 0, "stats")
			if g == nil || !reflectEqualJSON(g, e) {
				t.Errorf("%s %s stats %v, server_metrics_export.json %v", rel, name, g, e)
			}
		}
		if c := dig(gm, "vllm:e2e_request_latency_seconds", "series", 0, "buckets", "+Inf"); c != 12.0 {
			t.Errorf("%s e2e +Inf bucket delta = %v, want 12", rel, c)
		}
	}
}

func reflectEqualJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func readFirstLine(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

func TestNoServerMetricsWritesNone(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true})
	r := profile(t, "--no-gpu-telemetry", "--model", "mock-model", "--url", url, "--endpoint-type", "chat", "--request-count", "4", "--no-server-metrics")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	matches, _ := filepath.Glob(filepath.Join(r.dir, "server_metrics_export*"))
	if len(matches) != 0 {
		t.Errorf("--no-server-metrics wrote %v", matches)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "profile_export_aiperf.json")); err != nil {
		t.Errorf("the run's own export is missing: %v", err)
	}
}

// A --server-metrics target that is down gives one warning naming it and
// the run still succeeds, with the endpoint's own metrics exported.
func TestServerMetricsDownTargetWarns(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true})
	down := "http://127.0.0.1:1/metrics"
	r := profile(t, "--no-gpu-telemetry", "--model", "mock-model", "--url", url, "--endpoint-type", "chat", "--request-count", "4",
		"--server-metrics", down)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	log, err := os.ReadFile(filepath.Join(r.dir, "logs", "aiperf.log"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(log), "server metrics source failed"); n != 1 || !strings.Contains(string(log), down) {
		t.Errorf("warnings about %s: %d\n%s", down, n, grepLines(string(log), "server metrics"))
	}
	got := readJSONMap(t, filepath.Join(r.dir, "server_metrics_export.json"))
	if cfg := dig(got, "summary", "endpoints_configured").([]any); len(cfg) != 2 {
		t.Errorf("endpoints_configured = %v, want 2", cfg)
	}
	if ok := dig(got, "summary", "endpoints_successful").([]any); len(ok) != 1 {
		t.Errorf("endpoints_successful = %v, want only the endpoint's own", ok)
	}
}

// --slice-duration adds timeslices to every series and rate_* stats to the
// counters, with AIPerf 0.13's keys (testdata/aiperf013/k_server_metrics_slices).
func TestServerMetricsTimeslicesMatchAIPerfShape(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 5 * time.Millisecond, ITL: time.Millisecond})
	r := profile(t, "--no-gpu-telemetry", "--model", "mock-model", "--url", url, "--endpoint-type", "chat", "--streaming",
		"--request-rate", "20", "--request-count", "16", "--isl", "32", "--osl", "8", "--slice-duration", "0.2",
		"--extra-inputs", "ignore_eos:true", "--server-metrics-formats", "json", "csv")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	ref := filepath.Join("..", "..", "testdata", "aiperf013", "k_server_metrics_slices")
	want := readJSONMap(t, filepath.Join(ref, "server_metrics_export.trimmed.json"))
	got := readJSONMap(t, filepath.Join(r.dir, "server_metrics_export.json"))
	for _, name := range smKeys(want["metrics"]) {
		wm, gm := dig(want, "metrics", name), dig(got, "metrics", name)
		if gm == nil {
			t.Errorf("metrics.%s missing", name)
			continue
		}
		paths := [][]any{{"series", 0}, {"series", 0, "timeslices", 0}}
		if dig(wm, "type") == "counter" {
			paths = append(paths, []any{"series", 0, "stats"})
		}
		for _, p := range paths {
			if w, g := smKeys(dig(wm, p...)), smKeys(dig(gm, p...)); !slices.Equal(w, g) {
				t.Errorf("metrics.%s keys at %v: got %v, want %v", name, p, g, w)
			}
		}
		// Slices tile the grid: each starts where the previous ended, only
		// the last may be partial.
		ts, _ := dig(gm, "series", 0, "timeslices").([]any)
		for i := 1; i < len(ts); i++ {
			if dig(ts[i], "start_ns") != dig(ts[i-1], "end_ns") || dig(ts[i-1], "is_complete") != nil {
				t.Errorf("metrics.%s slices %d-%d: %v then %v", name, i-1, i, ts[i-1], ts[i])
			}
		}
	}
	if w, g := csvHeaders(t, filepath.Join(ref, "server_metrics_export.csv")), csvHeaders(t, filepath.Join(r.dir, "server_metrics_export.csv")); !slices.Equal(w, g) {
		t.Errorf("CSV section headers:\n got %q\nwant %q", g, w)
	}
	b, err := os.ReadFile(filepath.Join(r.dir, "server_metrics_export.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// The counter rows fill rate_avg..rate_std (columns 7-10) once a slice is complete.
	rows := 0
	for _, line := range strings.Split(string(b), "\r\n") {
		if cols := strings.Split(line, ","); len(cols) > 10 && cols[1] == "counter" {
			rows++
			if slices.Contains(cols[6:10], "") {
				t.Errorf("counter row without rate_* stats: %s", line)
			}
		}
	}
	if rows == 0 {
		t.Errorf("no counter rows in the CSV:\n%s", b)
	}
}
