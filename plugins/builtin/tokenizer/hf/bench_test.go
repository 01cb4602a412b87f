//go:build hf

package hf

import (
	"strings"
	"testing"
)

// benchText is the English text of tiktoken's BenchmarkCount, so the MB/s of
// the two tokenizers compare directly.
var benchText = strings.Repeat("The quick brown fox jumps over the lazy dog, and the sonnet sings of summer's lease. ", 24)

// BenchmarkCountQwen3 measures counting throughput, the cost paid once per
// record for OSL (and per prompt for ISL).
func BenchmarkCountQwen3(b *testing.B) {
	tok := qwen3(b)
	perOp := tok.Count(benchText)
	b.SetBytes(int64(len(benchText)))
	b.ReportAllocs()
	ops := 0
	for b.Loop() {
		if tok.Count(benchText) != perOp {
			b.Fatal("count changed")
		}
		ops++
	}
	b.ReportMetric(float64(ops*perOp)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkCountQwen3Parallel shares one tokenizer across GOMAXPROCS
// goroutines, as the record processors do.
func BenchmarkCountQwen3Parallel(b *testing.B) {
	tok := qwen3(b)
	perOp := tok.Count(benchText)
	b.SetBytes(int64(len(benchText)))
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if tok.Count(benchText) != perOp {
				b.Error("count changed")
				return
			}
		}
	})
	b.ReportMetric(float64(b.N*perOp)/b.Elapsed().Seconds(), "tokens/s")
}

func BenchmarkEncodeQwen3(b *testing.B) {
	tok := qwen3(b)
	b.SetBytes(int64(len(benchText)))
	b.ReportAllocs()
	for b.Loop() {
		if len(tok.Encode(benchText)) == 0 {
			b.Fatal("no tokens")
		}
	}
}
