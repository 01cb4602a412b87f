package metrics

import (
	"math"
	"sort"
)

// This file holds AIPerf 0.13's sweep-line machinery (aiperf/analysis/
// sweepline.py, sweepline_kv_cache.py, sweepline_stats.py) that the sweep
// metrics (sweep.go) are computed with: step functions built from
// (timestamp, delta) events, their quotient, and time-weighted statistics
// over a window. Every step mirrors the numpy code operation for operation
// (same event order, same float64 operations, numpy's pairwise summation),
// so the statistics come out bit for bit as AIPerf's for the same inputs.

// stepFn is a step function: vals[i] holds from ts[i] until ts[i+1] (the
// last one to the end of time), 0 before ts[0]. ts is ascending; equal
// timestamps may repeat, the last of them carrying the value that holds.
type stepFn struct{ ts, vals []float64 }

// sweepEvent is one (timestamp, delta) event of a sweep.
type sweepEvent struct{ ts, d float64 }

// sweepLine sorts events by timestamp, ends before starts at equal
// timestamps (an event with d > 0 is a start), then by position in ev
// (numpy's stable lexsort), and returns the running sum of the deltas with
// values within 1e-9 of the largest magnitude snapped to 0
// (_sweep_line_cumsum). ev is reordered; buf is scratch space that may be
// reused between calls.
func sweepLine(ev []sweepEvent, buf *[]sweepEvent) stepFn {
	n := len(ev)
	if n == 0 {
		return stepFn{}
	}
	if cap(*buf) < n {
		*buf = make([]sweepEvent, n)
	}
	sorted := radixSortEvents(ev, (*buf)[:n], true)

	f := stepFn{ts: make([]float64, n), vals: make([]float64, n)}
	acc, maxAbs, hasNaN := 0.0, 0.0, false
	for i, e := range sorted {
		if i == 0 {
			acc = e.d // np.cumsum starts from the first delta itself
		} else {
			acc += e.d
		}
		f.ts[i], f.vals[i] = e.ts, acc
		if math.IsNaN(acc) {
			hasNaN = true
		} else if a := math.Abs(acc); a > maxAbs {
			maxAbs = a
		}
	}
	// np.max of an array holding NaN is NaN, and NaN > 0 is false: no snap.
	if !hasNaN && maxAbs > 0 {
		thr := 1e-9 * maxAbs
		for i, v := range f.vals {
			if math.Abs(v) < thr {
				f.vals[i] = 0
			}
		}
	}
	return f
}

// floatKey maps a float64 to a uint64 whose unsigned order is the numeric
// order (-0 and +0 share a key, as they compare equal in numpy).
func floatKey(x float64) uint64 {
	if x == 0 {
		x = 0 // -0 -> +0
	}
	b := math.Float64bits(x)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// Radix sort digits: 6 of 11 bits cover a key.
const (
	radixBits   = 11
	radixDigits = (64 + radixBits - 1) / radixBits
	radixMask   = 1<<radixBits - 1
)

// eventType is 1 for a start (d > 0), 0 for an end.
func eventType(e sweepEvent) uint64 {
	if e.d > 0 {
		return 1
	}
	return 0
}

// radixSortEvents sorts src stably by timestamp, with byType by
// (timestamp, ends first) (LSD radix sort; the first pass sorts by the
// lowest digit and the type together, later passes are skipped where every
// key has the same digit). dst is scratch of the same length; the result is
// in whichever of the two it returns.
func radixSortEvents(src, dst []sweepEvent, byType bool) []sweepEvent {
	n := len(src)
	if n < 64 {
		// Insertion sort: stable, and cheaper than the histograms.
		less := func(a, b sweepEvent) bool {
			ka, kb := floatKey(a.ts), floatKey(b.ts)
			return ka < kb || byType && ka == kb && eventType(a) < eventType(b)
		}
		for i := 1; i < n; i++ {
			e := src[i]
			j := i
			for ; j > 0 && less(e, src[j-1]); j-- {
				src[j] = src[j-1]
			}
			src[j] = e
		}
		return src
	}
	// Histograms of every digit in one pass; digit 0 carries the type as
	// its lowest bit when sorting by type.
	var first [2 << radixBits]int
	var count [radixDigits][1 << radixBits]int
	for _, e := range src {
		k := floatKey(e.ts)
		d0 := k & radixMask
		if byType {
			d0 = d0<<1 | eventType(e)
		}
		first[d0]++
		for d := 1; d < radixDigits; d++ {
			count[d][(k>>(radixBits*d))&radixMask]++
		}
	}
	for d := range radixDigits {
		c := count[d][:]
		if d == 0 {
			c = first[:]
		}
		shift := uint(radixBits * d)
		typed := d == 0 && byType
		digit := func(e sweepEvent) uint64 {
			b := (floatKey(e.ts) >> shift) & radixMask
			if typed {
				b = b<<1 | eventType(e)
			}
			return b
		}
		if c[digit(src[0])] == n {
			continue // every key has this digit: the pass would not move anything
		}
		sum := 0
		for i := range c {
			c[i], sum = sum, sum+c[i]
		}
		// The scatter loops are spelled out: a call per event costs more
		// than the pass itself.
		if typed {
			for _, e := range src {
				b := (floatKey(e.ts)&radixMask)<<1 | eventType(e)
				dst[c[b]] = e
				c[b]++
			}
		} else {
			for _, e := range src {
				b := (floatKey(e.ts) >> shift) & radixMask
				dst[c[b]] = e
				c[b]++
			}
		}
		src, dst = dst, src
	}
	return src
}

// divideSteps is divide_step_functions: num/den on the union of their
// timestamps, 0 where den <= 0; empty when either is.
func divideSteps(num, den stepFn) stepFn {
	if len(num.ts) == 0 || len(den.ts) == 0 {
		return stepFn{}
	}
	merged := mergeUnique(nil, num.ts, den.ts)
	out := make([]float64, len(merged))
	i, j := 0, 0
	for k, q := range merged {
		for i < len(num.ts) && num.ts[i] <= q {
			i++
		}
		for j < len(den.ts) && den.ts[j] <= q {
			j++
		}
		nv, dv := 0.0, 0.0
		if i > 0 {
			nv = num.vals[i-1]
		}
		if j > 0 {
			dv = den.vals[j-1]
		}
		if dv > 0 {
			out[k] = nv / dv
		}
	}
	return stepFn{ts: merged, vals: out}
}

// mergeUnique appends to dst the sorted union of two ascending slices
// without repeated values (np.unique of their concatenation).
func mergeUnique(dst, a, b []float64) []float64 {
	push := func(x float64) {
		if len(dst) == 0 || dst[len(dst)-1] != x {
			dst = append(dst, x)
		}
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i] <= b[j] {
			push(a[i])
			i++
		} else {
			push(b[j])
			j++
		}
	}
	for ; i < len(a); i++ {
		push(a[i])
	}
	for ; j < len(b); j++ {
		push(b[j])
	}
	return dst
}

