package arrival

import (
	"math"
	"testing"
	"time"
)

func TestBurstAlwaysZero(t *testing.T) {
	p := initialized(t, NewBurst(), 7)
	for _, rate := range []float64{0, -1, math.NaN(), math.Inf(1), 1, 1e6} {
		for range 100 {
			if got := p.NextGap(rate); got != 0 {
				t.Fatalf("rate %v: gap %v, want 0", rate, got)
			}
		}
	}
}

// The registered names must not change: plugins.yaml and --arrival-pattern
// use them.
func TestNames(t *testing.T) {
	for got, want := range map[string]string{Poisson: "poisson", Constant: "constant", Gamma: "gamma", Burst: "concurrency_burst"} {
		if got != want {
			t.Errorf("name %q, want %q", got, want)
		}
	}
}

func BenchmarkBurstNextGap(b *testing.B) {
	p := NewBurst()
	b.ReportAllocs()
	var sink time.Duration
	for b.Loop() {
		sink += p.NextGap(5000)
	}
	_ = sink
}
