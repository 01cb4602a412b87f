package metrics

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/aiperf-go/aiperf/core/internal/testfixtures"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// familySpecs are the record metrics of AIPerf 0.13's families as the
// built-in processor declares them (units and flags; the core reads them by
// tag), next to the fixture's AIPerf record metrics.
var familySpecs = []sdk.MetricSpec{
	{Tag: TagUsagePromptTokens, Unit: UnitTokens, Flags: sdk.FlagTokenizesInputOnly | sdk.FlagLargerIsBetter | sdk.FlagNoConsole, Integer: true},
	{Tag: TagUsageCompletionTokens, Unit: UnitTokens, Flags: sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter | sdk.FlagNoConsole, Integer: true},
	{Tag: TagUsageTotalTokens, Unit: UnitTokens, Flags: sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter | sdk.FlagNoConsole, Integer: true},
	{Tag: TagUsageReasoningTokens, Unit: UnitTokens, Flags: sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter | sdk.FlagNoConsole, Integer: true},
	{Tag: TagUsagePromptDiff, Unit: UnitPercent, Flags: sdk.FlagTokenizesInputOnly | sdk.FlagUsageDiffOnly | sdk.FlagNoConsole,
		Requires: []string{TagUsagePromptTokens, TagISL}},
	{Tag: TagUsageCompletionDiff, Unit: UnitPercent, Flags: sdk.FlagProducesTokensOnly | sdk.FlagUsageDiffOnly | sdk.FlagNoConsole,
		Requires: []string{TagUsageCompletionTokens, TagOSL}},
	{Tag: TagUsageReasoningDiff, Unit: UnitPercent, Flags: sdk.FlagProducesTokensOnly | sdk.FlagSupportsReasoning | sdk.FlagUsageDiffOnly | sdk.FlagNoConsole,
		Requires: []string{TagUsageReasoningTokens, TagReasoningCount}},
	{Tag: TagOSLMismatchDiff, Unit: UnitPercent, Flags: sdk.FlagProducesTokensOnly | sdk.FlagNoConsole, Requires: []string{TagOSL}},
	{Tag: "decode_duration", Header: "Decode Duration", Unit: UnitNanoseconds, DisplayUnit: UnitMilliseconds,
		Flags: sdk.FlagStreamingTokensOnly | sdk.FlagPercentileIncludesFailedRequests, DisplayOrder: 350},
}

func familyCatalog(t testing.TB, info sdk.RunInfo) *Catalog {
	t.Helper()
	cat, err := NewCatalog([]Declared{{Plugin: "metric_record", Specs: append(testfixtures.RecordSpecs(), familySpecs...)}}, info)
	if err != nil {
		t.Fatalf("NewCatalog: %v", err)
	}
	return cat
}

func familyRun(t *testing.T, info sdk.RunInfo, records ...*sdk.RecordMetrics) *sdk.Results {
	t.Helper()
	acc, err := NewAccumulator(familyCatalog(t, info), info)
	if err != nil {
		t.Fatalf("NewAccumulator: %v", err)
	}
	for _, r := range records {
		acc.Add(r)
	}
	return acc.Summarize()
}

// ok is a successful record at ts with the given values and a 10 ms latency.
func ok(ts int64, kv map[string]float64) *sdk.RecordMetrics {
	v := map[string]float64{TagRequestLatency: 10e6}
	for k, x := range kv {
		v[k] = x
	}
	rm := processed(ts, vals(v))
	rm.Record.EndPerfNs = 10e6
	return rm
}

