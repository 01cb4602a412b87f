package metrics

import (
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// benchValues are the built-in processor's values for a typical streamed
// chat answer: 100 content chunks 5 ms apart from 50 ms on (plus a trailing
// usage-only chunk), one token each, 550 input tokens.
func benchValues(i int) *sdk.RecordMetrics {
	gaps := make([]float64, 99)
	for j := range gaps {
		gaps[j] = 5_000_000
	}
	rm := processed(int64(i)*1_000_000, vals(map[string]float64{
		TagTTFT: 50_000_000, TagTTST: 5_000_000, TagTTFO: 50_000_000, TagRequestLatency: 545_000_000,
		TagITL: 5_000_000, TagTPSPerUser: 200, TagOSL: 100, TagOutputTokenCount: 100, TagISL: 550,
	}))
	rm.Values[TagICL] = sdk.MetricValue{List: gaps, IsList: true}
	rm.InputTokens = intp(550)
	return rm
}

// BenchmarkAccumulate100k folds 100k processed records (each with 99 ICL
// values) and summarises them; one op is the whole 100k-record phase.
func BenchmarkAccumulate100k(b *testing.B) {
	info := streamingInfo()
	info.Goodput = map[string]float64{TagRequestLatency: 1000}
	cat := newCatalog(b, info)
	const n = 100_000
	rms := make([]*sdk.RecordMetrics, n)
	for i := range rms {
		rms[i] = benchValues(i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		acc, err := NewAccumulator(cat, info)
		if err != nil {
			b.Fatal(err)
		}
		for _, rm := range rms {
			acc.Add(rm)
		}
		if res := acc.Summarize(); res.CompletedRecords != n {
			b.Fatalf("CompletedRecords = %d", res.CompletedRecords)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/record")
}

// BenchmarkAdd is the accumulator's per-record hot path alone.
func BenchmarkAdd(b *testing.B) {
	info := streamingInfo()
	info.Goodput = map[string]float64{TagRequestLatency: 1000}
	acc, err := NewAccumulator(newCatalog(b, info), info)
	if err != nil {
		b.Fatal(err)
	}
	rm := benchValues(0)
	b.ReportAllocs()
	for b.Loop() {
		acc.Add(rm)
	}
}

// BenchmarkFilter is the pipeline's per-record check of one processor's
// values against the catalog (nothing to drop, as for the built-in).
func BenchmarkFilter(b *testing.B) {
	cat := newCatalog(b, streamingInfo())
	rm := benchValues(0)
	b.ReportAllocs()
	for b.Loop() {
		if cat.Filter(rm.Values, true) {
			b.Fatal("undeclared values")
		}
	}
}

func BenchmarkToRecordInfo(b *testing.B) {
	cat := newCatalog(b, streamingInfo())
	rm := benchValues(0)
	b.ReportAllocs()
	for b.Loop() {
		if ToRecordInfo(rm, cat, "rp") == nil {
			b.Fatal("nil")
		}
	}
}
