package servermetrics

import (
	"math"
	"sort"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Timeslices (--slice-duration): AIPerf 0.13's export_stats.py
// _compute_*_timeslices. The grid runs from the series' first sample in the
// window to its last (AIPerf's phase time filter), in slices of the given
// width; the last one is partial when the range does not divide evenly.

type sliceGrid struct {
	starts, ends []int64
	complete     []bool
}

// timesliceBoundaries is _compute_timeslice_boundaries: starts every
// width from start while < end, ends clipped to end, a clipped slice
// marked incomplete. ok is false when no slice fits.
func timesliceBoundaries(start, end int64, sliceSec float64) (sliceGrid, bool) {
	size := int64(sliceSec * 1e9) // Python int(): truncates
	var g sliceGrid
	if size <= 0 {
		return g, false
	}
	for t := start; t < end; t += size {
		e := t + size
		g.starts = append(g.starts, t)
		g.complete = append(g.complete, e <= end)
		g.ends = append(g.ends, min(e, end))
	}
	return g, len(g.starts) > 0
}

// grid is the slice grid for sr over w: [first, last] in-window sample,
// the end bumped past the start when they coincide (AIPerf's phase filter).
func (sr *series) grid(w Window, sliceSec float64) (sliceGrid, bool) {
	lo, hi := sr.inWindow(w)
	if lo >= hi {
		return sliceGrid{}, false
	}
	start, end := sr.ts[lo], sr.ts[hi-1]
	if end <= start {
		end = start + 1
	}
	return timesliceBoundaries(start, end, sliceSec)
}

// lastAtOrBefore is numpy searchsorted(ts, t, side="right") - 1 clipped to
// [0, len(ts)-1].
func lastAtOrBefore(ts []int64, t int64) int {
	i := sort.Search(len(ts), func(i int) bool { return ts[i] > t }) - 1
	return max(0, min(i, len(ts)-1))
}

// firstAtOrAfter is numpy searchsorted(ts, t, side="left").
func firstAtOrAfter(ts []int64, t int64) int {
	return sort.Search(len(ts), func(i int) bool { return ts[i] >= t })
}

// counterTimeslices is _compute_counter_timeslices: per slice, the value at
// its end minus the value at its start (the last sample at or before each
// boundary, the baseline sample included), floored at 0, per second.
func (sr *series) counterTimeslices(w Window, sliceSec float64) []sdk.ServerMetricTimeslice {
	lo, hi := sr.inWindow(w)
	if lo >= hi {
		return nil
	}
	first := lo
	if sr.refIdx(w) >= 0 {
		first = lo - 1
	}
	ts, vals := sr.ts[first:hi], sr.vals[first:hi]
	if len(ts) < 2 {
		return nil
	}
	g, ok := sr.grid(w, sliceSec)
	if !ok {
		return nil
	}
	out := make([]sdk.ServerMetricTimeslice, len(g.starts))
	for i := range g.starts {
		d := math.Max(vals[lastAtOrBefore(ts, g.ends[i])]-vals[lastAtOrBefore(ts, g.starts[i])], 0)
		sl := sdk.ServerMetricTimeslice{StartNs: g.starts[i], EndNs: g.ends[i], Partial: !g.complete[i], Total: d}
		if dur := float64(g.ends[i]-g.starts[i]) / 1e9; dur > 0 {
			sl.Rate = d / dur
		}
		out[i] = sl
	}
	return out
}

// counterRateStats fills rate_avg/min/max/std from the complete slices'
// rates (numpy mean, min, max, std ddof=1; 0 for one slice).
func counterRateStats(c *sdk.CounterStats, slices []sdk.ServerMetricTimeslice) {
	var rates []float64
	for _, s := range slices {
		if !s.Partial {
			rates = append(rates, s.Rate)
		}
	}
	if len(rates) == 0 {
		return
	}
	lo, hi := rates[0], rates[0]
	for _, r := range rates {
		lo, hi = math.Min(lo, r), math.Max(hi, r)
	}
	std := 0.0
	if len(rates) > 1 {
		std = stdDDOF1(rates)
	}
	c.RateAvg, c.RateMin, c.RateMax, c.RateStd = ptr(mean(rates)), ptr(lo), ptr(hi), ptr(std)
}

// gaugeTimeslices is _compute_gauge_timeslices: avg/min/max of the samples
// in [start, end) of each slice (the last slice also takes a sample at its
// end); slices without samples are left out; nil for under 2 samples.
func (sr *series) gaugeTimeslices(w Window, sliceSec float64) []sdk.ServerMetricTimeslice {
	lo, hi := sr.inWindow(w)
	if hi-lo < 2 {
		return nil
	}
	ts, vals := sr.ts[lo:hi], sr.vals[lo:hi]
	g, ok := sr.grid(w, sliceSec)
	if !ok {
		return nil
	}
	var out []sdk.ServerMetricTimeslice
	for i := range g.starts {
		a, b := firstAtOrAfter(ts, g.starts[i]), firstAtOrAfter(ts, g.ends[i])
		if i == len(g.starts)-1 && g.ends[i] == ts[len(ts)-1] {
			b = len(ts)
		}
		if a >= b {
			continue
		}
		v := vals[a:b]
		sl := sdk.ServerMetricTimeslice{StartNs: g.starts[i], EndNs: g.ends[i], Partial: !g.complete[i], Avg: mean(v), Min: v[0], Max: v[0]}
		for _, x := range v {
			sl.Min, sl.Max = math.Min(sl.Min, x), math.Max(sl.Max, x)
		}
		out = append(out, sl)
	}
	return out
}

// histogramTimeslices is _compute_histogram_timeslices: count, sum and
// bucket deltas between the samples at each slice's boundaries; a slice
// whose count or sum went backwards is left out, its buckets dropped when
// one did.
func (sr *series) histogramTimeslices(w Window, sliceSec float64) []sdk.ServerMetricTimeslice {
	final := sr.finalIdx(w)
	if final < 0 {
		return nil
	}
	if final <= max(sr.refIdx(w), 0) {
		return nil
	}
	g, ok := sr.grid(w, sliceSec)
	if !ok {
		return nil
	}
	var out []sdk.ServerMetricTimeslice
	for i := range g.starts {
		a, b := lastAtOrBefore(sr.ts, g.starts[i]), lastAtOrBefore(sr.ts, g.ends[i])
		sum, count := sr.sums[b]-sr.sums[a], sr.counts[b]-sr.counts[a]
		if sum < 0 || count < 0 {
			continue
		}
		sl := sdk.ServerMetricTimeslice{StartNs: g.starts[i], EndNs: g.ends[i], Partial: !g.complete[i],
			Count: int64(count), Sum: sum}
		if count > 0 {
			sl.Avg = sum / count
		}
		for j, le := range sr.les {
			d := sr.buckets[b][j] - sr.buckets[a][j]
			if d < 0 {
				sl.Buckets = nil
				break
			}
			sl.Buckets = append(sl.Buckets, sdk.HistogramBucket{Le: le, Count: math.Trunc(d)})
		}
		out = append(out, sl)
	}
	return out
}