// Totals sum their record metric over successful records (total_error_isl
// over failed ones) and are absent, never 0, when it has no values.
func TestFamilyTotals(t *testing.T) {
	res := familyRun(t, streamingInfo(),
		ok(1e9, map[string]float64{TagOutputTokenCount: 16, TagUsagePromptTokens: 64, TagUsageCompletionTokens: 16,
			TagUsageTotalTokens: 80, TagUsageReasoningTokens: 0, TagISL: 64, TagOSL: 16}),
		ok(2e9, map[string]float64{TagOutputTokenCount: 14, TagUsagePromptTokens: 64, TagUsageCompletionTokens: 14,
			TagUsageTotalTokens: 78, TagUsageReasoningTokens: 0, TagISL: 64, TagOSL: 14}),
		errorRecord(3e9, 500, "Internal Server Error", "boom"),
		errorRecord(4e9, 500, "Internal Server Error", "boom"),
	)
	for tag, want := range map[string]float64{
		TagTotalOutputTokens: 30, TagTotalUsagePrompt: 128, TagTotalUsageCompletion: 30, TagTotalUsageTotal: 158,
		TagTotalUsageReasoning: 0, TagTotalErrorISL: 200, TagTotalISL: 128, TagTotalOSL: 30,
	} {
		if got := avg(t, res, tag); got != want {
			t.Errorf("%s = %v, want %v", tag, got, want)
		}
	}
	// No record had a client reasoning count: the total is absent, not 0.
	assertNoResult(t, res, TagTotalReasoningTokens)
	if m, _ := res.Metric(TagTotalUsagePrompt); m.Unit != "tokens" || m.Header != "Total Usage Prompt Tokens" || !m.IsScalar() {
		t.Errorf("total_usage_prompt_tokens = %+v", m)
	}

	clean := familyRun(t, streamingInfo(), ok(1e9, map[string]float64{TagReasoningCount: 5, TagOSL: 5}))
	if got := avg(t, clean, TagTotalReasoningTokens); got != 5 {
		t.Errorf("total_reasoning_tokens = %v, want 5", got)
	}
	assertNoResult(t, clean, TagTotalErrorISL, TagTotalUsagePrompt, TagTotalOutputTokens)
}

// oslRecord is a successful record of osl tokens for requested max tokens.
func oslRecord(requested *int, osl float64) *sdk.RecordMetrics {
	kv := map[string]float64{TagOSL: osl}
	if requested != nil && *requested != 0 {
		kv[TagOSLMismatchDiff] = (osl - float64(*requested)) / float64(*requested) * 100
	}
	rm := ok(1e9, kv)
	rm.Record.RequestedOutputTokens = requested
	return rm
}

// osl_mismatch_count with the cases of AIPerf's test_osl_mismatch_metrics.py:
// a record counts when |OSL − requested| > min(requested × pct/100, max
// tokens), thresholds from AIPERF_METRICS_OSL_MISMATCH_*.
func TestOSLMismatchCount(t *testing.T) {
	cases := []struct {
		name          string
		pct, maxTok   string
		requested     int
		actual        []float64
		want          float64
		absent        bool
		noRequestedOK bool
	}{
		{"20%: -50% and -30% count", "20", "", 100, []float64{100, 50, 85, 70, 120}, 2, false, false},
		{"10%: +30% counts, +5% does not", "10", "", 100, []float64{130, 105}, 1, false, false},
		{"50%: all within", "50", "", 100, []float64{100, 60, 140}, 0, false, false},
		// Default 5% capped at 50 tokens: 2000 requested tolerates 50, not 100.
		{"defaults cap at 50 tokens", "", "", 2000, []float64{1940, 1960}, 1, false, false},
		{"defaults: 100 requested tolerates 5", "", "", 100, []float64{95, 94, 106}, 2, false, false},
		{"max tokens 10", "5", "10", 2000, []float64{1989, 1990}, 1, false, false},
		// Without requested max tokens no record contributes: absent.
		{"nothing requested", "", "", 0, []float64{10, 20}, 0, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvOSLMismatchPct, tc.pct)
			t.Setenv(EnvOSLMismatchMaxTokens, tc.maxTok)
			var recs []*sdk.RecordMetrics
			for _, a := range tc.actual {
				var req *int
				if !tc.noRequestedOK {
					req = intp(tc.requested)
				}
				recs = append(recs, oslRecord(req, a))
			}
			res := familyRun(t, streamingInfo(), recs...)
			if tc.absent {
				assertNoResult(t, res, TagOSLMismatchCount)
				return
			}
			if got := avg(t, res, TagOSLMismatchCount); got != tc.want {
				t.Errorf("osl_mismatch_count = %v, want %v", got, tc.want)
			}
		})
	}
	// A record without the OSL difference (no usable max tokens) does not
	// contribute, nor does a failed one.
	res := familyRun(t, streamingInfo(), oslRecord(intp(0), 5), errorRecord(2e9, 500, "E", "m"))
	assertNoResult(t, res, TagOSLMismatchCount)
}

