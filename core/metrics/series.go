package metrics

import sdk "github.com/aiperf-go/aiperf/plugin-sdk"

// Chunk sizes of a series: the first chunk is small for short runs, later
// ones double up to maxChunk values (512 KiB).
const (
	firstChunk = 1024
	maxChunk   = 64 * 1024
)

// series is a growable array of exact float64 values stored in chunks.
// Appending never copies earlier values (a single contiguous slice would be
// reallocated and copied, page faults included, every time it outgrew its
// capacity), which keeps Add cheap on runs with tens of millions of values.
type series struct {
	chunks [][]float64
	n      int
}

// add appends one value.
func (s *series) add(x float64) {
	last := s.tail()
	s.chunks[len(s.chunks)-1] = append(last, x)
	s.n++
}

// addAll appends every value of xs.
func (s *series) addAll(xs []float64) {
	for len(xs) > 0 {
		last := s.tail()
		room := cap(last) - len(last)
		k := min(room, len(xs))
		s.chunks[len(s.chunks)-1] = append(last, xs[:k]...)
		s.n += k
		xs = xs[k:]
	}
}

// tail returns the last chunk, starting a new one when it is full.
func (s *series) tail() []float64 {
	if len(s.chunks) > 0 {
		if last := s.chunks[len(s.chunks)-1]; len(last) < cap(last) {
			return last
		}
	}
	size := firstChunk
	if len(s.chunks) > 0 {
		size = min(2*cap(s.chunks[len(s.chunks)-1]), maxChunk)
	}
	s.chunks = append(s.chunks, make([]float64, 0, size))
	return s.chunks[len(s.chunks)-1]
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
	for _, c := range s.chunks {
		for _, x := range c {
			total += x
		}
	}
	return total
}

// values copies every value into one new slice (for sorting).
func (s *series) values() []float64 {
	out := make([]float64, 0, s.n)
	for _, c := range s.chunks {
		out = append(out, c...)
	}
	return out
}
