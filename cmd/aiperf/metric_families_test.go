package main

// End-to-end checks of AIPerf 0.13's metric families (issue 9; docs/METRICS.md
// §2.4) against the mock server: every added tag is exported with AIPerf's
// unit and stats keys (compared with AIPerf's own artifacts in
// testdata/aiperf013), and the values agree with each other and with the
// mock's exact token counts.

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"github.com/aiperf-go/aiperf/internal/jsontest"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/metrics"
	"github.com/aiperf-go/aiperf/mockserver"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/consoleexporter/oslmismatch"
)

// Summary tags this issue added, by kind of result.
var (
	familyRecordTags = []string{
		"usage_prompt_tokens", "usage_completion_tokens", "usage_total_tokens", "usage_reasoning_tokens",
		"usage_prompt_tokens_diff_pct", "usage_completion_tokens_diff_pct", "osl_mismatch_diff_pct",
		"e2e_output_token_throughput", "prefill_throughput_per_user", "decode_duration",
		"credit_to_start_latency", "effective_latency",
	}
	familyScalarTags = []string{
		"total_output_tokens", "total_usage_prompt_tokens", "total_usage_completion_tokens",
		"total_usage_total_tokens", "total_usage_reasoning_tokens", "osl_mismatch_count",
		"usage_discrepancy_count", "request_error_rate", "completed_request_count",
		"input_token_throughput", "total_token_throughput",
	}
	// Per-record (JSONL) tags this issue added; the derived latencies and
	// every run-level metric stay out of the JSONL, as in AIPerf.
	familyJSONLTags = []string{
		"usage_prompt_tokens", "usage_completion_tokens", "usage_total_tokens", "usage_reasoning_tokens",
		"usage_prompt_tokens_diff_pct", "usage_completion_tokens_diff_pct", "osl_mismatch_diff_pct",
		"e2e_output_token_throughput", "prefill_throughput_per_user", "decode_duration",
	}
	adjTags = []string{"adj_time_to_first_token", "adj_request_latency", "adj_decode_duration", "adj_inter_token_latency"}
)

// fixtureDir is AIPerf 0.13's artifacts of one reference configuration.
func fixtureDir(config string) string {
	return filepath.Join("..", "..", "testdata", "aiperf013", config)
}

// fixtureSummary reads an AIPerf profile_export_aiperf.json (or a trimmed
// copy of its keys).
func fixtureSummary(t *testing.T, config, file string) map[string]json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir(config), file))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// fixtureRecord reads the first metrics object of an AIPerf JSONL fixture.
func fixtureRecord(t *testing.T, config string) map[string]struct {
	Value json.RawMessage `json:"value"`
	Unit  string          `json:"unit"`
} {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir(config), "profile_export.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	var rec jsonlRecord
	if err := json.Unmarshal(line, &rec); err != nil {
		t.Fatal(err)
	}
	return rec.Metrics
}

// sameShape checks that our summary carries tag with AIPerf's unit and
// stats keys, in AIPerf's order.
func sameShape(t *testing.T, r *profileRun, ref map[string]json.RawMessage, tag string) {
	t.Helper()
	want, ok := ref[tag]
	if !ok {
		t.Fatalf("the AIPerf fixture has no %s", tag)
	}
	got, ok := r.summary[tag]
	if !ok {
		t.Errorf("%s missing from profile_export_aiperf.json", tag)
		return
	}
	var wu, gu struct {
		Unit string `json:"unit"`
	}
	_ = json.Unmarshal(want, &wu)
	_ = json.Unmarshal(got, &gu)
	if wk, gk := jsontest.ObjectKeys(t, want), jsontest.ObjectKeys(t, got); gu.Unit != wu.Unit || !slices.Equal(gk, wk) {
		t.Errorf("%s: unit %q keys %v; AIPerf: unit %q keys %v", tag, gu.Unit, gk, wu.Unit, wk)
	}
}

func (r *profileRun) value(t *testing.T, rec jsonlRecord, tag string) float64 {
	t.Helper()
	m, ok := rec.Metrics[tag]
	if !ok {
		t.Fatalf("record %v lacks %s: %v", rec.Metadata["x_request_id"], tag, rec.Metrics)
	}
	var v float64
	if err := json.Unmarshal(m.Value, &v); err != nil {
		t.Fatalf("%s: %v", tag, err)
	}
	return v
}

