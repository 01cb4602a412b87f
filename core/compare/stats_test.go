package compare

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// The expected values are scipy 1.x's:
// stats.ttest_ind(candidate, baseline, equal_var=False).confidence_interval(level).
func TestWelchIntervalMatchesScipy(t *testing.T) {
	tests := []struct {
		name                string
		base, cand          []float64
		level               float64
		diff, df, low, high float64
	}{
		{"ttft 20 vs 40 ms", []float64{20.1, 20.4, 19.8, 20.9, 20.3, 21.2, 20.0, 20.6}, []float64{40.2, 39.7, 41.0, 40.5, 40.1, 39.9, 40.8},
			0.95, 19.901785714285708, 12.70690370812561, 19.372401517881208, 20.43116991069021},
		{"unequal variances and sizes", []float64{12.0, 15.5, 11.2, 30.1, 14.4}, []float64{13.1, 13.3, 12.9, 13.0, 13.2, 13.4, 12.8, 13.1, 13.0, 13.2},
			0.90, -3.5400000000000045, 4.002235322223834, -10.903395091352794, 3.823395091352781},
		{"identical samples", []float64{1, 2, 3, 4}, []float64{1, 2, 3, 4},
			0.99, 0, 6, -3.384403262677234, 3.384403262677234},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, err := WelchInterval(tc.base, tc.cand, tc.level)
			if err != nil {
				t.Fatal(err)
			}
			if !near(w.Diff, tc.diff, 1e-12) || !near(w.DF, tc.df, 1e-9) || !near(w.Low, tc.low, 1e-9) || !near(w.High, tc.high, 1e-9) {
				t.Errorf("diff %v df %v [%v, %v], scipy: diff %v df %v [%v, %v]", w.Diff, w.DF, w.Low, w.High, tc.diff, tc.df, tc.low, tc.high)
			}
		})
	}
}

func TestWelchIntervalEdgeCases(t *testing.T) {
	w, err := WelchInterval([]float64{64, 64, 64}, []float64{70, 70}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if w.Low != 6 || w.High != 6 || !math.IsInf(w.DF, 1) || !w.Excludes0() {
		t.Errorf("constant runs: %+v, want the zero-width interval [6, 6]", w)
	}
	if w, _ := WelchInterval([]float64{5, 5}, []float64{5, 5, 5}, 0.95); w.Excludes0() {
		t.Errorf("equal constants: %+v excludes 0", w)
	}
	if _, err := WelchInterval([]float64{1}, []float64{1, 2}, 0.95); err == nil {
		t.Error("a run of one value accepted")
	}
	for _, level := range []float64{0, 1, -0.5, 95, math.NaN()} {
		if _, err := WelchInterval([]float64{1, 2}, []float64{1, 2}, level); err == nil {
			t.Errorf("level %v accepted", level)
		}
	}
}

// numpy.percentile(x, q) with its default linear method.
func TestPercentileMatchesNumpy(t *testing.T) {
	x := []float64{1, 2, 3, 4, 10}
	for _, tc := range []struct{ q, want float64 }{{0, 1}, {50, 3}, {90, 7.6}, {99, 9.76}, {100, 10}} {
		if got := Percentile(x, tc.q); !near(got, tc.want, 1e-12) {
			t.Errorf("p%v = %v, numpy %v", tc.q, got, tc.want)
		}
	}
	if !math.IsNaN(Percentile(nil, 50)) {
		t.Error("percentile of nothing is not NaN")
	}
}

// The order statistics drawn by binomial splitting must follow the exact
// bootstrap distribution: for n = 4 every one of the 4^4 index sequences
// is equally likely, so the joint law of ranks (1, 2) of the sorted
// resample is known by enumeration.
func TestResampleRanksFollowTheExactBootstrapLaw(t *testing.T) {
	s := []float64{10, 20, 30, 40}
	n := len(s)
	exact := map[[2]float64]float64{}
	for code := range 256 {
		var draw []float64
		for c, i := code, 0; i < n; c, i = c/4, i+1 {
			draw = append(draw, s[c%4])
		}
		slices.Sort(draw)
		exact[[2]float64{draw[1], draw[2]}] += 1.0 / 256
	}
	const reps = 100000
	rng := rand.NewPCG(5, 5)
	defer func(d int) { directDraws = d }(directDraws)
	for _, direct := range []int{0, 32} { // binomial splitting alone, then direct draws
		directDraws = direct
		got := map[[2]float64]float64{}
		vals := make([]float64, 2)
		for range reps {
			resampleRanks(s, 0, n, 0, n, []int{1, 2}, vals, rng)
			got[[2]float64{vals[0], vals[1]}] += 1.0 / reps
		}
		for k, p := range got {
			if exact[k] == 0 {
				t.Errorf("direct %d: ranks (1, 2) = %v drawn %.4f of the time, impossible in the exact law", direct, k, p)
			}
		}
		for k, p := range exact {
			if math.Abs(got[k]-p) > 0.007 {
				t.Errorf("direct %d: ranks (1, 2) = %v drawn %.4f of the time, exact %.4f", direct, k, got[k], p)
			}
		}
	}
	directDraws = 32
	// A large run: the resampled median is centred on the sample median
	// with the spread order-statistic theory gives (sd ≈ 1/(2 f(m) √n) =
	// √(π/2)/√n for a standard normal sample).
	big := make([]float64, 10000)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range big {
		big[i] = r.NormFloat64()
	}
	slices.Sort(big)
	med := resampledQuantiles(big, []float64{50}, 4000, rng)[0]
	mean, v := meanVar(med)
	want := math.Sqrt(math.Pi/2) / math.Sqrt(float64(len(big)))
	if math.Abs(mean-Percentile(big, 50)) > 0.1*want || math.Abs(math.Sqrt(v)-want) > 0.1*want {
		t.Errorf("resampled median of 10,000 normals: mean %.5f (sample median %.5f), sd %.5f, want about %.5f",
			mean, Percentile(big, 50), math.Sqrt(v), want)
	}
}

// A shift by a constant moves every percentile by it: the bootstrap's
// intervals must cover that true difference about as often as their level
// says, on skewed (lognormal) latencies. Fixed seeds make it exact: this
// is a regression test of the method, not a random one.
func TestBootstrapCoverageOnShiftedLognormal(t *testing.T) {
	const (
		trials = 200
		n      = 200
		shift  = 3.0
		level  = 0.95
	)
	rng := rand.New(rand.NewPCG(2024, 1))
	draw := func(off float64) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = off + 20*math.Exp(0.3*rng.NormFloat64())
		}
		return x
	}
	qs := []float64{50, 90}
	covered := make([]int, len(qs))
	width := make([]float64, len(qs))
	welchCovered := 0
	for trial := range trials {
		base, cand := draw(0), draw(shift)
		ivs, err := Bootstrap{Resamples: 500, Seed: 11, Stream: uint64(trial)}.QuantileDiffIntervals(base, cand, qs, level)
		if err != nil {
			t.Fatal(err)
		}
		for j, iv := range ivs {
			if iv.Low <= shift && shift <= iv.High {
				covered[j]++
			}
			width[j] += iv.High - iv.Low
		}
		if w, _ := WelchInterval(base, cand, level); w.Low <= shift && shift <= w.High {
			welchCovered++
		}
	}
	for j, q := range qs {
		cov := float64(covered[j]) / trials
		t.Logf("p%v coverage %.3f width %.3f", q, cov, width[j]/trials)
		if cov < 0.90 || cov > 0.99 {
			t.Errorf("p%v: coverage %.3f over %d trials, want about %.2f", q, cov, trials, level)
		}
		if w := width[j] / trials; w <= 0 || w > 4*shift {
			t.Errorf("p%v: mean interval width %.3f, want a positive width well under %v", q, w, 4*shift)
		}
	}
	if cov := float64(welchCovered) / trials; cov < 0.90 || cov > 0.99 {
		t.Errorf("welch: coverage %.3f, want about %.2f", cov, level)
	}
}

