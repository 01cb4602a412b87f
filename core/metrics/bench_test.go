package metrics

import (
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// benchRecord is a typical streamed chat answer: 100 content chunks plus a
// trailing usage-only chunk.
func benchRecord(i int) *sdk.ParsedRecord {
	resp := make([]int64, 100)
	for j := range resp {
		resp[j] = int64(50_000_000 + j*5_000_000)
	}
	pr := makeRecord(0, resp, 1)
	pr.Responses = append(pr.Responses, sdk.ParsedResponse{PerfNs: 600_000_000, Usage: &sdk.Usage{}})
	pr.InputTokens = intp(550)
	pr.Record.TimestampNs = int64(i) * 1_000_000
	return pr
}

func BenchmarkProcessRecord(b *testing.B) {
	p := NewRecordProcessor(streamingInfo())
	pr := benchRecord(0)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Process(pr); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAccumulate100k folds 100k processed records (each with 99 ICL
// values) and summarises them; one op is the whole 100k-record phase.
func BenchmarkAccumulate100k(b *testing.B) {
	info := streamingInfo()
	info.Goodput = map[string]float64{TagRequestLatency: 1000}
	p := NewRecordProcessor(info)
	const n = 100_000
	rms := make([]*sdk.RecordMetrics, n)
	for i := range rms {
		rm, err := p.Process(benchRecord(i))
		if err != nil {
			b.Fatal(err)
		}
		rms[i] = rm
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		acc, err := NewAccumulator(info)
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
