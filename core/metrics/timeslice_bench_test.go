package metrics

import (
	"testing"
	"time"
)

// BenchmarkSummarizeSliced100k is Summarize over BenchmarkSweep100k's
// phase (100 s, 99 chunks per record) cut into 1 s slices: about 100
// slices of 1000 records, each with every metric and sweep.
func BenchmarkSummarizeSliced100k(b *testing.B) {
	const n = 100_000
	acc := slicedAccumulator(b)
	for i := range n {
		acc.Add(sweepBenchRecord(i))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if res := acc.Summarize(); len(res.Timeslices) < 100 {
			b.Fatalf("%d timeslices", len(res.Timeslices))
		}
	}
}

// BenchmarkAddSliced is Add of one record with slicing on.
func BenchmarkAddSliced(b *testing.B) {
	acc := slicedAccumulator(b)
	rm := sweepBenchRecord(0)
	b.ReportAllocs()
	for b.Loop() {
		acc.Add(rm)
	}
}

// slicedAccumulator is a streaming run's accumulator cutting 1 s slices.
func slicedAccumulator(b *testing.B) *Accumulator {
	b.Helper()
	info := streamingInfo()
	acc, err := NewAccumulator(newCatalog(b, info), info)
	if err != nil {
		b.Fatal(err)
	}
	if err := acc.SetSliceDuration(time.Second); err != nil {
		b.Fatal(err)
	}
	return acc
}
