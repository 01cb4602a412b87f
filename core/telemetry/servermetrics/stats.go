package servermetrics

import (
	"math"
	"sort"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// refIdx is the last sample before w.StartNs (the delta baseline), -1 when
// none; finalIdx the last sample at or before w.EndNs, -1 when none.
func (sr *series) refIdx(w Window) int {
	return sort.Search(len(sr.ts), func(i int) bool { return sr.ts[i] >= w.StartNs }) - 1
}

func (sr *series) finalIdx(w Window) int {
	return sort.Search(len(sr.ts), func(i int) bool { return sr.ts[i] > w.EndNs }) - 1
}

// inWindow is the index range [lo, hi) of samples inside w.
func (sr *series) inWindow(w Window) (int, int) {
	return sr.refIdx(w) + 1, sr.finalIdx(w) + 1
}

// stats computes the series over w; sliceSec > 0 adds its timeslices.
func (sr *series) stats(typ string, w Window, sliceSec float64) (sdk.ServerMetricSeries, bool) {
	out := sdk.ServerMetricSeries{Labels: sr.labels}
	switch typ {
	case sdk.PromCounter:
		c, ok := sr.counterStats(w)
		out.Counter = c
		if ok && sliceSec > 0 {
			out.Timeslices = sr.counterTimeslices(w, sliceSec)
			counterRateStats(c, out.Timeslices)
		}
		return out, ok
	case sdk.PromHistogram:
		h, b, ok := sr.histogramStats(w)
		out.Histogram, out.Buckets = h, b
		// AIPerf returns before slicing a histogram with no observations.
		if ok && sliceSec > 0 && h.Count > 0 {
			out.Timeslices = sr.histogramTimeslices(w, sliceSec)
		}
		return out, ok
	default:
		g, ok := sr.gaugeStats(w)
		out.Gauge = g
		if ok && sliceSec > 0 {
			out.Timeslices = sr.gaugeTimeslices(w, sliceSec)
		}
		return out, ok
	}
}

// gaugeStats: AIPerf's _compute_gauge_stats (numpy mean, min, max, std
// with ddof=1, linear percentiles) over the samples inside the window.
func (sr *series) gaugeStats(w Window) (*sdk.GaugeStats, bool) {
	lo, hi := sr.inWindow(w)
	if lo >= hi {
		return nil, false
	}
	v := sr.vals[lo:hi]
	g := &sdk.GaugeStats{Avg: mean(v), Min: v[0], Max: v[0]}
	for _, x := range v {
		g.Min, g.Max = math.Min(g.Min, x), math.Max(g.Max, x)
	}
	if len(v) > 1 {
		g.Std = stdDDOF1(v)
	}
	g.P1, g.P5, g.P10, g.P25 = percentile(v, 1), percentile(v, 5), percentile(v, 10), percentile(v, 25)
	g.P50, g.P75, g.P90, g.P95, g.P99 = percentile(v, 50), percentile(v, 75), percentile(v, 90), percentile(v, 95), percentile(v, 99)
	return g, true
}

// counterStats: AIPerf's _compute_counter_stats: the last sample in the
// window minus the baseline (the last sample before it, else the first in
// it), floored at 0 (a reset), and that delta per second.
func (sr *series) counterStats(w Window) (*sdk.CounterStats, bool) {
	lo, hi := sr.inWindow(w)
	if lo >= hi {
		return nil, false
	}
	ref := lo
	if r := sr.refIdx(w); r >= 0 {
		ref = r
	}
	total := math.Max(sr.vals[hi-1]-sr.vals[ref], 0)
	c := &sdk.CounterStats{Total: total}
	if d := float64(sr.ts[hi-1]-sr.ts[ref]) / 1e9; d > 0 {
		c.Rate = total / d
	}
	return c, true
}

// histogramStats: AIPerf's _compute_histogram_stats.
func (sr *series) histogramStats(w Window) (*sdk.HistogramStats, []sdk.HistogramBucket, bool) {
	if len(sr.ts) == 0 {
		return nil, nil, false
	}
	final := sr.finalIdx(w)
	if final < 0 {
		return nil, nil, false
	}
	ref := sr.refIdx(w)
	start := ref
	if start < 0 {
		start = 0
	}
	sumDelta := math.Max(sr.sums[final]-sr.sums[start], 0)
	countDelta := int64(math.Max(sr.counts[final]-sr.counts[start], 0))
	var buckets []sdk.HistogramBucket
	for i, le := range sr.les {
		d := sr.buckets[final][i] - sr.buckets[start][i]
		if d < 0 {
			buckets = nil
			break
		}
		buckets = append(buckets, sdk.HistogramBucket{Le: le, Count: math.Trunc(d)})
	}
	if countDelta == 0 {
		return &sdk.HistogramStats{}, buckets, true
	}
	hs := &sdk.HistogramStats{Count: countDelta, Sum: ptr(sumDelta), Avg: ptr(sumDelta / float64(countDelta))}
	if d := float64(sr.ts[final]-sr.ts[start]) / 1e9; d > 0 {
		hs.CountRate, hs.SumRate = ptr(float64(countDelta)/d), ptr(sumDelta/d)
	}
	if len(buckets) > 0 {
		learned := accumulateBucketStats(sr.sums, sr.counts, sr.les, sr.buckets, start)
		if p := EstimatePercentiles(buckets, learned, sumDelta, countDelta); p != nil {
			hs.P1, hs.P5, hs.P10, hs.P25, hs.P50 = &p[0], &p[1], &p[2], &p[3], &p[4]
			hs.P75, hs.P90, hs.P95, hs.P99 = &p[5], &p[6], &p[7], &p[8]
		}
	}
	return hs, buckets, true
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func stdDDOF1(v []float64) float64 {
	m := mean(v)
	var s float64
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	return math.Sqrt(s / float64(len(v)-1))
}

// percentile is numpy.percentile's default (linear) method.
func percentile(v []float64, p float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s) == 0 {
		return math.NaN()
	}
	pos := p / 100 * float64(len(s)-1)
	lo := int(math.Floor(pos))
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	frac := pos - float64(lo)
	return s[lo] + (s[lo+1]-s[lo])*frac
}