func isIntLiteral(raw json.RawMessage) bool { return !bytes.ContainsAny(raw, ".eE") }

// closeTo compares floats written with different rounding paths (ms values
// divided vs multiplied).
func closeTo(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// csvNames are the Metric column of both CSV sections.
func csvNames(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cr := csv.NewReader(bytes.NewReader(b))
	cr.FieldsPerRecord = -1
	rows, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, row := range rows {
		if len(row) > 0 && row[0] != "" && row[0] != "Metric" {
			names = append(names, row[0])
		}
	}
	return names
}

// csvRow returns the CSV row labelled name.
func csvRow(t *testing.T, path, name string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cr := csv.NewReader(bytes.NewReader(b))
	cr.FieldsPerRecord = -1
	rows, _ := cr.ReadAll()
	for _, row := range rows {
		if len(row) > 0 && row[0] == name {
			return row
		}
	}
	return nil
}

// AIPerf's a_chat_stream configuration against our mock: the families'
// tags, units and stats keys are AIPerf's, and with the mock's exact token
// counts the usage equals the client counts (differences 0), the output
// length equals the requested 16, and the per-request rates follow from the
// latencies.
func TestMetricFamiliesStreamingChat(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 5 * time.Millisecond, ITL: time.Millisecond})
	r := profile(t, "-m", "mock-model", "-u", url, "--endpoint-type", "chat", "--streaming",
		"--concurrency", "2", "--request-count", "8", "--isl", "64", "--osl", "16", "--extra-inputs", "ignore_eos:true")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	ref := fixtureSummary(t, "a_chat_stream", "profile_export_aiperf.json")
	for _, tag := range append(slices.Clone(familyRecordTags), familyScalarTags...) {
		sameShape(t, r, ref, tag)
	}
	// Tags AIPerf writes only with errors, reasoning or goodput.
	for _, tag := range append([]string{"context_overflow_count", "total_error_isl", "good_request_fraction",
		"usage_reasoning_tokens_diff_pct", "total_reasoning_tokens"}, adjTags...) {
		if _, ok := r.summary[tag]; ok {
			t.Errorf("%s exported by a clean, non-reasoning run without goodput", tag)
		}
	}

	// JSONL: AIPerf's units and value kinds (ints for token counts).
	refRec := fixtureRecord(t, "a_chat_stream")
	if len(r.records) != 8 {
		t.Fatalf("%d JSONL records, want 8", len(r.records))
	}
	var isl, osl, usagePrompt, usageCompletion, usageTotal float64
	for _, rec := range r.records {
		for _, tag := range familyJSONLTags {
			got, ok := rec.Metrics[tag]
			want := refRec[tag]
			if !ok || got.Unit != want.Unit || isIntLiteral(got.Value) != isIntLiteral(want.Value) {
				t.Errorf("JSONL %s = %s %q, AIPerf writes e.g. %s %q", tag, got.Value, got.Unit, want.Value, want.Unit)
			}
		}
		for _, tag := range append([]string{"credit_to_start_latency", "effective_latency"}, familyScalarTags...) {
			if _, ok := rec.Metrics[tag]; ok {
				t.Errorf("JSONL record carries %s", tag)
			}
		}
		// The mock counts tokens with the same tokenizer: usage = client counts.
		recISL, recOSL := r.value(t, rec, "input_sequence_length"), r.value(t, rec, "output_sequence_length")
		if p, c, tot := r.value(t, rec, "usage_prompt_tokens"), r.value(t, rec, "usage_completion_tokens"),
			r.value(t, rec, "usage_total_tokens"); p != recISL || c != recOSL || tot != p+c || recOSL != 16 {
			t.Errorf("usage prompt %v completion %v total %v; ISL %v OSL %v", p, c, tot, recISL, recOSL)
		}
		for _, tag := range []string{"usage_prompt_tokens_diff_pct", "usage_completion_tokens_diff_pct", "osl_mismatch_diff_pct", "usage_reasoning_tokens"} {
			if v := r.value(t, rec, tag); v != 0 {
				t.Errorf("%s = %v, want 0", tag, v)
			}
		}
		lat, ttft := r.value(t, rec, "request_latency"), r.value(t, rec, "time_to_first_token")
		if d := r.value(t, rec, "decode_duration"); math.Abs(d-(lat-ttft)) > 1e-6 {
			t.Errorf("decode_duration %v ms, request_latency − TTFT = %v", d, lat-ttft)
		}
		if e := r.value(t, rec, "e2e_output_token_throughput"); !closeTo(e, recOSL/(lat/1e3)) {
			t.Errorf("e2e_output_token_throughput %v, OSL / latency = %v", e, recOSL/(lat/1e3))
		}
		if p := r.value(t, rec, "prefill_throughput_per_user"); !closeTo(p, recISL/(ttft/1e3)) {
			t.Errorf("prefill_throughput_per_user %v, ISL / TTFT = %v", p, recISL/(ttft/1e3))
		}
		isl, osl = isl+recISL, osl+recOSL
		usagePrompt += r.value(t, rec, "usage_prompt_tokens")
		usageCompletion += r.value(t, rec, "usage_completion_tokens")
		usageTotal += r.value(t, rec, "usage_total_tokens")
	}

	// Run-level values.
	for tag, want := range map[string]float64{
		"total_output_tokens": osl, "total_usage_prompt_tokens": usagePrompt, "total_usage_completion_tokens": usageCompletion,
		"total_usage_total_tokens": usageTotal, "total_usage_reasoning_tokens": 0, "osl_mismatch_count": 0,
		"usage_discrepancy_count": 0, "completed_request_count": 8, "request_error_rate": 0,
	} {
		if got := *r.mustMetric(t, tag).Avg; got != want {
			t.Errorf("%s = %v, want %v", tag, got, want)
		}
	}
	// input/total token throughput share request_throughput's window.
	window := 8 / *r.mustMetric(t, "request_throughput").Avg
	if got := *r.mustMetric(t, "input_token_throughput").Avg; !closeTo(got*window, isl) {
		t.Errorf("input_token_throughput %v × window %v s = %v, want total ISL %v", got, window, got*window, isl)
	}
	if got := *r.mustMetric(t, "total_token_throughput").Avg; !closeTo(got*window, isl+osl) {
		t.Errorf("total_token_throughput %v × window %v s = %v, want ISL + OSL %v", got, window, got*window, isl+osl)
	}
	// The derived latencies cover all 8 records; the user-perceived latency
	// includes the request latency.
	c2s, eff, lat := r.mustMetric(t, "credit_to_start_latency"), r.mustMetric(t, "effective_latency"), r.mustMetric(t, "request_latency")
	if *c2s.Count != 8 || *eff.Count != 8 || *c2s.Min < 0 || *eff.Min < *lat.Min-0.01 {
		t.Errorf("credit_to_start_latency %+v, effective_latency %+v, request_latency min %v", c2s, eff, *lat.Min)
	}

	// CSV: every row AIPerf writes for these families, with its label.
	ours := csvNames(t, filepath.Join(r.dir, "profile_export_aiperf.csv"))
	for _, name := range csvNames(t, filepath.Join(fixtureDir("a_chat_stream"), "profile_export_aiperf.csv")) {
		family := strings.HasPrefix(name, "Usage ") || strings.HasPrefix(name, "Total Usage ") || strings.HasPrefix(name, "OSL ") ||
			slices.Contains([]string{"Decode Duration (ms)", "E2E Output Token Throughput (tokens/sec/user)",
				"Prefill Throughput Per User (tokens/sec/user)", "Credit-to-Start Latency (ms)", "Effective Latency (CO-aware) (ms)",
				"Completed Requests (Success + Error)", "Input Token Throughput (tokens/sec)", "Request Error Rate (%)",
				"Total Output Tokens (tokens)", "Total Token Throughput (tokens/sec)"}, name)
		if family && !slices.Contains(ours, name) {
			t.Errorf("CSV lacks AIPerf's row %q", name)
		}
	}
	// Console: AIPerf's main table gains these rows; the usage metrics and
	// effective_latency are in its Usage and Effective tables.
	tables := map[string][]string{}
	for _, tbl := range consoleTables(r.stdout) {
		tables[tbl.Title] = tbl.Rows
	}
	main := strings.Join(tables["NVIDIA AIPerf | LLM Metrics"], "\n")
	for _, row := range []string{"Decode Duration (ms)", "E2E Output Token Throughput (tokens/sec/user)",
		"Input Token Throughput (tokens/sec)", "Completed Requests (Success + Error)", "Request Error Rate (%)"} {
		if !strings.Contains(main, row) {
			t.Errorf("main table lacks %q:\n%s", row, r.stdout)
		}
	}
	for _, row := range []string{"Usage Prompt Tokens", "Prefill Throughput", "Effective Latency", "error-adjusted", "Mismatch"} {
		if strings.Contains(main, row) {
			t.Errorf("main table shows %q, which AIPerf's does not", row)
		}
	}
	if !slices.Contains(tables["NVIDIA AIPerf | LLM Metrics: Usage"], "Usage Prompt Tokens (tokens)") ||
		!slices.Contains(tables["NVIDIA AIPerf | LLM Metrics: Effective"], "Effective Latency (CO-aware) (ms)") {
		t.Errorf("the Usage and Effective tables lack their rows: %q", tables)
	}
}