// searchRight is np.searchsorted(ts, x, side="right"): how many ts <= x.
func searchRight(ts []float64, x float64) int {
	return sort.Search(len(ts), func(i int) bool { return ts[i] > x })
}

// searchLeft is np.searchsorted(ts, x, side="left"): how many ts < x.
func searchLeft(ts []float64, x float64) int {
	return sort.Search(len(ts), func(i int) bool { return ts[i] >= x })
}

// sweepStats are AIPerf's SweepLineStats, in the step function's unit.
type sweepStats struct{ avg, min, max, p50, p90, p95, p99, std float64 }

// sweepWork is scratch space the statistics reuse from one curve to the
// next.
type sweepWork struct {
	grid, prod  []float64
	pairs, pbuf []sweepEvent
}

// reuse returns s emptied with room for n values.
func reuse[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, 0, n)
	}
	return s[:0]
}

// timeWeighted is compute_time_weighted_stats: the step function clipped to
// [w0, w1], each value weighted by how long it holds there; avg and std
// divide by the whole window, percentiles come from the duration-weighted
// distribution. Zero stats when the function is empty or the window is not
// positive.
func timeWeighted(f stepFn, w0, w1 float64, w *sweepWork) sweepStats {
	total := w1 - w0
	if len(f.ts) == 0 || total <= 0 {
		return sweepStats{}
	}
	// _build_clipped_segments: the value held at w0, then every event in
	// the window (and the first after it), each segment clipped; the
	// segments that last are kept as (value, duration) pairs.
	lo := max(0, searchRight(f.ts, w0)-1)
	hi := min(len(f.ts), searchLeft(f.ts, w1)+1)
	if hi < lo {
		hi = lo
	}
	segs := reuse(w.pairs, hi-lo+1)
	defer func() { w.pairs = segs }()
	keep := func(start, end, v float64) {
		start, end = max(start, w0), min(end, w1)
		if d := max(end-start, 0); d > 0 {
			segs = append(segs, sweepEvent{ts: v, d: d})
		}
	}
	v0 := 0.0
	if lo > 0 {
		v0 = f.vals[lo-1]
	}
	if hi > lo {
		keep(w0, f.ts[lo], v0)
		for i := lo; i < hi; i++ {
			end := w1
			if i+1 < hi {
				end = f.ts[i+1]
			}
			keep(f.ts[i], end, f.vals[i])
		}
	} else {
		keep(w0, w1, v0)
	}
	if len(segs) == 0 {
		return sweepStats{}
	}
	return weightedStats(segs, total, w)
}

