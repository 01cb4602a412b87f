package constant

import (
	"math"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/arrival/internal/gap"
	"github.com/aiperf-go/aiperf/plugins/builtin/arrival/internal/gaptest"
)

func TestGapIsOneOverRate(t *testing.T) {
	cases := []struct {
		rate float64
		want time.Duration
	}{
		{1, time.Second},
		{10, 100 * time.Millisecond},
		{1000, time.Millisecond},
		{20000, 50 * time.Microsecond},
		{0.5, 2 * time.Second},
	}
	for _, c := range cases {
		p := New()
		for i := range 5 {
			if got := p.NextGap(c.rate); got != c.want {
				t.Fatalf("rate %v gap %d = %v, want %v", c.rate, i, got, c.want)
			}
		}
	}
}

func TestStatistics(t *testing.T) {
	for _, rate := range []float64{1, 3, 7, 5000} {
		p := New()
		if err := p.Init(sdk.ArrivalOptions{Seed: 42}); err != nil {
			t.Fatal(err)
		}
		mean, cv := gaptest.MeanCV(gaptest.Draw(p, rate, 200_000))
		if e := gaptest.RelErr(mean, 1/rate); e > 1e-9 {
			t.Errorf("rate %v: mean %v s, want %v s (rel err %g)", rate, mean, 1/rate, e)
		}
		if cv > 1e-6 {
			t.Errorf("rate %v: CV %g, want 0", rate, cv)
		}
	}
}

// Three gaps at 3 req/s must add up to exactly one second although no
// single gap is a whole number of nanoseconds.
func TestNoRoundingDrift(t *testing.T) {
	p := New()
	var sum time.Duration
	for range 3_000_000 {
		sum += p.NextGap(3)
	}
	if sum != 1_000_000*time.Second {
		t.Fatalf("3M gaps at 3 req/s sum to %v, want exactly 1M s", sum)
	}
}

func TestNonPositiveRate(t *testing.T) {
	for _, rate := range []float64{0, -5, math.NaN()} {
		if got := New().NextGap(rate); got != gap.MaxGap {
			t.Errorf("rate %v: gap %v, want MaxGap %v", rate, got, gap.MaxGap)
		}
	}
	if got := New().NextGap(math.Inf(1)); got != 0 {
		t.Errorf("rate +Inf: gap %v, want 0", got)
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
