package metrics

import (
	"slices"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/core/internal/testfixtures"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// run folds processed records into an accumulator over the run's catalog
// of AIPerf's record metrics.
func run(t *testing.T, info sdk.RunInfo, records ...*sdk.RecordMetrics) (*Accumulator, *sdk.Results) {
	t.Helper()
	acc, err := NewAccumulator(newCatalog(t, info), info)
	if err != nil {
		t.Fatalf("NewAccumulator: %v", err)
	}
	for _, r := range records {
		acc.Add(r)
	}
	return acc, acc.Summarize()
}

func avg(t *testing.T, res *sdk.Results, tag string) float64 {
	t.Helper()
	m, ok := res.Metric(tag)
	if !ok {
		t.Fatalf("%s missing from results", tag)
	}
	if m.Avg == nil {
		t.Fatalf("%s has no avg", tag)
	}
	return *m.Avg
}

func assertNoResult(t *testing.T, res *sdk.Results, tags ...string) {
	t.Helper()
	for _, tag := range tags {
		if m, ok := res.Metric(tag); ok {
			t.Errorf("%s present (avg %v), want absent", tag, *m.Avg)
		}
	}
}

// test_benchmark_duration / test_output_token_throughput / test_request_throughput:
// duration = max(ts + latency) - min(ts); 1000 tokens over 2 s = 500 tokens/s.
func TestDurationAndThroughputs(t *testing.T) {
	_, res := run(t, streamingInfo(),
		timedRecord(1_000_000_000, 100_000_000, 400),   // ends at 1.1 s
		timedRecord(1_500_000_000, 1_500_000_000, 600), // ends at 3.0 s
	)
	want := map[string]float64{
		TagMinRequestTS:      1_000_000_000,
		TagMaxResponseTS:     3_000_000_000,
		TagBenchmarkDuration: 2, // sec
		TagTotalOSL:          1000,
		TagOutputThroughput:  500,
		TagRequestCount:      2,
		TagRequestThroughput: 1,
	}
	for tag, w := range want {
		if got := avg(t, res, tag); !near(got, w) {
			t.Errorf("%s = %v, want %v", tag, got, w)
		}
	}
	if res.BenchmarkDurationS != 2 {
		t.Errorf("BenchmarkDurationS = %v, want 2", res.BenchmarkDurationS)
	}
	if res.CompletedRecords != 2 {
		t.Errorf("CompletedRecords = %d, want 2", res.CompletedRecords)
	}
	// Zero-error trap and no goodput: these are absent, never 0.
	assertNoResult(t, res, TagErrorRequestCount, TagGoodRequestCount, TagGoodput, TagErrorISL)

	lat, _ := res.Metric(TagRequestLatency)
	if lat.Unit != "ms" || *lat.Min != 100 || *lat.Max != 1500 || *lat.Avg != 800 || *lat.Count != 2 || *lat.Sum != 1600 {
		t.Errorf("request_latency = unit %s min %v max %v avg %v count %v sum %v; want ms 100 1500 800 2 1600",
			lat.Unit, *lat.Min, *lat.Max, *lat.Avg, *lat.Count, *lat.Sum)
	}
	if d, _ := res.Metric(TagBenchmarkDuration); d.Unit != "sec" || !d.IsScalar() || d.Count != nil {
		t.Errorf("benchmark_duration = %+v, want a sec scalar with avg only", d)
	}
}

// test_goodput_metric.py style: 30 good requests over a 2 s run -> 15.0/s.
func TestGoodput(t *testing.T) {
	info := streamingInfo()
	info.Goodput = map[string]float64{TagRequestLatency: 250}
	var recs []*sdk.RecordMetrics
	for i := range 30 {
		// starts spread over 0..1.9 s, each 100 ms long: the run spans 2.0 s.
		recs = append(recs, timedRecord(int64(i)*1_900_000_000/29, 100_000_000, 5))
	}
	recs = append(recs, timedRecord(1_000_000_000, 300_000_000, 5)) // too slow
	acc, res := run(t, info, recs...)
	if got := avg(t, res, TagGoodRequestCount); got != 30 {
		t.Errorf("good_request_count = %v, want 30", got)
	}
	if got := avg(t, res, TagGoodput); !near(got, 15) {
		t.Errorf("goodput = %v, want 15", got)
	}
	if got := avg(t, res, TagRequestThroughput); !near(got, 15.5) {
		t.Errorf("request_throughput = %v, want 15.5", got)
	}
	if s := acc.Snapshot(); s != (Counts{Records: 31, Valid: 31, Errors: 0, Good: 30}) {
		t.Errorf("Snapshot = %+v", s)
	}
}

func TestGoodRequestCountIsZeroNotAbsent(t *testing.T) {
	info := streamingInfo()
	info.Goodput = map[string]float64{TagRequestLatency: 1}
	_, res := run(t, info, timedRecord(0, 500_000_000, 2))
	if got := avg(t, res, TagGoodRequestCount); got != 0 {
		t.Fatalf("good_request_count = %v, want 0", got)
	}
	if got := avg(t, res, TagGoodput); got != 0 {
		t.Fatalf("goodput = %v, want 0", got)
	}
}

func TestErrorsAndSummary(t *testing.T) {
	_, res := run(t, streamingInfo(),
		timedRecord(0, 1_000_000_000, 10),
		errorRecord(10, 500, "InternalServerError", "boom"),
		errorRecord(20, 499, "RequestCancellationError", "Request was cancelled after 0.000 seconds"),
		errorRecord(30, 500, "InternalServerError", "boom"),
		errorRecord(40, 0, "ConnectionError", "refused"),
		errorRecord(50, 499, "RequestCancellationError", "Request was cancelled after 0.000 seconds"),
		errorRecord(60, 499, "RequestCancellationError", "Request was cancelled after 0.000 seconds"),
	)
	if got := avg(t, res, TagErrorRequestCount); got != 6 {
		t.Errorf("error_request_count = %v, want 6", got)
	}
	if got := avg(t, res, TagRequestCount); got != 1 {
		t.Errorf("request_count = %v, want 1 (valid only)", got)
	}
	if m, _ := res.Metric(TagErrorISL); m.Count == nil || *m.Count != 6 || *m.Avg != 100 {
		t.Errorf("error_isl = %+v, want 6 values averaging 100", m)
	}
	// Errors never feed success statistics, nor the benchmark window.
	if got := avg(t, res, TagBenchmarkDuration); got != 1 {
		t.Errorf("benchmark_duration = %v s, want 1 (valid records only)", got)
	}
	want := []sdk.ErrorCount{
		{ErrorDetails: sdk.ErrorDetails{Code: 499, Type: "RequestCancellationError", Message: "Request was cancelled after 0.000 seconds"}, Count: 3},
		{ErrorDetails: sdk.ErrorDetails{Code: 500, Type: "InternalServerError", Message: "boom"}, Count: 2},
		{ErrorDetails: sdk.ErrorDetails{Code: 0, Type: "ConnectionError", Message: "refused"}, Count: 1},
	}
	if !slices.Equal(res.ErrorSummary, want) {
		t.Errorf("ErrorSummary = %+v, want %+v", res.ErrorSummary, want)
	}
	if res.CompletedRecords != 7 {
		t.Errorf("CompletedRecords = %d, want 7", res.CompletedRecords)
	}
}

func TestAllErrorsHaveNoRatesOrCounts(t *testing.T) {
	_, res := run(t, streamingInfo(), errorRecord(10, 500, "InternalServerError", "boom"))
	assertNoResult(t, res, TagRequestCount, TagBenchmarkDuration, TagRequestThroughput,
		TagOutputThroughput, TagRequestLatency, TagMinRequestTS)
	if res.BenchmarkDurationS != 0 {
		t.Errorf("BenchmarkDurationS = %v, want 0", res.BenchmarkDurationS)
	}
}

// min >= max is invalid: the duration and every rate are absent.
func TestZeroLengthRunHasNoDuration(t *testing.T) {
	_, res := run(t, streamingInfo(), timedRecord(5_000, 0, 3))
	assertNoResult(t, res, TagBenchmarkDuration, TagRequestThroughput, TagOutputThroughput)
	if got := avg(t, res, TagRequestCount); got != 1 {
		t.Errorf("request_count = %v, want 1", got)
	}
}

func TestICLPooledAcrossRecords(t *testing.T) {
	a := processed(0, map[string]sdk.MetricValue{TagICL: list(1_000_000, 2_000_000)}) // gaps 1 ms, 2 ms
	b := processed(0, map[string]sdk.MetricValue{TagICL: list(4_000_000)})            // gap 4 ms
	_, res := run(t, streamingInfo(), a, b)
	m, ok := res.Metric(TagICL)
	if !ok {
		t.Fatal("inter_chunk_latency missing")
	}
	if *m.Count != 3 || *m.Sum != 7 || *m.Min != 1 || *m.Max != 4 || *m.P50 != 2 {
		t.Fatalf("ICL count %v sum %v min %v max %v p50 %v; want 3 7 1 4 2 (ms)", *m.Count, *m.Sum, *m.Min, *m.Max, *m.P50)
	}
}

// Processors compute what they can; the accumulator's gate keeps metrics
// the run does not support out of the results.
func TestNoTokenEndpointPublishesNoTokenMetrics(t *testing.T) {
	info := sdk.RunInfo{Endpoint: sdk.EndpointMetadata{ProducesTokens: false, TokenizesInput: true}}
	pr := timedRecord(0, 1_000_000_000, 8)
	pr.Record.Streaming = false
	pr.Values[TagISL] = sdk.MetricValue{Scalar: 32}
	pr.Values[TagITL] = sdk.MetricValue{Scalar: 5}
	_, res := run(t, info, pr)
	assertNoResult(t, res, TagOSL, TagTotalOSL, TagOutputThroughput, TagOutputTokenCount, TagTTFT, TagTTFO, TagITL)
	if got := avg(t, res, TagRequestLatency); got != 1000 {
		t.Errorf("request_latency = %v ms, want 1000", got)
	}
	if got := avg(t, res, TagTotalISL); got != 32 {
		t.Errorf("total_isl = %v, want 32", got)
	}
}

func TestResultsOrderAndFlags(t *testing.T) {
	info := streamingInfo()
	info.Goodput = map[string]float64{TagRequestLatency: 1000}
	// A streamed answer: chunks at 10, 20 and 30 ms, 6 tokens, ISL 9.
	r := processed(1_000, vals(map[string]float64{
		TagTTFT: 10e6, TagTTST: 10e6, TagTTFO: 10e6, TagRequestLatency: 30e6, TagITL: 4e6, TagTPSPerUser: 250,
		TagOSL: 6, TagOutputTokenCount: 6, TagISL: 9,
	}))
	r.Values[TagICL] = list(10e6, 10e6)
	_, res := run(t, info, r, errorRecord(2_000, 500, "E", "m"))

	var tags []string
	for i, m := range res.Metrics {
		tags = append(tags, m.Tag)
		// The error-adjusted results come last, in their metrics' order.
		if strings.HasPrefix(m.Tag, "adj_") {
			continue
		}
		if i > 0 {
			prev := res.Metrics[i-1]
			if prev.DisplayOrder > m.DisplayOrder || (prev.DisplayOrder == m.DisplayOrder && prev.Tag > m.Tag) {
				t.Errorf("%s (order %d) sorted after %s (order %d)", m.Tag, m.DisplayOrder, prev.Tag, prev.DisplayOrder)
			}
		}
	}
	wantPrefix := []string{TagTTFT, TagTTST, TagTTFO, TagRequestLatency, TagITL, TagTPSPerUser,
		TagOSL, TagISL, TagOutputThroughput, TagInputThroughput, TagRequestThroughput, TagGoodput,
		TagCompletedRequestCount, TagRequestErrorRate, TagRequestCount}
	if len(tags) < len(wantPrefix) || !slices.Equal(tags[:len(wantPrefix)], wantPrefix) {
		t.Fatalf("metric order = %v, want prefix %v", tags, wantPrefix)
	}
	wantSuffix := []string{"adj_time_to_first_token", "adj_request_latency", "adj_inter_token_latency"}
	if len(tags) < len(wantSuffix) || !slices.Equal(tags[len(tags)-len(wantSuffix):], wantSuffix) {
		t.Fatalf("metric order = %v, want suffix %v", tags, wantSuffix)
	}
	hidden := map[string]sdk.MetricFlags{
		TagBenchmarkDuration: sdk.FlagNoConsole, TagMinRequestTS: sdk.FlagInternal,
		TagMaxResponseTS: sdk.FlagInternal, TagTotalOSL: sdk.FlagNoConsole, TagTotalISL: sdk.FlagNoConsole,
		TagICL: sdk.FlagNoConsole, TagErrorRequestCount: sdk.FlagErrorOnly, TagGoodRequestCount: sdk.FlagGoodput,
	}
	for tag, flag := range hidden {
		m, ok := res.Metric(tag)
		if !ok {
			t.Errorf("hidden metric %s missing", tag)
			continue
		}
		if !m.Flags.Has(flag) {
			t.Errorf("%s flags %b lack %b", tag, m.Flags, flag)
		}
	}
	if osl, _ := res.Metric(TagOSL); !osl.Integer || osl.Header != "Output Sequence Length" || osl.Unit != "tokens" {
		t.Errorf("OSL result = %+v", osl)
	}
}

func TestAccumulatorIgnoresNilAndForeignValues(t *testing.T) {
	acc, err := NewAccumulator(newCatalog(t, streamingInfo()), streamingInfo())
	if err != nil {
		t.Fatal(err)
	}
	acc.Add(nil)
	acc.Add(&sdk.RecordMetrics{})
	// A third-party processor's own metric is kept under its tag; an error-only
	// value on a valid record is not mixed into statistics.
	acc.Add(&sdk.RecordMetrics{
		Record: &sdk.RequestRecord{TimestampNs: 1},
		Values: map[string]sdk.MetricValue{"custom_score": {Scalar: 3}, TagErrorISL: {Scalar: 7}},
	})
	res := acc.Summarize()
	if res.CompletedRecords != 1 {
		t.Fatalf("CompletedRecords = %d, want 1", res.CompletedRecords)
	}
	if got := avg(t, res, "custom_score"); got != 3 {
		t.Errorf("custom_score avg = %v, want 3", got)
	}
	assertNoResult(t, res, TagErrorISL)
}

func TestNewAccumulatorRejectsInapplicableSLO(t *testing.T) {
	info := streamingInfo()
	info.Streaming = false
	info.Goodput = map[string]float64{TagTTFT: 100}
	if _, err := NewAccumulator(newCatalog(t, info), info); err == nil || !strings.Contains(err.Error(), "--streaming") {
		t.Fatalf("NewAccumulator = %v, want a TTFT SLO on a non-streaming run refused", err)
	}
}

func TestNewAccumulatorNeedsAMatchingCatalog(t *testing.T) {
	withSLOs := streamingInfo()
	withSLOs.Goodput = map[string]float64{TagRequestLatency: 100}
	if _, err := NewAccumulator(nil, withSLOs); err == nil {
		t.Error("NewAccumulator accepted a nil catalog")
	}
	// A catalog built before the SLOs were known would hide goodput.
	if _, err := NewAccumulator(newCatalog(t, streamingInfo()), withSLOs); err == nil || !strings.Contains(err.Error(), "goodput") {
		t.Errorf("NewAccumulator = %v, want the goodput mismatch refused", err)
	}
	if _, err := NewAccumulator(newCatalog(t, withSLOs), streamingInfo()); err == nil {
		t.Error("NewAccumulator accepted a goodput catalog for a run without SLOs")
	}
}

// A metric an external processor declares is aggregated, converted, placed
// and flagged exactly like a built-in one.
func TestDeclaredPluginMetricIsFirstClass(t *testing.T) {
	decl := append(builtinDecl(), Declared{Plugin: "kv_probe", Specs: []sdk.MetricSpec{
		{Tag: "kv_cache_wait", Header: "KV Cache Wait", ShortHeader: "KV Wait", Unit: "ns", DisplayUnit: "ms", DisplayOrder: 350},
		{Tag: "spec_accept_rate", Header: "Speculative Accept Rate", Unit: "%", Flags: sdk.FlagLargerIsBetter | sdk.FlagStreamingOnly},
	}})
	for _, streaming := range []bool{true, false} {
		info := streamingInfo()
		info.Streaming = streaming
		cat, err := NewCatalog(decl, info)
		if err != nil {
			t.Fatal(err)
		}
		acc, err := NewAccumulator(cat, info)
		if err != nil {
			t.Fatal(err)
		}
		for i, ns := range []float64{2e6, 4e6} {
			rm := timedRecord(int64(i), 10e6, 3)
			rm.Values["kv_cache_wait"] = sdk.MetricValue{Scalar: ns}
			rm.Values["spec_accept_rate"] = sdk.MetricValue{Scalar: 80}
			acc.Add(rm)
		}
		res := acc.Summarize()
		m, ok := res.Metric("kv_cache_wait")
		if !ok || m.Header != "KV Cache Wait" || m.Unit != "ms" || m.DisplayOrder != 350 || *m.Avg != 3 || *m.Max != 4 || *m.Count != 2 {
			t.Fatalf("kv_cache_wait = %+v, want 2 values averaging 3 ms at order 350", m)
		}
		var order []string
		for _, r := range res.Metrics {
			order = append(order, r.Tag)
		}
		if i, j := slices.Index(order, TagRequestLatency), slices.Index(order, "kv_cache_wait"); j != i+1 {
			t.Errorf("order %v: kv_cache_wait (350) must follow request_latency (300)", order)
		}
		rate, ok := res.Metric("spec_accept_rate")
		if ok != streaming {
			t.Errorf("streaming=%v: spec_accept_rate present = %v", streaming, ok)
		}
		if ok && (rate.Unit != "%" || rate.DisplayOrder != NoDisplayOrder || !rate.Flags.Has(sdk.FlagLargerIsBetter) || *rate.Avg != 80) {
			t.Errorf("spec_accept_rate = %+v", rate)
		}
	}
}

// Run-level metrics read request_latency, output_sequence_length and
// input_sequence_length by tag: without them they are absent, the rest stays.
func TestRunLevelMetricsWithoutTheirRecordMetrics(t *testing.T) {
	info := streamingInfo()
	cat, err := NewCatalog([]Declared{{Plugin: "only_ttft", Specs: testfixtures.Specs(TagTTFT)}}, info)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := NewAccumulator(cat, info)
	if err != nil {
		t.Fatal(err)
	}
	acc.Add(processed(0, vals(map[string]float64{TagTTFT: 1e9})))
	// An undeclared request_latency is an extra: it feeds no run-level metric.
	acc.Add(processed(1e9, vals(map[string]float64{TagTTFT: 1e9, TagRequestLatency: 1e9})))
	res := acc.Summarize()
	assertNoResult(t, res, TagOSL, TagMaxResponseTS, TagBenchmarkDuration, TagTotalOSL, TagTotalISL,
		TagOutputThroughput, TagRequestThroughput)
	if got := avg(t, res, TagRequestCount); got != 2 {
		t.Errorf("request_count = %v, want 2", got)
	}
	if got := avg(t, res, TagTTFT); got != 1000 {
		t.Errorf("time_to_first_token = %v, want 1000 ms", got)
	}
	if got := avg(t, res, TagMinRequestTS); got != 0 {
		t.Errorf("min_request_timestamp = %v, want 0", got)
	}
	if m, ok := res.Metric(TagRequestLatency); !ok || m.Unit != "" || m.Header != TagRequestLatency || *m.Avg != 1e9 {
		t.Errorf("undeclared request_latency = %+v, want an extra in raw units", m)
	}
	if res.BenchmarkDurationS != 0 {
		t.Errorf("BenchmarkDurationS = %v, want 0", res.BenchmarkDurationS)
	}
}