// AIPerf's h_chat_errors_raw configuration (half the requests answered with
// HTTP 500): the error family, and the error-adjusted statistics whose
// non-finite stats are left out.
func TestMetricFamiliesWithErrors(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 5 * time.Millisecond, ITL: time.Millisecond, ErrorRate: 50, RandomSeed: 3})
	r := profile(t, "-m", "mock-model", "-u", url, "--endpoint-type", "chat", "--streaming",
		"--concurrency", "2", "--request-count", "8", "--isl", "64", "--osl", "16", "--extra-inputs", "ignore_eos:true")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	failed := 0
	var errorISL float64
	for _, rec := range r.records {
		if rec.Error != nil {
			failed++
			errorISL += r.value(t, rec, "error_isl")
		}
	}
	if failed == 0 || failed == 8 {
		t.Fatalf("%d of 8 requests failed; the test needs both kinds", failed)
	}
	ok := 8 - failed
	t.Logf("%d of 8 requests failed", failed)

	ref := fixtureSummary(t, "h_chat_errors_raw", "profile_export_aiperf.error_only_keys.json")
	for _, tag := range []string{"total_error_isl", "context_overflow_count"} {
		sameShape(t, r, ref, tag)
	}
	for tag, want := range map[string]float64{
		"total_error_isl": errorISL, "context_overflow_count": 0, "completed_request_count": 8,
		"request_error_rate": 100 * float64(failed) / 8, "request_count": float64(ok),
	} {
		if got := *r.mustMetric(t, tag).Avg; got != want {
			t.Errorf("%s = %v, want %v", tag, got, want)
		}
	}
	// The derived latencies count failed requests too.
	for _, tag := range []string{"credit_to_start_latency", "effective_latency"} {
		if n := *r.mustMetric(t, tag).Count; n != 8 {
			t.Errorf("%s count = %v, want 8 (failures included)", tag, n)
		}
	}

	// adj_*: the ok successes plus one +inf per failure; a percentile is
	// kept when its nearest rank round-half-even(q/100 × 7) is a success.
	wantKeys := []string{"unit"}
	for _, q := range []float64{1, 5, 10, 25, 50, 75, 90, 95, 99} {
		if int(math.RoundToEven(7*(q/100))) < ok {
			wantKeys = append(wantKeys, fmt.Sprintf("p%g", q))
		}
	}
	wantKeys = append(wantKeys, "min", "count")
	for _, tag := range adjTags {
		raw, found := r.summary[tag]
		if !found {
			t.Errorf("%s missing", tag)
			continue
		}
		if keys := jsontest.ObjectKeys(t, raw); !slices.Equal(keys, wantKeys) {
			t.Errorf("%s keys %v, want %v", tag, keys, wantKeys)
		}
		if failed == 3 { // AIPerf's run had 3 failures of 8: its exact shape
			sameShape(t, r, ref, tag)
		}
		s := r.mustMetricAny(t, tag)
		base := r.mustMetric(t, strings.TrimPrefix(tag, "adj_"))
		if *s.Count != 8 || s.Unit != "ms" || *s.Min != *base.Min {
			t.Errorf("%s = %+v, want count 8, ms, min = %s min %v", tag, s, strings.TrimPrefix(tag, "adj_"), *base.Min)
		}
	}
	// CSV: the adj rows leave the non-finite cells empty, as AIPerf's do.
	row := csvRow(t, filepath.Join(r.dir, "profile_export_aiperf.csv"), "Request Latency (error-adjusted) (ms)")
	refRow := csvRow(t, filepath.Join(fixtureDir("h_chat_errors_raw"), "profile_export_aiperf.trimmed.csv"), "Request Latency (error-adjusted) (ms)")
	if row == nil || refRow == nil {
		t.Fatalf("adj CSV row: ours %v, AIPerf %v", row, refRow)
	}
	if failed == 3 {
		for i := range refRow {
			if (refRow[i] == "") != (row[i] == "") {
				t.Errorf("CSV adj row %v, AIPerf %v: cell %d", row, refRow, i)
			}
		}
	}
	if !strings.Contains(r.stdout, "Time to First Token (error-adjusted)") {
		t.Errorf("console lacks the error-adjusted rows:\n%s", r.stdout)
	}
}

