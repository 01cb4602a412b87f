package arrival

import (
	"math"
	"testing"
	"time"
)

func TestConstantGapIsOneOverRate(t *testing.T) {
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
		p := NewConstant()
		for i := range 5 {
			if got := p.NextGap(c.rate); got != c.want {
				t.Fatalf("rate %v gap %d = %v, want %v", c.rate, i, got, c.want)
			}
		}
	}
}

func TestConstantStatistics(t *testing.T) {
	for _, rate := range []float64{1, 3, 7, 5000} {
		p := initialized(t, NewConstant(), 42)
		mean, cv := meanCV(draw(p, rate, 200_000))
		if e := relErr(mean, 1/rate); e > 1e-9 {
			t.Errorf("rate %v: mean %v s, want %v s (rel err %g)", rate, mean, 1/rate, e)
		}
		if cv > 1e-6 {
			t.Errorf("rate %v: CV %g, want 0", rate, cv)
		}
	}
}

// Three gaps at 3 req/s must add up to exactly one second although no
// single gap is a whole number of nanoseconds.
func TestConstantNoRoundingDrift(t *testing.T) {
	p := NewConstant()
	var sum time.Duration
	for range 3_000_000 {
		sum += p.NextGap(3)
	}
	if sum != 1_000_000*time.Second {
		t.Fatalf("3M gaps at 3 req/s sum to %v, want exactly 1M s", sum)
	}
}

// Init drops the carried remainder: a phase starts on a whole schedule.
func TestConstantInitResets(t *testing.T) {
	p := NewConstant()
	p.NextGap(3) // carries -1/3 ns
	initialized(t, p, 1)
	if got, want := draw(p, 3, 3), draw(NewConstant(), 3, 3); !equal(got, want) {
		t.Errorf("after Init gaps %v, want %v", got, want)
	}
}

func TestConstantNonPositiveRate(t *testing.T) {
	for _, rate := range []float64{0, -5, math.NaN()} {
		if got := NewConstant().NextGap(rate); got != MaxGap {
			t.Errorf("rate %v: gap %v, want MaxGap %v", rate, got, MaxGap)
		}
	}
	if got := NewConstant().NextGap(math.Inf(1)); got != 0 {
		t.Errorf("rate +Inf: gap %v, want 0", got)
	}
}

func BenchmarkConstantNextGap(b *testing.B) {
	p := NewConstant()
	b.ReportAllocs()
	var sink time.Duration
	for b.Loop() {
		sink += p.NextGap(5000)
	}
	_ = sink
}