func TestBootstrapIsSeededAndDoesNotModifyInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	base, cand := make([]float64, 40), make([]float64, 40)
	for i := range base {
		base[i], cand[i] = 10+rng.NormFloat64(), 20+rng.NormFloat64()
	}
	orig := slices.Clone(base)
	bs := Bootstrap{Resamples: 300, Seed: 1, Stream: 2}
	a, err := bs.QuantileDiffIntervals(base, cand, []float64{50}, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := bs.QuantileDiffIntervals(base, cand, []float64{50}, 0.9)
	if a[0] != b[0] {
		t.Errorf("same seed gave %v and %v", a[0], b[0])
	}
	c, _ := Bootstrap{Resamples: 300, Seed: 99, Stream: 2}.QuantileDiffIntervals(base, cand, []float64{50}, 0.9)
	if c[0] == a[0] {
		t.Errorf("another seed gave the same interval %v", a[0])
	}
	if !slices.Equal(base, orig) {
		t.Errorf("input modified: %v", base)
	}
	// The medians differ by about 10; the interval holds it.
	if !(a[0].Low <= 10 && 10 <= a[0].High) || !a[0].Excludes0() {
		t.Errorf("median difference interval %v, want around 10 and excluding 0", a[0])
	}
	same, _ := bs.QuantileDiffIntervals([]float64{4, 4, 4}, []float64{4, 4}, []float64{50, 99}, 0.95)
	for _, iv := range same {
		if iv.Low != 0 || iv.High != 0 || iv.Excludes0() {
			t.Errorf("constant runs: %v, want [0, 0]", iv)
		}
	}
	if _, err := (Bootstrap{Resamples: 0}).QuantileDiffIntervals(base, cand, []float64{50}, 0.95); err == nil {
		t.Error("0 resamples accepted")
	}
	if _, err := bs.QuantileDiffIntervals(nil, cand, []float64{50}, 0.95); err == nil {
		t.Error("an empty run accepted")
	}
}

func TestLevelPercent(t *testing.T) {
	for level, want := range map[float64]string{0.95: "95", 0.9: "90", 0.999: "99.9", 0.5: "50", 0.975: "97.5"} {
		if got := LevelPercent(level); got != want {
			t.Errorf("LevelPercent(%v) = %s, want %s", level, got, want)
		}
	}
}
