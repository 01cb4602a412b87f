package metrics

import (
	"math"
	"slices"
)

// Stats are AIPerf's summary statistics of one metric's values.
type Stats struct {
	Avg, Min, Max                             float64
	P1, P5, P10, P25, P50, P75, P90, P95, P99 float64
	// Std is the population standard deviation (ddof=0), as AIPerf reports
	// for request metrics.
	Std   float64
	Count int64
	Sum   float64
}

// ComputeStats summarises values without modifying them. Percentiles use
// linear interpolation between closest ranks (numpy "linear", Hyndman-Fan
// type 7). An empty input gives the zero Stats (Count 0).
func ComputeStats(values []float64) Stats {
	if len(values) == 0 {
		return Stats{}
	}
	return statsInPlace(slices.Clone(values))
}

// statsInPlace is ComputeStats on a slice it may sort (a copy the caller
// owns).
func statsInPlace(v []float64) Stats {
	n := len(v)
	if n == 0 {
		return Stats{}
	}
	slices.Sort(v)
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	mean := sum / float64(n)
	// Two passes (deviations from the mean) like numpy's std, which stays
	// exact where sum-of-squares formulas cancel catastrophically.
	sq := 0.0
	for _, x := range v {
		d := x - mean
		sq += d * d
	}
	return Stats{
		Avg: mean, Min: v[0], Max: v[n-1],
		P1: percentile(v, 1), P5: percentile(v, 5), P10: percentile(v, 10),
		P25: percentile(v, 25), P50: percentile(v, 50), P75: percentile(v, 75),
		P90: percentile(v, 90), P95: percentile(v, 95), P99: percentile(v, 99),
		Std:   math.Sqrt(sq / float64(n)),
		Count: int64(n),
		Sum:   sum,
	}
}

// percentile interpolates linearly on sorted values, exactly as AIPerf:
// idx = q/100*(n-1), lo = trunc(idx), v = s[lo] + frac*(s[hi]-s[lo]).
func percentile(sorted []float64, q float64) float64 {
	n := len(sorted)
	idx := q / 100 * float64(n-1)
	lo := int(idx)
	hi := min(lo+1, n-1)
	frac := idx - float64(lo)
	return sorted[lo] + frac*(sorted[hi]-sorted[lo])
}

// scaled converts stats computed in base units to a display unit. Count is a
// count and never scales.
func (s Stats) scaled(div float64) Stats {
	if div == 1 {
		return s
	}
	return Stats{
		Avg: s.Avg / div, Min: s.Min / div, Max: s.Max / div,
		P1: s.P1 / div, P5: s.P5 / div, P10: s.P10 / div, P25: s.P25 / div,
		P50: s.P50 / div, P75: s.P75 / div, P90: s.P90 / div, P95: s.P95 / div,
		P99: s.P99 / div, Std: s.Std / div, Count: s.Count, Sum: s.Sum / div,
	}
}
