package metrics

import (
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// sweepBenchRecord is benchValues(i) with the wall and monotonic times the
// sweeps read: a request every 1 ms from a 2026 epoch (so float64 epoch-ns
// timestamps round as on a real run), TTFT 50 ms, 99 chunks 5 ms apart,
// 545 ms latency: about 545 requests in flight.
func sweepBenchRecord(i int) *sdk.RecordMetrics {
	rm := benchValues(i)
	rm.Record.TimestampNs = 1_795_668_163_000_000_000 + int64(i)*1_000_000
	rm.Record.StartPerfNs = fixturePerfBase + int64(i)*1_000_000
	rm.Record.EndPerfNs = rm.Record.StartPerfNs + 545_000_000
	return rm
}

func sweepBenchAcc(b *testing.B, n int) *Accumulator {
	b.Helper()
	info := streamingInfo()
	acc, err := NewAccumulator(newCatalog(b, info), info)
	if err != nil {
		b.Fatal(err)
	}
	acc.SetPhaseStart(1_795_668_163_000_000_000 - 1_000_000)
	acc.SetPhaseEnd(1_795_668_163_000_000_000 + int64(n)*1_000_000 + 546_000_000)
	for i := range n {
		acc.Add(sweepBenchRecord(i))
	}
	return acc
}

// BenchmarkSweep100k is the 14 sweep metrics alone over a 100k-record phase
// with 99 ICL values per record (9.9M chunks: ~20M decode-throughput
// events).
func BenchmarkSweep100k(b *testing.B) {
	const n = 100_000
	acc := sweepBenchAcc(b, n)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if res := acc.sweepResults(); len(res) != int(numSweep) {
			b.Fatalf("%d sweep results", len(res))
		}
	}
}

// BenchmarkSummarizeSweep100k is the whole Summarize over the same phase.
func BenchmarkSummarizeSweep100k(b *testing.B) {
	const n = 100_000
	acc := sweepBenchAcc(b, n)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if res := acc.Summarize(); res.CompletedRecords != n {
			b.Fatalf("CompletedRecords = %d", res.CompletedRecords)
		}
	}
}

// BenchmarkAddSweep is Add of one record with the sweeps' times.
func BenchmarkAddSweep(b *testing.B) {
	info := streamingInfo()
	acc, err := NewAccumulator(newCatalog(b, info), info)
	if err != nil {
		b.Fatal(err)
	}
	rm := sweepBenchRecord(0)
	b.ReportAllocs()
	for b.Loop() {
		acc.Add(rm)
	}
}

// BenchmarkSweep100kOSL16 is BenchmarkSweep100k with 15 chunks per record
// (AIPerf's reference runs' --osl 16).
func BenchmarkSweep100kOSL16(b *testing.B) {
	const n = 100_000
	info := streamingInfo()
	acc, err := NewAccumulator(newCatalog(b, info), info)
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		rm := sweepBenchRecord(i)
		rm.Values[TagICL] = list(rm.Values[TagICL].List[:15]...)
		rm.Values[TagOSL] = sdk.MetricValue{Scalar: 16}
		acc.Add(rm)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if res := acc.sweepResults(); len(res) != int(numSweep) {
			b.Fatalf("%d sweep results", len(res))
		}
	}
}