// mustMetricAny is mustMetric for results without an avg (adj_*).
func (r *profileRun) mustMetricAny(t *testing.T, tag string) stat {
	t.Helper()
	s, ok := r.metric(t, tag)
	if !ok {
		t.Fatalf("metric %s missing", tag)
	}
	return s
}

// Without ignore_eos the mock stops at its natural length, far below the
// requested 200 tokens: every record's osl_mismatch_diff_pct is (OSL −
// 200) / 200 × 100, osl_mismatch_count counts those more than min(200 ×
// 5%, 50) = 10 tokens off, and AIPerf's warning panel reports them.
func TestOSLMismatchFamily(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: time.Millisecond, ITL: 100 * time.Microsecond})
	r := profile(t, "-m", "mock-model", "-u", url, "--endpoint-type", "chat", "--streaming",
		"--concurrency", "2", "--request-count", "6", "--isl", "16", "--osl", "200")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	mismatches, diffSum := 0, 0.0
	for _, rec := range r.records {
		osl := r.value(t, rec, "output_sequence_length")
		diff := r.value(t, rec, "osl_mismatch_diff_pct")
		if !closeTo(diff, (osl-200)/200*100) {
			t.Errorf("osl_mismatch_diff_pct %v for OSL %v, want %v", diff, osl, (osl-200)/200*100)
		}
		if math.Abs(osl-200) > 10 {
			mismatches++
		}
		diffSum += diff
	}
	count := *r.mustMetric(t, "osl_mismatch_count").Avg
	if int(count) != mismatches || mismatches == 0 {
		t.Fatalf("osl_mismatch_count = %v, want %d", count, mismatches)
	}
	if avg := *r.mustMetric(t, "osl_mismatch_diff_pct").Avg; !closeTo(avg, diffSum/float64(len(r.records))) {
		t.Errorf("osl_mismatch_diff_pct avg %v", avg)
	}
	// The warning AIPerf prints from these results.
	res := &sdk.Results{}
	for _, tag := range []string{metrics.TagOSLMismatchCount, metrics.TagRequestCount, metrics.TagOSLMismatchDiff} {
		s := r.mustMetric(t, tag)
		res.Metrics = append(res.Metrics, sdk.MetricResult{Tag: tag, Avg: s.Avg})
	}
	var buf bytes.Buffer
	if err := oslmismatch.New(oslmismatch.WithColor(false)).Render(context.Background(), &buf, &sdk.ExportContext{Results: res}); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%d of %d requests (%.1f%%) have output length differing from requested by more than the threshold.",
		mismatches, len(r.records), float64(mismatches)/float64(len(r.records))*100)
	if !strings.Contains(buf.String(), want) || !strings.Contains(buf.String(), oslmismatch.Title) {
		t.Errorf("warning:\n%s\nwant %q", buf.String(), want)
	}
	// Printed by the run itself once the exporter is registered.
	if strings.Contains(r.stdout, oslmismatch.Title) && !strings.Contains(r.stdout, want) {
		t.Errorf("the run printed a different warning:\n%s", r.stdout)
	}
}

