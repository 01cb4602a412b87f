package servermetrics

import (
	"math"
	"strconv"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// A port of AIPerf 0.13's histogram_percentiles.py: percentiles estimated
// by generating observations inside each bucket (centred on the bucket's
// learned mean when one scrape interval put all its observations in that
// bucket), matching the exact sum, plus +Inf observations back-computed
// from the sum.

const maxObservations = 100_000

// bucketStat is AIPerf's BucketStatistics.
type bucketStat struct {
	obsCount      int64
	weightedSum   float64
	observedMeans []float64
}

func (b *bucketStat) mean() (float64, bool) {
	if b == nil || b.obsCount == 0 {
		return 0, false
	}
	return b.weightedSum / float64(b.obsCount), true
}

func (b *bucketStat) variance() (float64, bool) {
	if b == nil || len(b.observedMeans) < 3 {
		return 0, false
	}
	return math.Pow(stdDDOF1(b.observedMeans), 2), true
}

// accumulateBucketStats is accumulate_bucket_statistics: for every scrape
// interval from start on whose new observations all fell in one bucket,
// that bucket learns the interval's mean.
func accumulateBucketStats(sums, counts []float64, les []string, buckets [][]float64, start int) map[string]*bucketStat {
	out := map[string]*bucketStat{}
	for i := start + 1; i < len(sums); i++ {
		cd := int64(counts[i] - counts[i-1])
		if cd <= 0 {
			continue
		}
		sd := sums[i] - sums[i-1]
		active, idx := 0, -1
		prev := 0.0
		for j := range les {
			d := math.Max(buckets[i][j]-buckets[i-1][j], 0)
			per := d
			if j > 0 {
				per = d - prev
			}
			prev = d
			if per > 0 {
				active++
				idx = j
			}
		}
		if active == 1 {
			le := les[idx]
			b := out[le]
			if b == nil {
				b = &bucketStat{}
				out[le] = b
			}
			m := sd / float64(cd)
			b.obsCount += cd
			b.weightedSum += m * float64(cd)
			b.observedMeans = append(b.observedMeans, m)
		}
	}
	return out
}

type perBucket struct {
	le           string
	lower, upper float64
	count        float64
}

// EstimatePercentiles is compute_estimated_percentiles: p1, p5, p10, p25,
// p50, p75, p90, p95, p99, or nil when there is nothing to estimate.
// buckets are cumulative, sorted, "+Inf" last.
func EstimatePercentiles(buckets []sdk.HistogramBucket, learned map[string]*bucketStat, totalSum float64, totalCount int64) []float64 {
	if totalCount <= 0 || len(buckets) == 0 || math.IsNaN(totalSum) || math.IsInf(totalSum, 0) || totalSum < 0 {
		return nil
	}
	if totalSum == 0 {
		return make([]float64, 9)
	}
	var finite []perBucket
	infCum, hasInf := 0.0, false
	prevCum, prevLe := 0.0, 0.0
	for _, b := range buckets {
		if b.Le == "+Inf" {
			infCum, hasInf = b.Count, true
			continue
		}
		up, err := strconv.ParseFloat(b.Le, 64)
		if err != nil {
			continue
		}
		finite = append(finite, perBucket{le: b.Le, lower: prevLe, upper: up, count: b.Count - prevCum})
		prevCum, prevLe = b.Count, up
	}
	if len(finite) == 0 {
		return nil
	}
	maxFinite := prevLe
	infPer := 0.0
	if hasInf {
		infPer = infCum - prevCum
	}
	total := infPer
	for _, b := range finite {
		total += b.count
	}
	if total > maxObservations {
		r := maxObservations / total
		for i := range finite {
			finite[i].count *= r
		}
		infPer *= r
		totalSum *= r
	}
	infCount := 0
	if infPer > 0 {
		infCount = int(math.Ceil(infPer))
	}
	estFinite := 0.0
	for _, b := range finite {
		if b.count <= 0 {
			continue
		}
		m := (b.lower + b.upper) / 2
		if lm, ok := learned[b.le].mean(); ok && b.lower < lm && lm < b.upper {
			m = lm
		}
		estFinite += b.count * m
	}
	infObs := infObservations(totalSum, estFinite, infCount, maxFinite)
	infSum := 0.0
	for _, x := range infObs {
		infSum += x
	}
	obs := finiteObservations(finite, totalSum-infSum, learned)
	obs = append(obs, infObs...)
	if len(obs) == 0 {
		return nil
	}
	out := make([]float64, 9)
	for i, p := range []float64{1, 5, 10, 25, 50, 75, 90, 95, 99} {
		out[i] = percentile(obs, p)
	}
	return out
}

func infObservations(totalSum, estFinite float64, n int, maxFinite float64) []float64 {
	if n <= 0 {
		return nil
	}
	avg := maxFinite * 1.5
	if s := totalSum - estFinite; s > 0 {
		if a := s / float64(n); a > maxFinite {
			avg = a
		}
	}
	upper := 2*avg - maxFinite
	if upper <= maxFinite {
		upper = maxFinite * 2
	}
	if n == 1 {
		return []float64{avg}
	}
	return linspace(maxFinite, upper, n)
}

func linspace(a, b float64, n int) []float64 {
	out := make([]float64, n)
	step := (b - a) / float64(n-1)
	for i := range out {
		out[i] = a + float64(i)*step
	}
	out[n-1] = b
	return out
}

func clip(x, lo, hi float64) float64 { return math.Min(math.Max(x, lo), hi) }

// finiteObservations is _generate_observations_with_sum_constraint (the
// counts were already scaled down to maxObservations by the caller).
func finiteObservations(bs []perBucket, target float64, learned map[string]*bucketStat) []float64 {
	total := 0.0
	for _, b := range bs {
		total += b.count
	}
	avg := 0.0
	if total > 0 {
		avg = target / total
	}
	dominant := ""
	if total > 0 {
		maxC := 0.0
		for _, b := range bs {
			maxC = math.Max(maxC, b.count)
		}
		if maxC/total >= 0.95 {
			for _, b := range bs {
				if b.count == maxC {
					dominant = b.le
					break
				}
			}
		}
	}
	type rng struct {
		start, n     int
		lower, upper float64
	}
	var obs []float64
	var ranges []rng
	for _, b := range bs {
		n := int(b.count)
		if n <= 0 {
			continue
		}
		width, mid := b.upper-b.lower, (b.lower+b.upper)/2
		st := learned[b.le]
		lm, hasMean := st.mean()
		if hasMean && !(b.lower < lm && lm < b.upper) {
			hasMean = false
		}
		lv, hasVar := st.variance()
		start := len(obs)
		switch {
		case hasMean && hasVar && lv > 0:
			std := math.Sqrt(lv)
			spread, offset := 4*std/width, math.Abs(lm-mid)/width
			switch {
			case spread < 0.01:
				obs = append(obs, f3Observations(n, b.lower, b.upper, lm, lv)...)
			case spread < 0.2 && offset < 0.3:
				obs = append(obs, blendedObservations(n, b.lower, b.upper, lm, std, 0.5)...)
			default:
				obs = append(obs, varianceObservations(n, b.lower, b.upper, lm, std)...)
			}
		default:
			center := mid
			if hasMean {
				center = lm
			}
			if b.le == dominant && b.lower < avg && avg < b.upper {
				center = avg
			}
			shift := center - mid
			for i := 0; i < n; i++ {
				f := (float64(i) + 0.5) / float64(n)
				obs = append(obs, clip(b.lower+width*f+shift, b.lower, b.upper))
			}
		}
		ranges = append(ranges, rng{start, n, b.lower, b.upper})
	}
	gen := 0.0
	for _, x := range obs {
		gen += x
	}
	if gen <= 0 || target <= 0 || math.Abs(target-gen)/target < 0.001 {
		return obs
	}
	disc := target - gen
	for _, r := range ranges {
		part := obs[r.start : r.start+r.n]
		s := 0.0
		for _, x := range part {
			s += x
		}
		per := disc * (s / gen) / float64(r.n)
		maxShift := (r.upper - r.lower) * 0.4
		shift := clip(per, -maxShift, maxShift)
		for i := range part {
			part[i] = clip(part[i]+shift, r.lower, r.upper)
		}
	}
	return obs
}

func f3Observations(n int, lower, upper, mean, variance float64) []float64 {
	x := lower
	a := upper
	if mean-x > 0 {
		a = mean + variance/(mean-x)
	}
	a = clip(a, lower, upper)
	px := 0.5
	if d := variance + (mean-x)*(mean-x); d > 0 {
		px = variance / d
	}
	nx := int(float64(n) * clip(px, 0, 1))
	out := make([]float64, n)
	for i := range out {
		if i < nx {
			out[i] = x
		} else {
			out[i] = a
		}
	}
	return out
}

func varianceObservations(n int, lower, upper, mean, std float64) []float64 {
	toLo, toUp := 3.0, 3.0
	if std > 0 {
		toLo, toUp = math.Min((mean-lower)/std, 3), math.Min((upper-mean)/std, 3)
	}
	out := make([]float64, n)
	for i := range out {
		f := (float64(i) + 0.5) / float64(n)
		var p float64
		if f < 0.5 {
			p = mean - toLo*std*(1-2*f)
		} else {
			p = mean + toUp*std*(2*f-1)
		}
		out[i] = clip(p, lower, upper)
	}
	return out
}

func blendedObservations(n int, lower, upper, mean, std, blend float64) []float64 {
	width, shift := upper-lower, mean-(lower+upper)/2
	v := varianceObservations(n, lower, upper, mean, std)
	out := make([]float64, n)
	for i := range out {
		f := (float64(i) + 0.5) / float64(n)
		u := clip(lower+width*f+shift, lower, upper)
		out[i] = clip((1-blend)*u+blend*v[i], lower, upper)
	}
	return out
}