func TestThresholdsFromEnv(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	th, err := ThresholdsFromEnv(env(nil))
	if err != nil || th != (Thresholds{OSLMismatchPct: 5, OSLMismatchMaxTokens: 50, UsageDiffPct: 10}) {
		t.Fatalf("defaults = %+v, %v", th, err)
	}
	th, err = ThresholdsFromEnv(env(map[string]string{EnvOSLMismatchPct: "12.5", EnvOSLMismatchMaxTokens: " 7 ", EnvUsageDiffPct: "0"}))
	if err != nil || th != (Thresholds{OSLMismatchPct: 12.5, OSLMismatchMaxTokens: 7, UsageDiffPct: 0}) {
		t.Fatalf("set = %+v, %v", th, err)
	}
	for _, bad := range []map[string]string{
		{EnvOSLMismatchPct: "101"}, {EnvOSLMismatchPct: "-1"}, {EnvUsageDiffPct: "x"},
		{EnvOSLMismatchMaxTokens: "0"}, {EnvOSLMismatchMaxTokens: "2.5"}, {EnvUsageDiffPct: "NaN"},
	} {
		if _, err := ThresholdsFromEnv(env(bad)); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	t.Setenv(EnvUsageDiffPct, "200")
	if _, err := NewAccumulator(newCatalog(t, streamingInfo()), streamingInfo()); err == nil {
		t.Error("NewAccumulator accepted an invalid threshold")
	}
	if !DefaultThresholds().OSLMismatch(100, 94) || DefaultThresholds().OSLMismatch(100, 95) {
		t.Error("5% of 100 tolerates 5 tokens, not 6")
	}
}

// diffRecord is a successful record with the given usage differences (%);
// a negative argument leaves that difference absent.
func diffRecord(prompt, completion, reasoning float64) *sdk.RecordMetrics {
	kv := map[string]float64{}
	for tag, x := range map[string]float64{TagUsagePromptDiff: prompt, TagUsageCompletionDiff: completion, TagUsageReasoningDiff: reasoning} {
		if x >= 0 {
			kv[tag] = x
		}
	}
	return ok(1e9, kv)
}

// usage_discrepancy_count: AIPerf's docstring example (threshold 10%: records
// 2, 3 and 5 of 6 count) and its rules: the prompt difference is required,
// the completion one unless the prompt one is already over, the reasoning
// one optional.
func TestUsageDiscrepancyCount(t *testing.T) {
	docs := familyRun(t, streamingInfo(),
		diffRecord(5, 3, -1), diffRecord(15, 3, -1), diffRecord(5, 12, -1),
		diffRecord(0, 0, -1), diffRecord(20, 15, -1), diffRecord(3, 2, -1))
	if got := avg(t, docs, TagUsageDiscrepancyCount); got != 3 {
		t.Errorf("docstring example: usage_discrepancy_count = %v, want 3", got)
	}
	cases := []struct {
		name   string
		recs   []*sdk.RecordMetrics
		want   float64
		absent bool
	}{
		{"exactly the threshold is no discrepancy", []*sdk.RecordMetrics{diffRecord(10, 10, 10)}, 0, false},
		{"reasoning over the threshold counts", []*sdk.RecordMetrics{diffRecord(5, 3, 11)}, 1, false},
		{"prompt over, completion absent: counts", []*sdk.RecordMetrics{diffRecord(11, -1, -1)}, 1, false},
		{"prompt within, completion absent: no contribution", []*sdk.RecordMetrics{diffRecord(5, -1, -1)}, 0, true},
		{"no prompt difference: no contribution", []*sdk.RecordMetrics{diffRecord(-1, 50, 50)}, 0, true},
		{"no records with usage", []*sdk.RecordMetrics{ok(1e9, nil)}, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := familyRun(t, streamingInfo(), tc.recs...)
			if tc.absent {
				assertNoResult(t, res, TagUsageDiscrepancyCount)
				return
			}
			if got := avg(t, res, TagUsageDiscrepancyCount); got != tc.want {
				t.Errorf("usage_discrepancy_count = %v, want %v", got, tc.want)
			}
		})
	}
	t.Setenv(EnvUsageDiffPct, "2")
	if got := avg(t, familyRun(t, streamingInfo(), diffRecord(3, 0, -1)), TagUsageDiscrepancyCount); got != 1 {
		t.Errorf("threshold 2%%: count = %v, want 1", got)
	}
}

