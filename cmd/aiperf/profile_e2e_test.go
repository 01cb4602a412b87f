package main

// End-to-end tests: the real CLI entry point against the real mock server
// over loopback, checking measured values, artifacts and exit codes.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/app"
	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

func startMock(t *testing.T, cfg mockserver.Config) string {
	return mocktest.Start(t, cfg)
}

type profileRun struct {
	code     int
	stdout   string
	stderr   string
	dir      string
	summary  map[string]json.RawMessage
	records  []jsonlRecord
	inputsJS map[string]any
}

type jsonlRecord struct {
	Metadata map[string]any `json:"metadata"`
	Metrics  map[string]struct {
		Value json.RawMessage `json:"value"`
		Unit  string          `json:"unit"`
	} `json:"metrics"`
	Error *struct {
		Code    int    `json:"code"`
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

func profile(t *testing.T, args ...string) *profileRun {
	t.Helper()
	dir := t.TempDir()
	full := append([]string{"profile", "--artifact-dir", dir, "--ui", "none", "--random-seed", "42", "--tokenizer", "builtin"}, args...)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), full, &stdout, &stderr)
	r := &profileRun{code: code, stdout: stdout.String(), stderr: stderr.String(), dir: dir}
	if b, err := os.ReadFile(filepath.Join(dir, "profile_export_aiperf.json")); err == nil {
		if err := json.Unmarshal(b, &r.summary); err != nil {
			t.Fatalf("profile_export_aiperf.json does not parse: %v", err)
		}
	}
	if f, err := os.Open(filepath.Join(dir, "profile_export.jsonl")); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var rec jsonlRecord
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatalf("profile_export.jsonl line does not parse: %v\n%s", err, sc.Text())
			}
			r.records = append(r.records, rec)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "inputs.json")); err == nil {
		if err := json.Unmarshal(b, &r.inputsJS); err != nil {
			t.Fatalf("inputs.json does not parse: %v", err)
		}
	}
	return r
}

type stat struct {
	Unit  string   `json:"unit"`
	Avg   *float64 `json:"avg"`
	Min   *float64 `json:"min"`
	Max   *float64 `json:"max"`
	P50   *float64 `json:"p50"`
	P90   *float64 `json:"p90"`
	P99   *float64 `json:"p99"`
	Std   *float64 `json:"std"`
	Count *float64 `json:"count"`
	Sum   *float64 `json:"sum"`
}

func (r *profileRun) metric(t *testing.T, tag string) (stat, bool) {
	t.Helper()
	raw, ok := r.summary[tag]
	if !ok {
		return stat{}, false
	}
	var s stat
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("metric %s: %v", tag, err)
	}
	return s, true
}

func (r *profileRun) mustMetric(t *testing.T, tag string) stat {
	t.Helper()
	s, ok := r.metric(t, tag)
	if !ok || s.Avg == nil {
		t.Fatalf("metric %s missing from the JSON summary; stdout:\n%s\nstderr:\n%s", tag, r.stdout, r.stderr)
	}
	return s
}