// With --goodput each successful JSONL record carries good_request_count
// ({"value":1,"unit":"requests"} in AIPerf's e_chat_goodput_slices) and the
// summary good_request_fraction (scalar, ratio).
func TestGoodputFamily(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	r := profile(t, "-m", "mock-model", "-u", url, "--endpoint-type", "chat", "--streaming",
		"--concurrency", "2", "--request-count", "8", "--isl", "64", "--osl", "16", "--extra-inputs", "ignore_eos:true",
		"--goodput", "time_to_first_token:10000")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	want := fixtureRecord(t, "e_chat_goodput_slices")["good_request_count"]
	for _, rec := range r.records {
		got, ok := rec.Metrics["good_request_count"]
		if !ok || string(got.Value) != string(want.Value) || got.Unit != want.Unit {
			t.Errorf("JSONL good_request_count = %s %q, AIPerf %s %q", got.Value, got.Unit, want.Value, want.Unit)
		}
	}
	frac, ok := r.summary["good_request_fraction"]
	if !ok {
		t.Fatal("good_request_fraction missing")
	}
	if keys := jsontest.ObjectKeys(t, frac); !slices.Equal(keys, []string{"unit", "avg"}) {
		t.Errorf("good_request_fraction keys %v", keys)
	}
	if s := r.mustMetric(t, "good_request_fraction"); s.Unit != "ratio" || *s.Avg != 1 {
		t.Errorf("good_request_fraction = %+v, want 1 ratio", s)
	}
	if row := csvRow(t, filepath.Join(r.dir, "profile_export_aiperf.csv"), "GoodRequestFraction (ratio)"); row == nil {
		t.Error("CSV lacks AIPerf's GoodRequestFraction (ratio) row")
	}
}

