package metrics

import sdk "github.com/aiperf-go/aiperf/plugin-sdk"

// Chunk sizes of a series: the first chunk is small for short runs, later
// ones double up to maxChunk values (128 KiB, what a spilling series keeps
// in memory). Variables so tests can spill small series.
var (
	firstChunk = 1024
	maxChunk   = 16 * 1024
)

// series is a growable array of exact float64 values stored in chunks.
// Appending never copies earlier values (a single contiguous slice would be
// reallocated and copied, page faults included, every time it outgrew its
// capacity), which keeps Add cheap on runs with tens of millions of values.
// With a spill store, every full chunk of maxChunk values goes to disk, so
// a series holds at most one chunk in memory however long the run.
type series struct {
	chunks []chunk
	n      int
	sp     *spill
}

// chunk is a run of values in memory, or on disk when spilled.
type chunk struct {
	vals    []float64
	ref     spillRef
	spilled bool
}

func (c *chunk) len() int {
	if c.spilled {
		return c.ref.n
	}
	return len(c.vals)
}

// add appends one value.
func (s *series) add(x float64) {
	last := s.tail()
	*last = append(*last, x)
	s.n++
}

// addAll appends every value of xs.
func (s *series) addAll(xs []float64) {
	for len(xs) > 0 {
		last := s.tail()
		room := cap(*last) - len(*last)
		k := min(room, len(xs))
		*last = append(*last, xs[:k]...)
		s.n += k
		xs = xs[k:]
	}
}

// tail returns the last chunk's values, starting a new chunk when it is
// full (and spilling the full one when it is maxChunk long).
func (s *series) tail() *[]float64 {
	if len(s.chunks) > 0 {
		if last := &s.chunks[len(s.chunks)-1]; !last.spilled && len(last.vals) < cap(last.vals) {
			return &last.vals
		}
	}
	size := firstChunk
	if k := len(s.chunks); k > 0 {
		last := &s.chunks[k-1]
		size = min(2*max(last.len(), firstChunk/2), maxChunk)
		if s.sp != nil && !last.spilled && len(last.vals) == maxChunk {
			if ref, ok := s.sp.write(last.vals); ok {
				*last = chunk{ref: ref, spilled: true}
			}
		}
	}
	s.chunks = append(s.chunks, chunk{vals: make([]float64, 0, size)})
	return &s.chunks[len(s.chunks)-1].vals
}

// at returns chunk i's values: in memory, or read back into scratch (which
// must hold maxChunk values) when spilled.
func (s *series) at(i int, scratch []float64) []float64 {
	c := &s.chunks[i]
	if !c.spilled {
		return c.vals
	}
	dst := scratch[:c.ref.n]
	s.sp.read(c.ref, dst)
	return dst
}

// each passes every chunk's values to fn in order.
func (s *series) each(fn func([]float64)) {
	var scratch []float64
	for i := range s.chunks {
		if s.chunks[i].spilled && scratch == nil {
			scratch = make([]float64, maxChunk)
		}
		fn(s.at(i, scratch))
	}
}

// addValue appends a record's value: one scalar or a whole list.
func (s *series) addValue(mv sdk.MetricValue) {
	if mv.IsList {
		s.addAll(mv.List)
		return
	}
	s.add(mv.Scalar)
}

// len is the number of values.
func (s *series) len() int { return s.n }

// sum adds every value in insertion order.
func (s *series) sum() float64 {
	total := 0.0
	s.each(func(c []float64) {
		for _, x := range c {
			total += x
		}
	})
	return total
}

// values copies every value into one new slice (for sorting).
func (s *series) values() []float64 {
	out := make([]float64, 0, s.n)
	s.each(func(c []float64) { out = append(out, c...) })
	return out
}
