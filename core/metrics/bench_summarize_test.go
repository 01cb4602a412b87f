package metrics

import (
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// BenchmarkSummarize100k is Summarize alone over a 100k-record phase (each
// record with 99 ICL values): the statistics pass after the run.
func BenchmarkSummarize100k(b *testing.B) {
	info := streamingInfo()
	info.Goodput = map[string]float64{TagRequestLatency: 1000}
	acc, err := NewAccumulator(newCatalog(b, info), info)
	if err != nil {
		b.Fatal(err)
	}
	const n = 100_000
	for i := range n {
		acc.Add(benchValues(i))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if res := acc.Summarize(); res.CompletedRecords != n {
			b.Fatalf("CompletedRecords = %d", res.CompletedRecords)
		}
	}
}

// familyValues adds what the families' record metrics contribute on a real
// run (usage, differences, decode, per-request rates) and the record
// timestamps the derived latencies read.
func familyValues(i int) *sdk.RecordMetrics {
	rm := benchValues(i)
	for tag, v := range map[string]float64{
		TagUsagePromptTokens: 550, TagUsageCompletionTokens: 100, TagUsageTotalTokens: 650, TagUsageReasoningTokens: 0,
		TagUsagePromptDiff: 0, TagUsageCompletionDiff: 0, TagOSLMismatchDiff: 0,
		"decode_duration": 495_000_000, "e2e_output_token_throughput": 183.5, "prefill_throughput_per_user": 11000,
	} {
		rm.Values[tag] = sdk.MetricValue{Scalar: v}
	}
	rm.Record.RequestedOutputTokens = intp(100)
	rm.Record.CreditIssuedNs, rm.Record.StartPerfNs, rm.Record.EndPerfNs = 1_000, 50_000, 545_050_000
	return rm
}

// BenchmarkAddFamilies is BenchmarkAdd with the families' values.
func BenchmarkAddFamilies(b *testing.B) {
	info := streamingInfo()
	info.Goodput = map[string]float64{TagRequestLatency: 1000}
	acc, err := NewAccumulator(familyCatalog(b, info), info)
	if err != nil {
		b.Fatal(err)
	}
	rm := familyValues(0)
	b.ReportAllocs()
	for b.Loop() {
		acc.Add(rm)
	}
}

// BenchmarkSummarizeFamilies100k is BenchmarkSummarize100k with the
// families' values and 10% failed records (so the adj_* results are built).
func BenchmarkSummarizeFamilies100k(b *testing.B) {
	info := streamingInfo()
	info.Goodput = map[string]float64{TagRequestLatency: 1000}
	acc, err := NewAccumulator(familyCatalog(b, info), info)
	if err != nil {
		b.Fatal(err)
	}
	const n = 100_000
	for i := range n {
		if i%10 == 9 {
			acc.Add(errorRecord(int64(i)*1_000_000, 500, "E", "boom"))
			continue
		}
		acc.Add(familyValues(i))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if res := acc.Summarize(); res.CompletedRecords != n {
			b.Fatalf("CompletedRecords = %d", res.CompletedRecords)
		}
	}
}

// BenchmarkToRecordInfoFamilies is BenchmarkToRecordInfo with the
// families' values and goodput (the per-record good_request_count).
func BenchmarkToRecordInfoFamilies(b *testing.B) {
	info := streamingInfo()
	info.Goodput = map[string]float64{TagRequestLatency: 1000}
	cat := familyCatalog(b, info)
	rm := familyValues(0)
	b.ReportAllocs()
	for b.Loop() {
		if ToRecordInfo(rm, cat, "rp") == nil {
			b.Fatal("nil")
		}
	}
}
