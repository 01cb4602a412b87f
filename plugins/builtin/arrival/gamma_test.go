package arrival

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// configuredGamma goes through the core's lifecycle: settings decoded
// strictly into PluginConfig, Init, Validate.
func configuredGamma(t testing.TB, seed int64, smoothness float64) *GammaPattern {
	t.Helper()
	p := NewGamma()
	p.PluginConfig().(*GammaConfig).Smoothness = smoothness
	initialized(t, p, seed)
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestGammaStatistics(t *testing.T) {
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
		gaps := draw(configuredGamma(t, 42, c.smoothness), c.rate, n)
		mean, cv := meanCV(gaps)
		t.Logf("smoothness %v rate %v: mean %.6g s (want %.6g), CV %.4f (want %.4f)", c.smoothness, c.rate, mean, 1/c.rate, cv, c.wantCV)
		if e := relErr(mean, 1/c.rate); e > 0.01 {
			t.Errorf("smoothness %v rate %v: mean gap %.6g s, want %.6g s ±1%% (rel err %.4f)", c.smoothness, c.rate, mean, 1/c.rate, e)
		}
		if e := relErr(cv, c.wantCV); e > 0.02 {
			t.Errorf("smoothness %v rate %v: CV %.4f, want %.4f ±2%%", c.smoothness, c.rate, cv, c.wantCV)
		}
	}
}

// Smoothness 1 must be an exponential, not merely match its first two
// moments: P(X < mean) = 1 - 1/e.
func TestGammaSmoothnessOneIsExponential(t *testing.T) {
	gaps := draw(configuredGamma(t, 5, 1), 10, 200_000)
	if f := fractionBelow(gaps, 0.1); math.Abs(f-(1-1/math.E)) > 0.005 {
		t.Errorf("%.4f of gaps below the mean, want %.4f", f, 1-1/math.E)
	}
}

func TestGammaDeterministicUnderSeed(t *testing.T) {
	for _, k := range []float64{0.5, 1, 4} {
		a := draw(configuredGamma(t, 99, k), 20, 1000)
		b := draw(configuredGamma(t, 99, k), 20, 1000)
		c := draw(configuredGamma(t, 100, k), 20, 1000)
		if !equal(a, b) {
			t.Errorf("smoothness %v: same seed gave different gap sequences", k)
		}
		if equal(a, c) {
			t.Errorf("smoothness %v: seeds 99 and 100 gave the same gap sequence", k)
		}
	}
	// Init restarts the sequence.
	p := configuredGamma(t, 99, 4)
	first := draw(p, 20, 100)
	initialized(t, p, 99)
	if !equal(first, draw(p, 20, 100)) {
		t.Error("re-Init with the same seed did not restart the sequence")
	}
}

func TestGammaDefaults(t *testing.T) {
	p := NewGamma()
	if cfg := p.PluginConfig().(*GammaConfig); cfg.Smoothness != DefaultSmoothness || DefaultSmoothness != 1 {
		t.Errorf("default settings %+v, want smoothness 1", *cfg)
	}
	if err := p.Validate(); err != nil || p.Smoothness() != 1 {
		t.Errorf("fresh pattern: Validate %v, smoothness %v", err, p.Smoothness())
	}
}

// The settings decode by their json name, and unknown keys are refused.
func TestGammaConfigDecodes(t *testing.T) {
	p := NewGamma()
	if err := sdk.DecodeConfig([]byte(`{"smoothness": 2.5}`), p.PluginConfig()); err != nil {
		t.Fatal(err)
	}
	initialized(t, p, 1)
	if p.Smoothness() != 2.5 {
		t.Errorf("smoothness %v after decoding 2.5", p.Smoothness())
	}
	if err := sdk.DecodeConfig([]byte(`{"shape": 2}`), NewGamma().PluginConfig()); err == nil {
		t.Error("unknown setting accepted")
	}
}

func TestGammaRejectsBadSmoothness(t *testing.T) {
	for _, k := range []float64{-1, -0.001, math.NaN(), math.Inf(1), math.Inf(-1)} {
		p := configuredGamma(t, 1, 4)
		p.PluginConfig().(*GammaConfig).Smoothness = k
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), "--arrival-smoothness") {
			t.Errorf("smoothness %v: Validate = %v, want an error naming --arrival-smoothness", k, err)
		}
		err = p.Init(context.Background(), sdk.RunInfo{Seed: 2})
		if err == nil || !strings.Contains(err.Error(), "--arrival-smoothness") {
			t.Errorf("smoothness %v: Init = %v, want an error naming --arrival-smoothness", k, err)
		}
		if p.Smoothness() != 4 {
			t.Errorf("smoothness %v: failed Init changed the shape to %v", k, p.Smoothness())
		}
	}
}

func TestGammaNonPositiveRate(t *testing.T) {
	p := configuredGamma(t, 3, 2)
	for _, rate := range []float64{0, -1, math.NaN()} {
		if got := p.NextGap(rate); got != MaxGap {
			t.Errorf("rate %v: gap %v, want MaxGap", rate, got)
		}
	}
}

// Tiny shapes exercise the boost branch hard; gaps must stay finite and
// non-negative.
func TestGammaTinyShapeStaysFinite(t *testing.T) {
	p := configuredGamma(t, 8, 0.01)
	for range 100_000 {
		if g := p.NextGap(1000); g < 0 || g > MaxGap {
			t.Fatalf("gap %v out of range", g)
		}
	}
}

func BenchmarkGammaNextGap(b *testing.B) {
	for _, k := range []struct {
		name string
		k    float64
	}{{"smoothness=0.5", 0.5}, {"smoothness=1", 1}, {"smoothness=4", 4}} {
		b.Run(k.name, func(b *testing.B) {
			p := configuredGamma(b, 1, k.k)
			b.ReportAllocs()
			var sink time.Duration
			for b.Loop() {
				sink += p.NextGap(5000)
			}
			_ = sink
		})
	}
}