func TestIsContextOverflow(t *testing.T) {
	for body, want := range map[string]bool{
		"This model's maximum context length is 4096 tokens":                               true,
		`{"error":{"message":"Prompt is too long: 9000 > 8192","type":"invalid_request"}}`: true,
		`{"error":"CONTEXT LENGTH exceeded"}`:                                              true,
		`{"error":{"code":"context_length_exceeded"}}`:                                     true,
		// The message JSON-escapes what the raw body match would miss.
		`{"error":{"message":"maximum\u0020context reached"}}`:                                            true,
		`{"error":{"message":"simulated server error (mock server --error-rate)","type":"server_error"}}`: false,
		"": false, "not json": false, `{"error":{"message":7}}`: false,
	} {
		if got := IsContextOverflow(body); got != want {
			t.Errorf("IsContextOverflow(%q) = %v, want %v", body, got, want)
		}
	}
}

// context_overflow_count is ERROR_ONLY: it exists (0 included) exactly when
// some request failed, as in AIPerf's h_chat_errors_raw run (0.0 with 3
// errors, absent from clean runs).
func TestContextOverflowCount(t *testing.T) {
	res := familyRun(t, streamingInfo(), ok(1e9, nil),
		errorRecord(2e9, 400, "Bad Request", `{"error":{"message":"This model's maximum context length is 8192 tokens"}}`),
		errorRecord(3e9, 500, "Internal Server Error", `{"error":{"message":"simulated server error (mock server --error-rate)"}}`),
		errorRecord(4e9, 400, "Bad Request", "prompt is too long"))
	if got := avg(t, res, TagContextOverflowCount); got != 2 {
		t.Errorf("context_overflow_count = %v, want 2", got)
	}
	m, _ := res.Metric(TagContextOverflowCount)
	if m.Unit != "requests" || !m.Flags.Has(sdk.FlagErrorOnly) {
		t.Errorf("context_overflow_count = %+v", m)
	}
	none := familyRun(t, streamingInfo(), ok(1e9, nil), errorRecord(2e9, 500, "E", "boom"))
	if got := avg(t, none, TagContextOverflowCount); got != 0 {
		t.Errorf("context_overflow_count = %v, want 0 with errors", got)
	}
	assertNoResult(t, familyRun(t, streamingInfo(), ok(1e9, nil)), TagContextOverflowCount)
}

