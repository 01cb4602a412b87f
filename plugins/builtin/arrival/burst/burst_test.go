package burst

import (
	"math"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func TestAlwaysZero(t *testing.T) {
	p := New()
	if err := p.Init(sdk.ArrivalOptions{Seed: 7, Smoothness: 3}); err != nil {
		t.Fatal(err)
	}
	for _, rate := range []float64{0, -1, math.NaN(), math.Inf(1), 1, 1e6} {
		for range 100 {
			if got := p.NextGap(rate); got != 0 {
				t.Fatalf("rate %v: gap %v, want 0", rate, got)
			}
		}
	}
	if Name != "concurrency_burst" {
		t.Fatalf("Name = %q", Name)
	}
}

func BenchmarkNextGap(b *testing.B) {
	p := New()
	b.ReportAllocs()
	var sink time.Duration
	for b.Loop() {
		sink += p.NextGap(5000)
	}
	_ = sink
}
