package compare

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Interval is a two-sided confidence interval for a difference
// (candidate − baseline) at some confidence level.
type Interval struct {
	Low, High float64
}

// Excludes0 reports whether the interval lies wholly on one side of zero:
// the difference is significant at the interval's level.
func (iv Interval) Excludes0() bool { return iv.Low > 0 || iv.High < 0 }

// Percentile is AIPerf's percentile of sorted values (numpy "linear",
// Hyndman–Fan type 7, as core/metrics computes the summary): q in [0, 100].
func Percentile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	idx := q / 100 * float64(n-1)
	lo := int(idx)
	hi := min(lo+1, n-1)
	return sorted[lo] + (idx-float64(lo))*(sorted[hi]-sorted[lo])
}

// meanVar returns the mean and the sample variance (ddof=1) by two passes,
// which stays exact where sums of squares cancel.
func meanVar(x []float64) (mean, variance float64) {
	n := float64(len(x))
	for _, v := range x {
		mean += v
	}
	mean /= n
	if len(x) < 2 {
		return mean, math.NaN()
	}
	for _, v := range x {
		d := v - mean
		variance += d * d
	}
	return mean, variance / (n - 1)
}

// Welch is Welch's t interval for mean(candidate) − mean(baseline): the
// unequal-variance two-sample interval, diff ± t(df, (1+level)/2)·se with
// se² = s₁²/n₁ + s₂²/n₂ and the Welch–Satterthwaite df (scipy's
// ttest_ind(equal_var=False).confidence_interval). Runs of constant values
// give the zero-width interval at the difference (df +Inf).
type Welch struct {
	Diff, SE, DF float64
	Interval
}

// WelchInterval computes Welch's interval at level (0 < level < 1); each
// sample needs at least two values.
func WelchInterval(baseline, candidate []float64, level float64) (Welch, error) {
	if err := checkLevel(level); err != nil {
		return Welch{}, err
	}
	if len(baseline) < 2 || len(candidate) < 2 {
		return Welch{}, fmt.Errorf("welch interval: need at least 2 values per run, have %d and %d", len(baseline), len(candidate))
	}
	m1, v1 := meanVar(baseline)
	m2, v2 := meanVar(candidate)
	a, b := v1/float64(len(baseline)), v2/float64(len(candidate))
	w := Welch{Diff: m2 - m1, SE: math.Sqrt(a + b)}
	if w.SE == 0 {
		w.DF = math.Inf(1)
		w.Low, w.High = w.Diff, w.Diff
		return w, nil
	}
	w.DF = (a + b) * (a + b) / (a*a/float64(len(baseline)-1) + b*b/float64(len(candidate)-1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: w.DF}.Quantile((1 + level) / 2)
	w.Low, w.High = w.Diff-t*w.SE, w.Diff+t*w.SE
	return w, nil
}

func checkLevel(level float64) error {
	if !(level > 0 && level < 1) {
		return fmt.Errorf("confidence level %v: want a number between 0 and 1 (exclusive), such as 0.95", level)
	}
	return nil
}

// Bootstrap is a seeded percentile bootstrap of percentile differences.
type Bootstrap struct {
	// Resamples is the number of bootstrap resamples of each run (B).
	Resamples int
	// Seed and Stream seed the generator (PCG): the same inputs give the
	// same interval.
	Seed, Stream uint64
}

// QuantileDiffIntervals returns, for each percentile q (0–100), the
// percentile-bootstrap interval at level of Percentile(candidate, q) −
// Percentile(baseline, q): each run is resampled with replacement
// independently, B times, and the interval is the (1−level)/2 and
// (1+level)/2 percentiles of the B differences. The inputs are not
// modified.
func (bs Bootstrap) QuantileDiffIntervals(baseline, candidate []float64, qs []float64, level float64) ([]Interval, error) {
	if err := checkLevel(level); err != nil {
		return nil, err
	}
	if bs.Resamples < 1 {
		return nil, fmt.Errorf("bootstrap: %d resamples, want at least 1", bs.Resamples)
	}
	if len(baseline) == 0 || len(candidate) == 0 {
		return nil, errors.New("bootstrap: a run has no values")
	}
	rng := rand.NewPCG(bs.Seed, bs.Stream)
	base := resampledQuantiles(sorted(baseline), qs, bs.Resamples, rng)
	cand := resampledQuantiles(sorted(candidate), qs, bs.Resamples, rng)
	out := make([]Interval, len(qs))
	diffs := make([]float64, bs.Resamples)
	for j := range qs {
		for i := range diffs {
			diffs[i] = cand[j][i] - base[j][i]
		}
		slices.Sort(diffs)
		out[j] = Interval{Low: Percentile(diffs, 100*(1-level)/2), High: Percentile(diffs, 100*(1+level)/2)}
	}
	return out, nil
}

func sorted(x []float64) []float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s
}