// completed_request_count, request_error_rate and good_request_fraction
// read the request and error counts as optional (absent = 0).
func TestRequestCountRatios(t *testing.T) {
	slo := streamingInfo()
	slo.Goodput = map[string]float64{TagRequestLatency: 15} // ms; ok() takes 10 ms
	slow := ok(5e9, nil)
	slow.Values[TagRequestLatency] = sdk.MetricValue{Scalar: 20e6}
	errs := func(n int) []*sdk.RecordMetrics {
		var out []*sdk.RecordMetrics
		for i := range n {
			out = append(out, errorRecord(int64(10+i)*1e9, 500, "E", "boom"))
		}
		return out
	}
	cases := []struct {
		name                     string
		info                     sdk.RunInfo
		recs                     []*sdk.RecordMetrics
		completed, rate, goodFra float64
		absent                   []string
	}{
		// AIPerf h_chat_errors_raw: 5 successes, 3 failures.
		{"5 ok, 3 failed", slo, append([]*sdk.RecordMetrics{ok(1e9, nil), ok(2e9, nil), ok(3e9, nil), ok(4e9, nil), slow}, errs(3)...),
			8, 37.5, 0.5, nil},
		{"clean run", streamingInfo(), []*sdk.RecordMetrics{ok(1e9, nil), ok(2e9, nil)}, 2, 0, -1, []string{TagGoodRequestFraction}},
		{"all failed", slo, errs(4), 4, 100, 0, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := familyRun(t, tc.info, tc.recs...)
			if got := avg(t, res, TagCompletedRequestCount); got != tc.completed {
				t.Errorf("completed_request_count = %v, want %v", got, tc.completed)
			}
			if got := avg(t, res, TagRequestErrorRate); got != tc.rate {
				t.Errorf("request_error_rate = %v, want %v", got, tc.rate)
			}
			if tc.goodFra >= 0 {
				if got := avg(t, res, TagGoodRequestFraction); got != tc.goodFra {
					t.Errorf("good_request_fraction = %v, want %v", got, tc.goodFra)
				}
			}
			assertNoResult(t, res, tc.absent...)
		})
	}
	empty := familyRun(t, slo)
	assertNoResult(t, empty, TagCompletedRequestCount, TagRequestErrorRate)
	if got := avg(t, empty, TagGoodRequestFraction); got != 0 {
		t.Errorf("good_request_fraction without requests = %v, want 0", got)
	}
	if m, _ := empty.Metric(TagGoodRequestFraction); m.Unit != "ratio" || m.Header != "GoodRequestFraction" {
		t.Errorf("good_request_fraction = %+v", m)
	}
}

// input_token_throughput and total_token_throughput divide by the same
// window as request_throughput: the profiling phase when the runner
// reported it (window_test.go), else first request to last response.
func TestInputAndTotalTokenThroughput(t *testing.T) {
	info := streamingInfo()
	acc, err := NewAccumulator(familyCatalog(t, info), info)
	if err != nil {
		t.Fatal(err)
	}
	acc.SetPhaseStart(0)
	acc.SetPhaseEnd(4e9) // a 4 s phase; requests span 1 s .. 2.01 s
	acc.Add(ok(1e9, map[string]float64{TagISL: 100, TagOSL: 10}))
	acc.Add(ok(2e9, map[string]float64{TagISL: 300, TagOSL: 30}))
	res := acc.Summarize()
	for tag, want := range map[string]float64{
		TagRequestThroughput: 2.0 / 4, TagInputThroughput: 400.0 / 4, TagTotalThroughput: 440.0 / 4, TagOutputThroughput: 40.0 / 4,
	} {
		if got := avg(t, res, tag); !near(got, want) {
			t.Errorf("%s = %v, want %v", tag, got, want)
		}
	}
	// Without phase bounds: benchmark_duration (1.01 s).
	res = familyRun(t, info, ok(1e9, map[string]float64{TagISL: 100, TagOSL: 10}), ok(2e9, map[string]float64{TagISL: 300, TagOSL: 30}))
	if got := avg(t, res, TagInputThroughput); !near(got, 400/1.01) {
		t.Errorf("input_token_throughput = %v, want %v", got, 400/1.01)
	}
	// total_token_throughput needs both totals; input_token_throughput only ISL.
	res = familyRun(t, info, ok(1e9, map[string]float64{TagISL: 100}), ok(2e9, map[string]float64{TagISL: 300}))
	assertNoResult(t, res, TagTotalThroughput)
	if _, ok := res.Metric(TagInputThroughput); !ok {
		t.Error("input_token_throughput absent without an OSL")
	}
	// An endpoint that produces no tokens: no total_token_throughput (PTO).
	emb := sdk.RunInfo{Endpoint: sdk.EndpointMetadata{TokenizesInput: true}}
	res = familyRun(t, emb, ok(1e9, map[string]float64{TagISL: 100}), ok(2e9, map[string]float64{TagISL: 300}))
	assertNoResult(t, res, TagTotalThroughput)
	if _, ok := res.Metric(TagInputThroughput); !ok {
		t.Error("input_token_throughput absent on a no-token endpoint")
	}
}