func TestProfileStreamingChatMatchesMockTiming(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 30 * time.Millisecond, ITL: 3 * time.Millisecond})
	r := profile(t, "-m", "test-model", "-u", url, "--endpoint-type", "chat", "--streaming",
		"--concurrency", "4", "--request-count", "40", "--isl", "64", "--osl", "24",
		"--extra-inputs", "ignore_eos:true", "--tokenizer", "builtin")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	ttft := r.mustMetric(t, "time_to_first_token")
	if *ttft.Min < 30 || *ttft.Avg > 30+40 {
		t.Errorf("TTFT avg %.2f ms (min %.2f), want about the mock's 30 ms", *ttft.Avg, *ttft.Min)
	}
	itl := r.mustMetric(t, "inter_token_latency")
	if *itl.Avg < 2.5 || *itl.Avg > 3+6 {
		t.Errorf("ITL avg %.2f ms, want about the mock's 3 ms", *itl.Avg)
	}
	osl := r.mustMetric(t, "output_sequence_length")
	if *osl.Min != 24 || *osl.Max != 24 {
		t.Errorf("OSL min/max %v/%v, want exactly max_tokens=24 with ignore_eos", *osl.Min, *osl.Max)
	}
	isl := r.mustMetric(t, "input_sequence_length")
	if *isl.Min != 64 || *isl.Max != 64 {
		t.Errorf("ISL min/max %v/%v, want exactly --isl 64", *isl.Min, *isl.Max)
	}
	if c := r.mustMetric(t, "request_count"); *c.Avg != 40 {
		t.Errorf("request_count %v, want 40", *c.Avg)
	}
	if _, ok := r.metric(t, "error_request_count"); ok {
		t.Error("error_request_count present on a run without errors (must be absent)")
	}
	if ttfo := r.mustMetric(t, "time_to_first_output_token"); math.Abs(*ttfo.Avg-*ttft.Avg) > 1e-9 {
		t.Errorf("non-reasoning model: TTFO %.4f != TTFT %.4f", *ttfo.Avg, *ttft.Avg)
	}
	if len(r.records) != 40 {
		t.Fatalf("%d JSONL records, want 40", len(r.records))
	}
	checkJSONLRecomputesSummary(t, r)
	checkCSV(t, r)
	checkInputs(t, r, 40)
	for _, want := range []string{"NVIDIA AIPerf | LLM Metrics", "Time to First Token (ms)", "Benchmark Duration:", "JSON Export:", "CLI Command: aiperf profile"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("console output lacks %q:\n%s", want, r.stdout)
		}
	}
}

func TestProfileReasoningModelHasLaterFirstOutputToken(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 5 * time.Millisecond, ITL: time.Millisecond})
	r := profile(t, "-m", "Qwen/Qwen3-0.6B", "-u", url, "--streaming", "--concurrency", "2",
		"--request-count", "10", "--isl", "32", "--osl", "40", "--extra-inputs", "ignore_eos:true")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	// Per request, the first answer token comes after the reasoning began
	// (comparing across requests would depend on the machine's load).
	for i, rec := range r.records {
		var ttft, ttfo float64
		if json.Unmarshal(rec.Metrics["time_to_first_token"].Value, &ttft) != nil ||
			json.Unmarshal(rec.Metrics["time_to_first_output_token"].Value, &ttfo) != nil || !(ttfo > ttft) {
			t.Errorf("reasoning model, record %d: TTFO %.3f ms should exceed TTFT %.3f ms", i, ttfo, ttft)
		}
	}
	osl := r.mustMetric(t, "output_sequence_length")
	if *osl.Min != 40 || *osl.Max != 40 {
		t.Errorf("OSL (answer + reasoning) min/max %v/%v, want 40", *osl.Min, *osl.Max)
	}
	for _, rec := range r.records {
		if _, ok := rec.Metrics["reasoning_token_count"]; !ok {
			t.Fatalf("record without reasoning_token_count: %+v", rec.Metrics)
		}
	}
	// The artifact subdirectory is not added when --artifact-dir is given.
	if _, err := os.Stat(filepath.Join(r.dir, "profile_export_aiperf.csv")); err != nil {
		t.Error(err)
	}
}

func TestProfileNonStreamingHasNoStreamingMetrics(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true})
	r := profile(t, "-m", "test-model", "-u", url, "--endpoint-type", "completions",
		"--concurrency", "2", "--request-count", "12", "--isl", "20", "--osl", "8", "--extra-inputs", "ignore_eos:true")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, tag := range []string{"time_to_first_token", "time_to_second_token", "time_to_first_output_token",
		"inter_token_latency", "inter_chunk_latency", "output_token_throughput_per_user"} {
		if _, ok := r.metric(t, tag); ok {
			t.Errorf("non-streaming run reports %s", tag)
		}
	}
	r.mustMetric(t, "request_latency")
	if osl := r.mustMetric(t, "output_sequence_length"); *osl.Min != 8 || *osl.Max != 8 {
		t.Errorf("OSL %v..%v, want 8", *osl.Min, *osl.Max)
	}
	checkJSONLRecomputesSummary(t, r)
}

