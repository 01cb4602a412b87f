package metrics

import (
	"math"
	"math/bits"
	"slices"
)

// This file lays AIPerf 0.13's timeslice grid over the records and splits
// the series' values among the slices (timeslice.go uses both).

// sliceGrid is the grid over the records: windows of the slice duration
// from the first request_start_ns, as float64 epoch ns like AIPerf's numpy
// columns, spanning to the last request_start_ns or request_end_ns. A
// record belongs to the window it started in (np.digitize); windows
// without a record are dropped.
type sliceGrid struct {
	// of is, per record in Add order, its window's index in windows; -1
	// for a record without a start.
	of      []int32
	windows []sliceWindow
}

// sliceWindow is one non-empty window.
type sliceWindow struct {
	// w0 and w1 are its float bounds, which the sweep statistics read.
	w0, w1 float64
	// startNs and endNs are int(w0) and int(w1): the exported bounds and
	// the throughputs' window.
	startNs, endNs int64
	// partial: the last window, clipped to the run's end.
	partial bool
}

// buildSliceGrid is the grid of _compute_timeslices: edge i is
// first start + i × duration, the last window's end is clipped to the run's
// end (and marked partial when that cut it short).
func buildSliceGrid(recs []sliceRec, durNs int64) sliceGrid {
	first, last, ok := recordSpan(recs)
	if !ok || durNs <= 0 {
		return sliceGrid{}
	}
	edge := func(i int64) float64 { return first + float64(i*durNs) }
	n := int64((last-first)/float64(durNs)) + 1
	bins := make([]int64, len(recs))
	for i := range recs {
		bins[i] = -1
		if recs[i].start != 0 {
			bins[i] = gridBin(float64(recs[i].start), edge, durNs, n)
		}
	}
	used := usedBins(bins)
	g := sliceGrid{of: make([]int32, len(recs)), windows: make([]sliceWindow, len(used))}
	for k, b := range used {
		w := sliceWindow{w0: edge(b), w1: edge(b + 1)}
		if w.w1 > last {
			w.w1, w.partial = last, true
		}
		w.startNs, w.endNs = int64(w.w0), int64(w.w1)
		g.windows[k] = w
	}
	for i, b := range bins {
		g.of[i] = -1
		if b >= 0 {
			k, _ := slices.BinarySearch(used, b)
			g.of[i] = int32(k)
		}
	}
	return g
}

// recordSpan is the first request_start_ns and the last request_start_ns
// or request_end_ns of the records that have a start, as float64.
func recordSpan(recs []sliceRec) (first, last float64, ok bool) {
	first, last = math.Inf(1), math.Inf(-1)
	for i := range recs {
		r := &recs[i]
		if r.start == 0 {
			continue
		}
		ok = true
		first = min(first, float64(r.start))
		last = max(last, float64(r.start))
		if r.end != 0 {
			last = max(last, float64(r.end))
		}
	}
	return first, last, ok
}

// gridBin is np.digitize(x, edges) - 1 over the n + 1 edges: the i with
// edge(i) <= x < edge(i + 1), found from the quotient and corrected for its
// rounding; -1 past the last edge.
func gridBin(x float64, edge func(int64) float64, durNs, n int64) int64 {
	i := max(int64((x-edge(0))/float64(durNs)), 0)
	for i > 0 && edge(i) > x {
		i--
	}
	for edge(i+1) <= x {
		i++
	}
	if i >= n {
		return -1
	}
	return i
}

// usedBins are the distinct non-negative bins, ascending.
func usedBins(bins []int64) []int64 {
	used := make([]int64, 0, len(bins))
	for _, b := range bins {
		if b >= 0 {
			used = append(used, b)
		}
	}
	slices.Sort(used)
	return slices.Compact(used)
}

// bitset is a growable set of small non-negative integers.
type bitset []uint64

func (b *bitset) set(i int) {
	w := i / 64
	if w >= len(*b) {
		*b = append(*b, make([]uint64, w+1-len(*b))...)
	}
	(*b)[w] |= 1 << (i % 64)
}

func (b bitset) has(i int) bool {
	w := i / 64
	return w < len(b) && b[w]&(1<<(i%64)) != 0
}

// valueOwners says which records added a series' values, in order: bit r
// of added is set when record r added values, and the records that did not
// add exactly one (lists) are in multi with their counts in counts. A
// scalar metric costs one bit per record.
type valueOwners struct {
	added, multi bitset
	counts       []int32
}

// note records that record rec added n values.
func (o *valueOwners) note(rec, n int) {
	o.added.set(rec)
	if n != 1 {
		o.multi.set(rec)
		o.counts = append(o.counts, int32(n))
	}
}

// each calls fn with every record that added values and how many, in
// record order (the order of the values in the series).
func (o *valueOwners) each(fn func(rec, n int)) {
	j := 0
	for w, word := range o.added {
		for word != 0 {
			rec := w*64 + bits.TrailingZeros64(word)
			word &= word - 1
			n := 1
			if o.multi.has(rec) {
				n = int(o.counts[j])
				j++
			}
			fn(rec, n)
		}
	}
}

// partition splits s's values among the windows their records fall in (of,
// by record), keeping their order; the parts share one buffer.
func partition(s *series, o *valueOwners, of []int32, nWindows int) [][]float64 {
	sizes := make([]int, nWindows)
	o.each(func(rec, n int) {
		if k := of[rec]; k >= 0 {
			sizes[k] += n
		}
	})
	total := 0
	for _, n := range sizes {
		total += n
	}
	buf := make([]float64, total)
	parts := make([][]float64, nWindows)
	off := 0
	for k, n := range sizes {
		parts[k] = buf[off : off : off+n]
		off += n
	}
	cur := seriesCursor{s: s}
	o.each(func(rec, n int) {
		k := of[rec]
		cur.next(n, func(vals []float64) {
			if k >= 0 {
				parts[k] = append(parts[k], vals...)
			}
		})
	})
	return parts
}

// seriesCursor reads a series' values in order.
type seriesCursor struct {
	s          *series
	chunk, off int
	cur        []float64 // chunk's values (read back when spilled)
	loaded     bool
	scratch    []float64
}

// next passes the next n values to fn, a contiguous run at a time (they
// may span chunks).
func (c *seriesCursor) next(n int, fn func([]float64)) {
	for n > 0 && c.chunk < len(c.s.chunks) {
		if !c.loaded {
			if c.s.chunks[c.chunk].spilled && c.scratch == nil {
				c.scratch = make([]float64, maxChunk)
			}
			c.cur, c.loaded = c.s.at(c.chunk, c.scratch), true
		}
		k := min(n, len(c.cur)-c.off)
		fn(c.cur[c.off : c.off+k])
		c.off += k
		n -= k
		if c.off == len(c.cur) {
			c.chunk, c.off, c.loaded = c.chunk+1, 0, false
		}
	}
}
