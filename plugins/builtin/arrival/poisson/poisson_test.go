package poisson

import (
	"math"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/arrival/internal/gap"
	"github.com/aiperf-go/aiperf/plugins/builtin/arrival/internal/gaptest"
)

func seeded(t testing.TB, seed int64) *Pattern {
	t.Helper()
	p := New()
	if err := p.Init(sdk.ArrivalOptions{Seed: seed}); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestStatistics(t *testing.T) {
	const n = 200_000
	for _, rate := range []float64{1, 100, 5000} {
		gaps := gaptest.Draw(seeded(t, 42), rate, n)
		mean, cv := gaptest.MeanCV(gaps)
		t.Logf("rate %v: mean %.6g s (want %.6g), CV %.4f", rate, mean, 1/rate, cv)
		if e := gaptest.RelErr(mean, 1/rate); e > 0.01 {
			t.Errorf("rate %v: mean gap %.6g s, want %.6g s ±1%% (rel err %.4f)", rate, mean, 1/rate, e)
		}
		if math.Abs(cv-1) > 0.02 {
			t.Errorf("rate %v: CV %.4f, want 1 ±0.02", rate, cv)
		}
		// Shape check, not just moments: P(X < mean) = 1 - 1/e for an
		// exponential.
		if f := gaptest.FractionBelow(gaps, 1/rate); math.Abs(f-(1-1/math.E)) > 0.005 {
			t.Errorf("rate %v: %.4f of gaps below the mean, want %.4f", rate, f, 1-1/math.E)
		}
	}
}

func TestDeterministicUnderSeed(t *testing.T) {
	a := gaptest.Draw(seeded(t, 1234), 50, 1000)
	b := gaptest.Draw(seeded(t, 1234), 50, 1000)
	c := gaptest.Draw(seeded(t, 1235), 50, 1000)
	if !gaptest.Equal(a, b) {
		t.Error("same seed gave different gap sequences")
	}
	if gaptest.Equal(a, c) {
		t.Error("seeds 1234 and 1235 gave the same gap sequence")
	}
	// Init must restart the sequence, not continue it.
	p := seeded(t, 1234)
	gaptest.Draw(p, 50, 10)
	if err := p.Init(sdk.ArrivalOptions{Seed: 1234}); err != nil {
		t.Fatal(err)
	}
	if !gaptest.Equal(a, gaptest.Draw(p, 50, 1000)) {
		t.Error("re-Init with the same seed did not restart the sequence")
	}
}

func TestNonPositiveRate(t *testing.T) {
	p := seeded(t, 9)
	for _, rate := range []float64{0, -3, math.NaN()} {
		if got := p.NextGap(rate); got != gap.MaxGap {
			t.Errorf("rate %v: gap %v, want MaxGap", rate, got)
		}
	}
	// No randomness was consumed by the rejected calls.
	if got, want := p.NextGap(10), seeded(t, 9).NextGap(10); got != want {
		t.Errorf("after rejected rates, first gap %v, want %v", got, want)
	}
}

func BenchmarkNextGap(b *testing.B) {
	p := seeded(b, 1)
	b.ReportAllocs()
	var sink time.Duration
	for b.Loop() {
		sink += p.NextGap(5000)
	}
	_ = sink
}