func TestProfileErrorRateIsMeasured(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true, ErrorRate: 20, RandomSeed: 3})
	const n = 300
	r := profile(t, "-m", "test-model", "-u", url, "--streaming", "--concurrency", "8",
		"--request-count", fmt.Sprint(n), "--isl", "16", "--osl", "4")
	if r.code != 0 {
		t.Fatalf("partial failures must exit 0, got %d\n%s", r.code, r.stderr)
	}
	errs := r.mustMetric(t, "error_request_count")
	ok := r.mustMetric(t, "request_count")
	if *errs.Avg+*ok.Avg != n {
		t.Errorf("errors %v + successes %v != %d", *errs.Avg, *ok.Avg, n)
	}
	// Binomial(300, 0.2): mean 60, sd 6.9; ±4.3 sd keeps flakes below 1e-5.
	if *errs.Avg < 30 || *errs.Avg > 90 {
		t.Errorf("error_request_count %v, want about 60 (20%% of %d)", *errs.Avg, n)
	}
	if !strings.Contains(r.stdout, "NVIDIA AIPerf | Error Summary") {
		t.Errorf("no error summary on the console:\n%s", r.stdout)
	}
	var summary []struct {
		ErrorDetails struct{ Code int } `json:"error_details"`
		Count        int                `json:"count"`
	}
	if err := json.Unmarshal(r.summary["error_summary"], &summary); err != nil || len(summary) == 0 || summary[0].ErrorDetails.Code != 500 {
		t.Errorf("error_summary = %s (%v)", r.summary["error_summary"], err)
	}
	failed := 0
	for _, rec := range r.records {
		if rec.Error != nil {
			failed++
			if rec.Error.Code != 500 {
				t.Errorf("error record code %d", rec.Error.Code)
			}
		}
	}
	if float64(failed) != *errs.Avg {
		t.Errorf("JSONL has %d error records, summary says %v", failed, *errs.Avg)
	}
}

func TestProfileAllFailedExitsTooManyFailedRequests(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true, ErrorRate: 100})
	r := profile(t, "-m", "m", "-u", url, "--request-count", "5", "--isl", "8")
	// AIPerf exits 1 here; ours is the too-many-failed-requests status
	// (app/exitcodes.go), distinct from bad input's 1.
	if r.code != app.ExitFailedRequests || !strings.Contains(r.stderr, "Every request failed") {
		t.Fatalf("exit %d, want %d when every request failed\n%s", r.code, app.ExitFailedRequests, r.stderr)
	}
	if r.summary == nil {
		t.Fatal("results must still be exported when every request failed")
	}
}

func TestProfileConfigErrorsSendNothing(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true})
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--concurrency", "-1"}, "--concurrency"},
		{[]string{"--endpoint-type", "chatt"}, "chatt"},
		{[]string{"--goodput", "time_to_first_token"}, "--goodput"},
		{[]string{"--goodput", "no_such_metric:5"}, "no_such_metric"},
		{[]string{"--goodput", "time_to_first_token:10"}, "time_to_first_token"}, // not streaming
		{[]string{"--export-level", "everything"}, "--export-level"},
	}
	for _, c := range cases {
		args := append([]string{"-m", "m", "-u", url, "--request-count", "3"}, c.args...)
		r := profile(t, args...)
		if r.code != 1 {
			t.Errorf("%v: exit %d, want 1", c.args, r.code)
		}
		if !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: stderr does not mention %q:\n%s", c.args, c.want, r.stderr)
		}
		if len(r.records) != 0 || r.summary != nil {
			t.Errorf("%v: a config error still produced results", c.args)
		}
	}
	body := httpGet(t, url+"/metrics")
	// Per-model series appear with the first inference request.
	if strings.Contains(body, "vllm:prompt_tokens_total{") || !strings.Contains(body, "mock:bad_requests_total 0") {
		t.Errorf("requests reached the server despite config errors:\n%s", grepLines(body, "total"))
	}
}