// credit_to_start_latency and effective_latency cover every record with a
// credit issue time, failed ones included, clamp negatives to 0 and never
// reach the per-record export (AIPerf derived_latency.py).
func TestDerivedLatencies(t *testing.T) {
	cat := familyCatalog(t, streamingInfo())
	timed := func(rm *sdk.RecordMetrics, credit, start, end int64) *sdk.RecordMetrics {
		rm.Record.CreditIssuedNs, rm.Record.StartPerfNs, rm.Record.EndPerfNs = credit, start, end
		return rm
	}
	recs := []*sdk.RecordMetrics{
		timed(ok(1e9, nil), 1_000, 3_000_000, 53_000_000),                    // 2.999 ms queue, 52.999 ms perceived
		timed(ok(2e9, nil), 5_000, 1_005_000, 61_005_000),                    // 1 ms, 61 ms
		timed(errorRecord(3e9, 500, "E", "m"), 10_000, 2_010_000, 3_010_000), // failed: 2 ms, 3 ms
		timed(ok(4e9, nil), 9_000, 8_000, 20_000),                            // clock skew: start < credit -> 0
		timed(ok(5e9, nil), 0, 1_000, 2_000),                                 // no credit issue time: left out
	}
	acc, err := NewAccumulator(cat, streamingInfo())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		acc.Add(r)
	}
	res := acc.Summarize()
	c2s, _ := res.Metric(TagCreditToStartLatency)
	eff, _ := res.Metric(TagEffectiveLatency)
	if c2s.Count == nil || *c2s.Count != 4 || eff.Count == nil || *eff.Count != 4 {
		t.Fatalf("credit_to_start_latency %+v, effective_latency %+v: want 4 values each", c2s, eff)
	}
	if !near(*c2s.Min, 0) || !near(*c2s.Max, 2.999) || !near(*c2s.Sum, 2.999+1+2) || c2s.Unit != "ms" {
		t.Errorf("credit_to_start_latency = min %v max %v sum %v %s", *c2s.Min, *c2s.Max, *c2s.Sum, c2s.Unit)
	}
	if !near(*eff.Min, 0.011) || !near(*eff.Max, 61) || !near(*eff.Sum, 52.999+61+3+0.011) {
		t.Errorf("effective_latency = min %v max %v sum %v", *eff.Min, *eff.Max, *eff.Sum)
	}
	if c2s.Header != "Credit-to-Start Latency" || eff.Header != "Effective Latency (CO-aware)" || c2s.P50 == nil || c2s.Std == nil {
		t.Errorf("headers/stats: %+v %+v", c2s, eff)
	}
	for _, r := range recs {
		info := ToRecordInfo(r, cat, "rp")
		for _, tag := range []string{TagCreditToStartLatency, TagEffectiveLatency} {
			if _, ok := info.Metrics[tag]; ok {
				t.Errorf("%s in the per-record export", tag)
			}
		}
	}
	// A record processor may not declare them, and their values are dropped.
	if _, err := NewCatalog([]Declared{{Plugin: "p", Specs: []sdk.MetricSpec{{Tag: TagEffectiveLatency, Unit: "ns"}}}}, streamingInfo()); err == nil {
		t.Error("a processor declared effective_latency")
	}
	v := vals(map[string]float64{TagEffectiveLatency: 1})
	cat.Filter(v, true)
	if len(v) != 0 {
		t.Error("Filter kept a processor's effective_latency value")
	}
	if err := ValidateGoodputTags(map[string]float64{TagEffectiveLatency: 100}, cat); err == nil {
		t.Error("effective_latency accepted as an SLO")
	}
}

