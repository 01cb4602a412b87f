package arrival

import (
	"math"
	"testing"
	"time"
)

func seededPoisson(t testing.TB, seed int64) *PoissonPattern {
	t.Helper()
	return initialized(t, NewPoisson(), seed)
}

func TestPoissonStatistics(t *testing.T) {
	const n = 200_000
	for _, rate := range []float64{1, 100, 5000} {
		gaps := draw(seededPoisson(t, 42), rate, n)
		mean, cv := meanCV(gaps)
		t.Logf("rate %v: mean %.6g s (want %.6g), CV %.4f", rate, mean, 1/rate, cv)
		if e := relErr(mean, 1/rate); e > 0.01 {
			t.Errorf("rate %v: mean gap %.6g s, want %.6g s ±1%% (rel err %.4f)", rate, mean, 1/rate, e)
		}
		if math.Abs(cv-1) > 0.02 {
			t.Errorf("rate %v: CV %.4f, want 1 ±0.02", rate, cv)
		}
		// Shape check, not just moments: P(X < mean) = 1 - 1/e for an
		// exponential.
		if f := fractionBelow(gaps, 1/rate); math.Abs(f-(1-1/math.E)) > 0.005 {
			t.Errorf("rate %v: %.4f of gaps below the mean, want %.4f", rate, f, 1-1/math.E)
		}
	}
}

func TestPoissonDeterministicUnderSeed(t *testing.T) {
	a := draw(seededPoisson(t, 1234), 50, 1000)
	b := draw(seededPoisson(t, 1234), 50, 1000)
	c := draw(seededPoisson(t, 1235), 50, 1000)
	if !equal(a, b) {
		t.Error("same seed gave different gap sequences")
	}
	if equal(a, c) {
		t.Error("seeds 1234 and 1235 gave the same gap sequence")
	}
	// Init must restart the sequence, not continue it.
	p := seededPoisson(t, 1234)
	draw(p, 50, 10)
	initialized(t, p, 1234)
	if !equal(a, draw(p, 50, 1000)) {
		t.Error("re-Init with the same seed did not restart the sequence")
	}
}

func TestPoissonNonPositiveRate(t *testing.T) {
	p := seededPoisson(t, 9)
	for _, rate := range []float64{0, -3, math.NaN()} {
		if got := p.NextGap(rate); got != MaxGap {
			t.Errorf("rate %v: gap %v, want MaxGap", rate, got)
		}
	}
	// No randomness was consumed by the rejected calls.
	if got, want := p.NextGap(10), seededPoisson(t, 9).NextGap(10); got != want {
		t.Errorf("after rejected rates, first gap %v, want %v", got, want)
	}
}

func BenchmarkPoissonNextGap(b *testing.B) {
	p := seededPoisson(b, 1)
	b.ReportAllocs()
	var sink time.Duration
	for b.Loop() {
		sink += p.NextGap(5000)
	}
	_ = sink
}
