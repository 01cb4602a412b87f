package gamma

import (
	"math"
	"strings"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/arrival/internal/gap"
	"github.com/aiperf-go/aiperf/plugins/builtin/arrival/internal/gaptest"
)

func initialized(t testing.TB, seed int64, smoothness float64) *Pattern {
	t.Helper()
	p := New()
	if err := p.Init(sdk.ArrivalOptions{Seed: seed, Smoothness: smoothness}); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestStatistics(t *testing.T) {
	const n = 200_000
	cases := []struct {
		smoothness, rate, wantCV float64
	}{
		{0.5, 100, math.Sqrt2},
		{1, 100, 1},
		{0, 100, 1}, // 0 means the default 1
		{4, 100, 0.5},
		{0.25, 50, 2},
		{10, 5000, 1 / math.Sqrt(10)},
		{4, 0.5, 0.5},
	}
	for _, c := range cases {
		gaps := gaptest.Draw(initialized(t, 42, c.smoothness), c.rate, n)
		mean, cv := gaptest.MeanCV(gaps)
		t.Logf("smoothness %v rate %v: mean %.6g s (want %.6g), CV %.4f (want %.4f)", c.smoothness, c.rate, mean, 1/c.rate, cv, c.wantCV)
		if e := gaptest.RelErr(mean, 1/c.rate); e > 0.01 {
			t.Errorf("smoothness %v rate %v: mean gap %.6g s, want %.6g s ±1%% (rel err %.4f)", c.smoothness, c.rate, mean, 1/c.rate, e)
		}
		if e := gaptest.RelErr(cv, c.wantCV); e > 0.02 {
			t.Errorf("smoothness %v rate %v: CV %.4f, want %.4f ±2%%", c.smoothness, c.rate, cv, c.wantCV)
		}
	}
}

// Smoothness 1 must be an exponential, not merely match its first two
// moments: P(X < mean) = 1 - 1/e.
func TestSmoothnessOneIsExponential(t *testing.T) {
	gaps := gaptest.Draw(initialized(t, 5, 1), 10, 200_000)
	if f := gaptest.FractionBelow(gaps, 0.1); math.Abs(f-(1-1/math.E)) > 0.005 {
		t.Errorf("%.4f of gaps below the mean, want %.4f", f, 1-1/math.E)
	}
}

func TestDeterministicUnderSeed(t *testing.T) {
	for _, k := range []float64{0.5, 1, 4} {
		a := gaptest.Draw(initialized(t, 99, k), 20, 1000)
		b := gaptest.Draw(initialized(t, 99, k), 20, 1000)
		c := gaptest.Draw(initialized(t, 100, k), 20, 1000)
		if !gaptest.Equal(a, b) {
			t.Errorf("smoothness %v: same seed gave different gap sequences", k)
		}
		if gaptest.Equal(a, c) {
			t.Errorf("smoothness %v: seeds 99 and 100 gave the same gap sequence", k)
		}
	}
}

func TestInitRejectsBadSmoothness(t *testing.T) {
	for _, k := range []float64{-1, -0.001, math.NaN(), math.Inf(1), math.Inf(-1)} {
		p := initialized(t, 1, 4)
		err := p.Init(sdk.ArrivalOptions{Seed: 2, Smoothness: k})
		if err == nil {
			t.Errorf("smoothness %v: no error", k)
			continue
		}
		if !strings.Contains(err.Error(), "smoothness") {
			t.Errorf("smoothness %v: error %q does not name the option", k, err)
		}
		if p.Smoothness() != 4 {
			t.Errorf("smoothness %v: failed Init changed the shape to %v", k, p.Smoothness())
		}
	}
}

func TestNonPositiveRate(t *testing.T) {
	p := initialized(t, 3, 2)
	for _, rate := range []float64{0, -1, math.NaN()} {
		if got := p.NextGap(rate); got != gap.MaxGap {
			t.Errorf("rate %v: gap %v, want MaxGap", rate, got)
		}
	}
}

// Tiny shapes exercise the boost branch hard; gaps must stay finite and
// non-negative.
func TestTinyShapeStaysFinite(t *testing.T) {
	p := initialized(t, 8, 0.01)
	for range 100_000 {
		if g := p.NextGap(1000); g < 0 || g > gap.MaxGap {
			t.Fatalf("gap %v out of range", g)
		}
	}
}

func benchmarkShape(b *testing.B, k float64) {
	p := initialized(b, 1, k)
	b.ReportAllocs()
	var sink time.Duration
	for b.Loop() {
		sink += p.NextGap(5000)
	}
	_ = sink
}

func BenchmarkNextGap(b *testing.B) {
	for _, k := range []struct {
		name string
		k    float64
	}{{"smoothness=0.5", 0.5}, {"smoothness=1", 1}, {"smoothness=4", 4}} {
		b.Run(k.name, func(b *testing.B) { benchmarkShape(b, k.k) })
	}
}