// adjStats are the keys an adj_* result carries, as in AIPerf's JSON.
func adjStats(m sdk.MetricResult) []string {
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	var keys map[string]any
	_ = json.Unmarshal(b, &keys)
	var out []string
	for k := range keys {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// adj_*: AIPerf 0.13's h_chat_errors_raw run, TTFT of its 5 successful
// requests (ns) and 3 failures, value for value: the success samples plus
// one +inf per failure, nearest-rank percentiles, non-finite stats left
// out, so {unit, p1, p5, p10, p25, p50, min, count: 8}.
func TestErrorAdjustedStatistics(t *testing.T) {
	ttfts := []float64{22_519_286, 20_543_054, 20_934_180, 22_240_808, 22_538_625}
	latencies := []float64{51_596_575, 54_257_784, 51_544_774, 52_362_666, 51_587_461}
	decodes := []float64{29_077_289, 33_714_730, 30_610_594, 30_121_858, 29_048_836}
	var recs []*sdk.RecordMetrics
	for i := range ttfts {
		recs = append(recs, ok(int64(i+1)*1e9, map[string]float64{TagTTFT: ttfts[i], TagRequestLatency: latencies[i], "decode_duration": decodes[i]}))
	}
	for i := range 3 {
		recs = append(recs, errorRecord(int64(10+i)*1e9, 500, "Internal Server Error", "simulated server error"))
	}
	res := familyRun(t, streamingInfo(), recs...)

	want := map[string]map[string]float64{ // AIPerf's profile_export_aiperf.json
		"adj_time_to_first_token": {"p1": 20.543053999999998, "p5": 20.543053999999998, "p10": 20.934179999999998,
			"p25": 22.240807999999998, "p50": 22.538625, "min": 20.543053999999998},
		"adj_request_latency": {"p1": 51.544774, "p5": 51.544774, "p10": 51.587461, "p25": 51.596574999999994,
			"p50": 54.257784, "min": 51.544774},
		"adj_decode_duration": {"p1": 29.048835999999998, "p5": 29.048835999999998, "p10": 29.077289,
			"p25": 30.121858, "p50": 33.714729999999996, "min": 29.048835999999998},
	}
	for tag, stats := range want {
		m, found := res.Metric(tag)
		if !found {
			t.Fatalf("%s missing", tag)
		}
		if keys := adjStats(m); !slices.Equal(keys, []string{"count", "min", "p1", "p10", "p25", "p5", "p50", "unit"}) {
			t.Errorf("%s keys = %v, want AIPerf's {unit, p1, p5, p10, p25, p50, min, count}", tag, keys)
		}
		got := map[string]*float64{"p1": m.P1, "p5": m.P5, "p10": m.P10, "p25": m.P25, "p50": m.P50, "min": m.Min}
		for k, w := range stats {
			if !near(*got[k], w) {
				t.Errorf("%s %s = %v, want %v", tag, k, *got[k], w)
			}
		}
		if *m.Count != 8 || m.Unit != "ms" {
			t.Errorf("%s count %d unit %s, want 8 ms", tag, *m.Count, m.Unit)
		}
	}
	m, _ := res.Metric("adj_time_to_first_token")
	if m.Header != "Time to First Token (error-adjusted)" || m.Flags.Has(sdk.FlagPercentileIncludesFailedRequests) {
		t.Errorf("adj header/flags = %q %b", m.Header, m.Flags)
	}
	// ITL had no values: no adj_inter_token_latency; unflagged metrics get none.
	assertNoResult(t, res, "adj_inter_token_latency", "adj_output_sequence_length")
	// The adj results come last, in their metrics' display order.
	var adj []string
	for _, m := range res.Metrics[len(res.Metrics)-3:] {
		adj = append(adj, m.Tag)
	}
	if !slices.Equal(adj, []string{"adj_time_to_first_token", "adj_request_latency", "adj_decode_duration"}) {
		t.Errorf("last results = %v", adj)
	}

	// One failure of 8: p75 (index 5.25 -> 5) and p90 (6.3 -> 6) stay
	// finite, p95 (6.65 -> 7) and p99 reach the failure and are left out.
	var eight []*sdk.RecordMetrics
	for i := range 7 {
		eight = append(eight, ok(int64(i+1)*1e9, map[string]float64{TagTTFT: float64(i+1) * 1e6}))
	}
	one := familyRun(t, streamingInfo(), append(eight, errorRecord(9e9, 500, "E", "m"))...)
	m, _ = one.Metric("adj_time_to_first_token")
	if keys := adjStats(m); !slices.Equal(keys, []string{"count", "min", "p1", "p10", "p25", "p5", "p50", "p75", "p90", "unit"}) {
		t.Errorf("1 failure of 8: keys %v", keys)
	}
	// Round half to even: index 3.5 -> 4 (the 5th value), 1.75 -> 2.
	if *m.P50 != 5 || *m.P25 != 3 || *m.P75 != 6 || *m.P90 != 7 {
		t.Errorf("1 failure of 8: p25 %v p50 %v p75 %v p90 %v", *m.P25, *m.P50, *m.P75, *m.P90)
	}
	// No failures: no adj_* at all.
	clean := familyRun(t, streamingInfo(), eight...)
	for _, m := range clean.Metrics {
		if len(m.Tag) > 4 && m.Tag[:4] == "adj_" {
			t.Errorf("%s without failures", m.Tag)
		}
	}
}

// With goodput SLOs each successful JSONL record carries its
// good_request_count contribution (AIPerf 0.13's e_chat_goodput_slices:
// {"value":1,"unit":"requests"}); failed records and runs without SLOs do not.
func TestPerRecordGoodRequestCount(t *testing.T) {
	info := streamingInfo()
	info.Goodput = map[string]float64{TagTTFT: 100} // ms
	cat := familyCatalog(t, info)
	good := ok(1e9, map[string]float64{TagTTFT: 50e6})
	bad := ok(1e9, map[string]float64{TagTTFT: 150e6})
	missing := ok(1e9, nil)
	for _, tc := range []struct {
		rm   *sdk.RecordMetrics
		want int
	}{{good, 1}, {bad, 0}, {missing, 0}} {
		m, found := ToRecordInfo(tc.rm, cat, "rp").Metrics[TagGoodRequestCount]
		if !found || m.Value != tc.want || m.Unit != "requests" {
			t.Errorf("good_request_count = %#v (found %v), want int %d requests", m, found, tc.want)
		}
	}
	b, _ := json.Marshal(ToRecordInfo(good, cat, "rp").Metrics[TagGoodRequestCount])
	if string(b) != `{"value":1,"unit":"requests"}` {
		t.Errorf("JSON = %s", b)
	}
	if _, found := ToRecordInfo(errorRecord(2e9, 500, "E", "m"), cat, "rp").Metrics[TagGoodRequestCount]; found {
		t.Error("failed record carries good_request_count")
	}
	if _, found := ToRecordInfo(good, familyCatalog(t, streamingInfo()), "rp").Metrics[TagGoodRequestCount]; found {
		t.Error("good_request_count without SLOs")
	}
}

// USAGE_DIFF_ONLY metrics apply by default, as in AIPerf (only
// --use-server-token-count disables them there).
func TestUsageDiffMetricsApply(t *testing.T) {
	cat := familyCatalog(t, streamingInfo())
	for _, tag := range []string{TagUsagePromptDiff, TagUsageCompletionDiff, TagUsageDiscrepancyCount, TagOSLMismatchCount,
		TagTotalUsagePrompt, TagCompletedRequestCount, TagRequestErrorRate, TagInputThroughput, TagTotalThroughput,
		TagCreditToStartLatency, TagEffectiveLatency, TagContextOverflowCount, TagTotalErrorISL} {
		if !cat.Applies(tag) {
			t.Errorf("%s does not apply to a streaming chat run", tag)
		}
	}
	if cat.Applies(TagGoodRequestFraction) {
		t.Error("good_request_fraction applies without SLOs")
	}
	// A catalog without the family's record metrics: their run-level
	// metrics do not apply (nothing to count or sum).
	bare := newCatalog(t, streamingInfo())
	for _, tag := range []string{TagTotalUsagePrompt, TagOSLMismatchCount, TagUsageDiscrepancyCount} {
		if bare.Applies(tag) {
			t.Errorf("%s applies without its record metrics", tag)
		}
	}
}

// With --use-server-token-count the counts come from usage, so AIPerf turns
// the usage-versus-client comparisons off.
func TestServerTokenCountDisallowsUsageDiffs(t *testing.T) {
	if DisallowedFlags(sdk.RunInfo{})&sdk.FlagUsageDiffOnly != 0 {
		t.Error("usage diffs disallowed on a client-counting run")
	}
	if DisallowedFlags(sdk.RunInfo{UseServerTokenCount: true})&sdk.FlagUsageDiffOnly == 0 {
		t.Error("usage diffs allowed with --use-server-token-count")
	}
}
