package metrics

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"sync"
)

// spill keeps the full chunks of a run's series on disk: a run of a
// million requests holds about 35 values per request, 280 MB as float64,
// which the accumulator otherwise keeps in memory until the end. Spilled
// chunks are written once, sequentially, and read back once per statistic
// at the end of the run, one chunk (128 KiB) at a time.
//
// The file is created on the first spill, in the run's artifact directory
// (where the run already writes), and unlinked at once where the system
// allows, so it never outlives the process. Writing is done by the
// accumulator's single goroutine; reads use ReadAt and may run in parallel.
type spill struct {
	dir string

	mu   sync.Mutex
	f    *os.File
	size int64
	wbuf []byte // the encoding of the chunk being written
	// off is set when writing failed once: spilling stops and chunks stay
	// in memory (nothing is lost, memory grows as it did before).
	off bool
	// readErr is the first failed read back, reported by Accumulator.Err.
	readErr error
}

// readBufs are the byte buffers chunks are read back through (128 KiB).
var readBufs sync.Pool

// spillRef is where a chunk lives in the file.
type spillRef struct {
	at int64
	n  int
}

func newSpill(dir string) *spill { return &spill{dir: dir} }

// write appends vals and returns where they are; ok is false when the
// chunk must stay in memory.
func (s *spill) write(vals []float64) (spillRef, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.off {
		return spillRef{}, false
	}
	if s.f == nil {
		f, err := os.CreateTemp(s.dir, ".aiperf-series-*")
		if err != nil {
			s.off = true
			return spillRef{}, false
		}
		// Unlinked while open: the data stays until the process closes it.
		_ = os.Remove(f.Name())
		s.f = f
	}
	if cap(s.wbuf) < 8*len(vals) {
		s.wbuf = make([]byte, 8*len(vals))
	}
	buf := s.wbuf[:8*len(vals)]
	for i, v := range vals {
		binary.LittleEndian.PutUint64(buf[8*i:], math.Float64bits(v))
	}
	if _, err := s.f.WriteAt(buf, s.size); err != nil {
		s.off = true
		return spillRef{}, false
	}
	ref := spillRef{at: s.size, n: len(vals)}
	s.size += int64(len(buf))
	return ref, true
}

// read fills dst (len ref.n) with a spilled chunk. A failed read leaves NaN
// and is remembered for Err: the statistics of that run cannot be trusted.
func (s *spill) read(ref spillRef, dst []float64) {
	bp, _ := readBufs.Get().(*[]byte)
	if bp == nil || cap(*bp) < 8*ref.n {
		b := make([]byte, 8*ref.n)
		bp = &b
	}
	defer readBufs.Put(bp)
	buf := (*bp)[:8*ref.n]
	s.mu.Lock()
	f := s.f
	s.mu.Unlock()
	var err error
	if f == nil {
		err = errors.New("no spill file")
	} else {
		_, err = f.ReadAt(buf, ref.at)
	}
	if err != nil {
		s.mu.Lock()
		if s.readErr == nil {
			s.readErr = fmt.Errorf("metrics: reading back %d values spilled to disk: %w", ref.n, err)
		}
		s.mu.Unlock()
		for i := range dst {
			dst[i] = math.NaN()
		}
		return
	}
	for i := range dst {
		dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(buf[8*i:]))
	}
}

// err is the first failed read back.
func (s *spill) err() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.readErr
}

// close releases the file.
func (s *spill) close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f != nil {
		name := s.f.Name()
		s.f.Close()
		_ = os.Remove(name) // where unlinking an open file failed
		s.f = nil
	}
}