func TestProfileGoodputCountsRecordsMeetingEverySLO(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	r := profile(t, "-m", "m", "-u", url, "--streaming", "--request-count", "10", "--isl", "8", "--osl", "4",
		"--goodput", "time_to_first_token:1000 request_latency:0.001")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	// Nobody finishes a request in 1 µs: no record is good.
	if g := r.mustMetric(t, "good_request_count"); *g.Avg != 0 {
		t.Errorf("good_request_count %v, want 0", *g.Avg)
	}
	r2 := profile(t, "-m", "m", "-u", url, "--streaming", "--request-count", "10", "--isl", "8", "--osl", "4",
		"--goodput", "time_to_first_token:60000")
	g := r2.mustMetric(t, "good_request_count")
	rt := r2.mustMetric(t, "request_throughput")
	gp := r2.mustMetric(t, "goodput")
	// Every request is good, so goodput is the request throughput (both over
	// the profiling phase's window).
	if *g.Avg != 10 || math.Abs(*gp.Avg-*rt.Avg) > 1e-9**rt.Avg {
		t.Errorf("good %v goodput %v request throughput %v", *g.Avg, *gp.Avg, *rt.Avg)
	}
}

// checkJSONLRecomputesSummary recomputes avg/min/max/p50/p99/std of every
// per-record metric from the JSONL lines and compares with the JSON summary.
func checkJSONLRecomputesSummary(t *testing.T, r *profileRun) {
	t.Helper()
	values := map[string][]float64{}
	for _, rec := range r.records {
		for tag, m := range rec.Metrics {
			var one float64
			if err := json.Unmarshal(m.Value, &one); err == nil {
				values[tag] = append(values[tag], one)
				continue
			}
			var list []float64
			if err := json.Unmarshal(m.Value, &list); err != nil {
				t.Fatalf("%s value %s is neither a number nor a list", tag, m.Value)
			}
			values[tag] = append(values[tag], list...)
		}
	}
	if len(values) == 0 {
		t.Fatal("no per-record metrics in the JSONL")
	}
	for tag, vs := range values {
		s, ok := r.metric(t, tag)
		if !ok {
			t.Errorf("%s is in the JSONL but not in the JSON summary", tag)
			continue
		}
		sort.Float64s(vs)
		sum := 0.0
		for _, v := range vs {
			sum += v
		}
		avg := sum / float64(len(vs))
		ss := 0.0
		for _, v := range vs {
			ss += (v - avg) * (v - avg)
		}
		want := map[string]float64{"avg": avg, "min": vs[0], "max": vs[len(vs)-1],
			"p50": linearPct(vs, 50), "p99": linearPct(vs, 99), "std": math.Sqrt(ss / float64(len(vs)))}
		got := map[string]*float64{"avg": s.Avg, "min": s.Min, "max": s.Max, "p50": s.P50, "p99": s.P99, "std": s.Std}
		for k, w := range want {
			g := got[k]
			if g == nil {
				t.Errorf("%s.%s missing", tag, k)
				continue
			}
			if math.Abs(*g-w) > 1e-6*math.Max(1, math.Abs(w)) {
				t.Errorf("%s.%s = %v, recomputed from JSONL %v", tag, k, *g, w)
			}
		}
		if s.Count == nil || int(*s.Count) != len(vs) {
			t.Errorf("%s.count = %v, JSONL has %d values", tag, s.Count, len(vs))
		}
	}
}

func linearPct(sorted []float64, q float64) float64 {
	idx := q / 100 * float64(len(sorted)-1)
	lo := int(math.Floor(idx))
	hi := min(lo+1, len(sorted)-1)
	return sorted[lo] + (idx-float64(lo))*(sorted[hi]-sorted[lo])
}

