package mooncaketrace

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
)

// writeTrace writes n mooncake lines shaped like real traces: a shared
// system-prompt block per 100 sessions, a block shared by 1000 groups, one
// or two unique blocks and a partial final block.
func writeTrace(b testing.TB, n, blockSize int) string {
	path := filepath.Join(b.TempDir(), "trace.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := range n {
		extra := i % 2
		ids := fmt.Sprintf("%d, %d", i%100, 1000+i%1000)
		for j := range extra {
			ids += fmt.Sprintf(", %d", 1_000_000+2*i+j)
		}
		ids += fmt.Sprintf(", %d", 3_000_000+i)
		isl := (2+extra)*blockSize + 1 + (i*97)%blockSize
		fmt.Fprintf(w, `{"timestamp": %d, "input_length": %d, "output_length": %d, "hash_ids": [%s]}`+"\n", i*10, isl, 1+i%300, ids)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return path
}

func benchmarkLoad(b *testing.B, lines, blockSize int) {
	path := writeTrace(b, lines, blockSize)
	o := opts()
	l := withBlockSize(blockSize)
	if _, err := alignmentFor(o.Tokenizer); err != nil { // warm the corpus cache
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		convs, err := l.Load(context.Background(), path, o)
		if err != nil {
			b.Fatal(err)
		}
		if len(convs) != lines {
			b.Fatalf("%d conversations, want %d", len(convs), lines)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*lines), "ns/line")
}

// BenchmarkLoad100k loads 100k lines at block size 64 (~200-token prompts):
// per-line parsing, block lookup and prompt assembly.
func BenchmarkLoad100k(b *testing.B) { benchmarkLoad(b, 100_000, 64) }

// BenchmarkLoad100kBlock512 is the same at mooncake's default block size
// (~1,300-token prompts, ~0.6 GB of prompt text).
func BenchmarkLoad100kBlock512(b *testing.B) { benchmarkLoad(b, 100_000, 512) }

func TestRandomTracesAreExact(t *testing.T) {
	tok := tiktoken.New()
	r := rand.New(rand.NewPCG(3, 4))
	for _, bs := range []int{1, 2, 3, 16, 100} {
		pb := testPrompts(t, bs)
		for i := range 80 {
			k := 1 + r.IntN(6)
			ids := make([]int, k)
			for j := range ids {
				ids[j] = r.IntN(12) // heavy reuse, in every position
			}
			n := (k-1)*bs + 1 + r.IntN(bs)
			p, err := pb.hashed(n, ids)
			if err != nil {
				t.Fatal(err)
			}
			if got := tok.Count(p); got != n {
				t.Fatalf("block size %d, line %d, hash_ids %v: %d tokens, want %d", bs, i, ids, got, n)
			}
		}
	}
}