// resampledQuantiles draws B resamples of s (sorted) and returns
// out[j][b], resample b's percentile qs[j]. A resample is never built: the
// order statistics a percentile interpolates between are drawn directly
// (resampleRanks), so a resample costs O(log n) per percentile instead of
// O(n): large runs compare in a fraction of a second per metric.
func resampledQuantiles(s []float64, qs []float64, b int, rng rand.Source) [][]float64 {
	n := len(s)
	// The distinct ranks every percentile interpolates between, ascending.
	var ranks []int
	for _, q := range qs {
		lo := int(q / 100 * float64(n-1))
		ranks = append(ranks, lo, min(lo+1, n-1))
	}
	slices.Sort(ranks)
	ranks = slices.Compact(ranks)
	vals := make([]float64, len(ranks))
	at := func(rank int) float64 {
		i, _ := slices.BinarySearch(ranks, rank)
		return vals[i]
	}
	out := make([][]float64, len(qs))
	for j := range out {
		out[j] = make([]float64, b)
	}
	for r := range b {
		resampleRanks(s, 0, len(s), 0, n, ranks, vals, rng)
		for j, q := range qs {
			idx := q / 100 * float64(n-1)
			lo := int(idx)
			out[j][r] = at(lo) + (idx-float64(lo))*(at(min(lo+1, n-1))-at(lo))
		}
	}
	return out
}

// resampleRanks sets vals[i] to the value of rank ranks[i] (ascending,
// within [r0, r0+m)) of a bootstrap resample, given that the m draws of the
// resample that fall in sorted positions [a, b) of s hold ranks [r0, r0+m).
// Draws are uniform over positions, so how many of those m fall in the left
// half is Binomial(m, left share), and each half is again such a node: the
// multinomial resample drawn by conditional binomials, exactly, but only
// along the paths to the ranks asked for.
func resampleRanks(s []float64, a, b, r0, m int, ranks []int, vals []float64, rng rand.Source) {
	for len(ranks) > 0 {
		if b-a == 1 {
			for i := range vals {
				vals[i] = s[a]
			}
			return
		}
		if m <= directDraws {
			// Few draws left: draw their positions and sort them.
			var buf [64]int
			pos := buf[:m]
			r := rand.New(rng)
			for i := range pos {
				pos[i] = a + r.IntN(b-a)
			}
			slices.Sort(pos)
			for i, k := range ranks {
				vals[i] = s[pos[k-r0]]
			}
			return
		}
		mid := a + (b-a)/2
		left := binomial(m, float64(mid-a)/float64(b-a), rng)
		k, _ := slices.BinarySearch(ranks, r0+left) // ranks[:k] fall left
		if k > 0 && k < len(ranks) {
			resampleRanks(s, a, mid, r0, left, ranks[:k], vals[:k], rng)
			a, r0, m, ranks, vals = mid, r0+left, m-left, ranks[k:], vals[k:]
			continue
		}
		if k > 0 {
			b, m = mid, left
		} else {
			a, r0, m = mid, r0+left, m-left
		}
	}
}

// directDraws is the number of draws in a node up to which drawing them
// one by one is cheaper than splitting further (at most 64; a variable so
// tests can check the splitting alone).
var directDraws = 32

// binomial draws from Binomial(n, p) exactly (gonum's rejection sampler).
func binomial(n int, p float64, rng rand.Source) int {
	if n == 0 || p == 0 {
		return 0
	}
	return int(distuv.Binomial{N: float64(n), P: p, Src: rng}.Rand())
}