// AIPerf's b_chat_nostream configuration: without streaming the
// STREAMING_ONLY members (decode_duration, prefill_throughput_per_user) drop
// out, the rest stays.
func TestMetricFamiliesNonStreaming(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	r := profile(t, "-m", "mock-model", "-u", url, "--endpoint-type", "chat",
		"--concurrency", "2", "--request-count", "8", "--isl", "64", "--osl", "16", "--extra-inputs", "ignore_eos:true")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	ref := fixtureSummary(t, "b_chat_nostream", "profile_export_aiperf.json")
	for _, tag := range append(slices.Clone(familyRecordTags), familyScalarTags...) {
		_, inRef := ref[tag]
		_, inOurs := r.summary[tag]
		switch {
		case inRef:
			sameShape(t, r, ref, tag)
		case inOurs:
			t.Errorf("%s exported; AIPerf's non-streaming run has none", tag)
		}
	}
	for _, tag := range []string{"decode_duration", "prefill_throughput_per_user"} {
		if _, ok := r.summary[tag]; ok {
			t.Errorf("%s on a non-streaming run", tag)
		}
	}
}

// AIPerf's i_chat_reasoning configuration (the mock's gpt-oss model
// reasons): usage_reasoning_tokens_diff_pct and total_reasoning_tokens
// appear; the mock reports exactly the reasoning tokens it sent.
func TestMetricFamiliesReasoning(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: time.Millisecond, ITL: 100 * time.Microsecond})
	r := profile(t, "-m", "mock-gpt-oss", "-u", url, "--endpoint-type", "chat", "--streaming",
		"--concurrency", "2", "--request-count", "4", "--isl", "64", "--osl", "600", "--extra-inputs", "ignore_eos:true")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var reasoning float64
	for _, rec := range r.records {
		client := r.value(t, rec, "reasoning_token_count")
		if u := r.value(t, rec, "usage_reasoning_tokens"); u != client {
			t.Errorf("usage_reasoning_tokens %v, client reasoning_token_count %v", u, client)
		}
		if d := r.value(t, rec, "usage_reasoning_tokens_diff_pct"); d != 0 {
			t.Errorf("usage_reasoning_tokens_diff_pct = %v", d)
		}
		if u, osl := r.value(t, rec, "usage_completion_tokens"), r.value(t, rec, "output_sequence_length"); u != osl {
			t.Errorf("usage_completion_tokens %v, OSL (with reasoning) %v", u, osl)
		}
		reasoning += client
	}
	if got := *r.mustMetric(t, "total_reasoning_tokens").Avg; got != reasoning || reasoning == 0 {
		t.Errorf("total_reasoning_tokens = %v, want %v", got, reasoning)
	}
	if got := *r.mustMetric(t, "total_usage_reasoning_tokens").Avg; got != reasoning {
		t.Errorf("total_usage_reasoning_tokens = %v, want %v", got, reasoning)
	}
	if s := r.mustMetric(t, "usage_reasoning_tokens_diff_pct"); s.Unit != "%" || s.P50 == nil {
		t.Errorf("usage_reasoning_tokens_diff_pct = %+v", s)
	}
}
