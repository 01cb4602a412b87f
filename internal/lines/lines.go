// Package lines splits a byte stream, written in arbitrary pieces, into
// lines: how plugin output (gRPC processes, WASM guests) reaches the log one
// record per line, and how a local shard's stderr gives its last line.
package lines

import (
	"bytes"
	"sync"
)

// Splitter buffers a partial line between writes. It is safe for concurrent
// use; the zero value is ready.
type Splitter struct {
	mu  sync.Mutex
	buf []byte
}

// Write appends p and calls emit for every complete line (without its "\n"
// or "\r\n"). An unterminated line reaching max bytes is emitted as is, so a
// writer that never prints a newline cannot grow memory.
func (s *Splitter) Write(p []byte, max int, emit func(line []byte)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = append(s.buf, p...)
	for {
		i := bytes.IndexByte(s.buf, '\n')
		if i < 0 {
			break
		}
		emit(bytes.TrimRight(s.buf[:i], "\r"))
		s.buf = s.buf[i+1:]
	}
	if len(s.buf) >= max {
		emit(s.buf)
		s.buf = s.buf[:0]
	}
	if len(s.buf) == 0 {
		s.buf = nil // release a grown backing array
	}
}

// Flush emits a pending unterminated line.
func (s *Splitter) Flush(emit func(line []byte)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.buf) > 0 {
		emit(bytes.TrimRight(s.buf, "\r"))
		s.buf = nil
	}
}

// Pending is the unterminated line buffered so far (a copy; nil when none).
func (s *Splitter) Pending() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.buf)
}