func checkCSV(t *testing.T, r *profileRun) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, "profile_export_aiperf.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// Two metric sections, then (after two blank lines) AIPerf's GPU
	// telemetry header with no rows.
	metrics, gpu, ok := strings.Cut(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n\n\n")
	if !ok || !strings.HasPrefix(gpu, "Endpoint,GPU_Index,") {
		t.Fatalf("CSV lacks the GPU telemetry section:\n%s", b)
	}
	sections := strings.Split(metrics, "\n\n")
	if len(sections) != 2 {
		t.Fatalf("CSV has %d metric sections, want 2:\n%s", len(sections), b)
	}
	for i, want := range []string{"Metric,avg,min,max,sum,p1,p5,p10,p25,p50,p75,p90,p95,p99,std", "Metric,Value"} {
		rows, err := csv.NewReader(strings.NewReader(sections[i])).ReadAll()
		if err != nil {
			t.Fatalf("CSV section %d: %v", i+1, err)
		}
		if strings.Join(rows[0], ",") != want || len(rows) < 2 {
			t.Errorf("CSV section %d header %v (%d rows)", i+1, rows[0], len(rows))
		}
	}
}

func checkInputs(t *testing.T, r *profileRun, minPayloads int) {
	t.Helper()
	data, _ := r.inputsJS["data"].([]any)
	if len(data) == 0 {
		t.Fatalf("inputs.json has no data: %v", r.inputsJS)
	}
	ids := map[string]bool{}
	for _, d := range data {
		entry := d.(map[string]any)
		ids[entry["session_id"].(string)] = true
		if len(entry["payloads"].([]any)) != 1 {
			t.Errorf("single-turn entry with %d payloads", len(entry["payloads"].([]any)))
		}
	}
	for _, rec := range r.records {
		if !ids[rec.Metadata["conversation_id"].(string)] {
			t.Errorf("JSONL conversation_id %v is not a session_id in inputs.json", rec.Metadata["conversation_id"])
		}
	}
}

// Issue 15: a run whose every request outlives --benchmark-duration plus a
// zero grace period. AIPerf cancels them and records nothing; we export each
// as a typed cancellation, leave them out of the metrics as AIPerf does, and
// say on the console how many were cut off.
func TestProfileGraceCutOffRequestsAreExportedAsCancellations(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 3 * time.Second})
	r := profile(t, "-m", "m", "-u", url, "--streaming", "--benchmark-duration", "1", "--benchmark-grace-period", "0",
		"--concurrency", "4", "--isl", "8", "--osl", "4")
	// Nothing completed and nothing failed: the run itself succeeded (the
	// all-failed status needs a failed request; docs/METRICS.md).
	if r.code != app.ExitOK {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, app.ExitOK, r.stdout, r.stderr)
	}
	if len(r.records) != 4 {
		t.Fatalf("%d JSONL records, want the 4 requests sent\n%s", len(r.records), r.stdout)
	}
	for i, rec := range r.records {
		if rec.Error == nil || rec.Error.Type != "RequestCancellationError" || rec.Error.Code != 499 ||
			rec.Metadata["was_cancelled"] != true || rec.Metadata["cancellation_time_ns"] == nil {
			t.Errorf("record %d: error %+v, metadata %v; want a RequestCancellationError 499 cancellation", i, rec.Error, rec.Metadata)
		}
	}
	if !strings.Contains(r.stdout, "4 requests were cut off by the grace period") {
		t.Errorf("console does not count the cut-off requests:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, "Benchmark Duration: 0.00 sec") {
		t.Errorf("benchmark duration must be the phase's span, not 0:\n%s", r.stdout)
	}
	for _, tag := range []string{"request_count", "error_request_count"} {
		if _, ok := r.metric(t, tag); ok {
			t.Errorf("%s present: cut-off requests must not count in the metrics", tag)
		}
	}
}