// activeWeighted is compute_active_weighted_stats: time-weighted stats of
// rate over the parts of [w0, w1] where mask > 0, normalised by their total
// duration. Zero stats when either function is empty, the window is not
// positive or mask is never positive in it.
func activeWeighted(rate, mask stepFn, w0, w1 float64, w *sweepWork) sweepStats {
	if w1-w0 <= 0 || len(rate.ts) == 0 || len(mask.ts) == 0 {
		return sweepStats{}
	}
	// _build_active_window_grid: the window's edges and every event of
	// either function strictly inside it.
	inner := func(ts []float64) []float64 {
		lo, hi := searchRight(ts, w0), searchLeft(ts, w1)
		if hi < lo {
			return nil
		}
		return ts[lo:hi]
	}
	grid := append(reuse(w.grid, 2+len(rate.ts)+len(mask.ts)), w0)
	grid = mergeUnique(grid, inner(rate.ts), inner(mask.ts))
	if grid[len(grid)-1] != w1 {
		grid = append(grid, w1)
	}
	w.grid = grid
	if len(grid) < 2 {
		return sweepStats{}
	}
	segs := reuse(w.pairs, len(grid)-1)
	defer func() { w.pairs = segs }()
	ri, mi := 0, 0
	for k := 0; k+1 < len(grid); k++ {
		q := grid[k]
		for ri < len(rate.ts) && rate.ts[ri] <= q {
			ri++
		}
		for mi < len(mask.ts) && mask.ts[mi] <= q {
			mi++
		}
		d := grid[k+1] - q
		if mi == 0 || !(mask.vals[mi-1] > 0) || !(d > 0) {
			continue
		}
		r := 0.0
		if ri > 0 {
			r = rate.vals[ri-1]
		}
		segs = append(segs, sweepEvent{ts: r, d: d})
	}
	if len(segs) == 0 {
		return sweepStats{}
	}
	durs := reuse(w.prod, len(segs))
	for _, sg := range segs {
		durs = append(durs, sg.d)
	}
	w.prod = durs
	active := pairwiseSum(durs)
	if active <= 0 {
		return sweepStats{}
	}
	return weightedStats(segs, active, w)
}

// weightedStats are the statistics of values held for durations (segs:
// value in ts, duration > 0 in d, in time order), avg and std normalised
// by denom: numpy's sum(val*dur)/denom, sqrt(sum(dur*(val-avg)**2)/denom)
// with pairwise sums, and percentiles as the first value whose cumulative
// duration fraction reaches q (searchsorted, side left). segs is sorted
// in place.
func weightedStats(segs []sweepEvent, denom float64, w *sweepWork) sweepStats {
	n := len(segs)
	prod := reuse(w.prod, n)[:n]
	w.prod = prod
	mn, mx := segs[0].ts, segs[0].ts
	for i, sg := range segs {
		prod[i] = sg.ts * sg.d
		mn, mx = math.Min(mn, sg.ts), math.Max(mx, sg.ts)
	}
	avg := pairwiseSum(prod) / denom
	for i, sg := range segs {
		d := sg.ts - avg
		prod[i] = sg.d * (d * d)
	}
	std := math.Sqrt(pairwiseSum(prod) / denom)

	// Sort the segments by value, then accumulate their durations.
	pbuf := reuse(w.pbuf, n)[:n]
	w.pbuf = pbuf
	sorted := radixSortEvents(segs, pbuf, false)
	cum := prod
	acc := 0.0
	for i, p := range sorted {
		if i == 0 {
			acc = p.d
		} else {
			acc += p.d
		}
		cum[i] = acc
	}
	last := cum[n-1]
	pct := func(q float64) float64 {
		i := sort.Search(n, func(i int) bool { return cum[i]/last >= q })
		return sorted[min(i, n-1)].ts
	}
	return sweepStats{
		avg: avg, min: mn, max: mx,
		p50: pct(0.50), p90: pct(0.90), p95: pct(0.95), p99: pct(0.99),
		std: std,
	}
}

// pairwiseSum is numpy's sum of a float64 array (pairwise_sum in
// loops_utils.h, over the whole contiguous array, added to the identity
// 0.0): below 8 values a plain loop, up to 128 eight accumulators, beyond
// that two halves (the first a multiple of 8 long).
func pairwiseSum(a []float64) float64 {
	return 0.0 + pairwise(a)
}

func pairwise(a []float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		res := math.Copysign(0, -1)
		for _, x := range a {
			res += x
		}
		return res
	case n <= 128:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			r[0] += a[i]
			r[1] += a[i+1]
			r[2] += a[i+2]
			r[3] += a[i+3]
			r[4] += a[i+4]
			r[5] += a[i+5]
			r[6] += a[i+6]
			r[7] += a[i+7]
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += a[i]
		}
		return res
	default:
		n2 := n / 2
		n2 -= n2 % 8
		return pairwise(a[:n2]) + pairwise(a[n2:])
	}
}
