// Package streamfile is the streaming-file machinery shared by the
// per-request exporters: a file written through a 64 KiB buffer that is
// flushed every N records and by a background timer, with the first write
// error latched and returned by every later call.
package streamfile

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// BufferSize is the size of the write buffer in front of the file.
const BufferSize = 64 << 10

// Writer streams lines to a file. Write and Close are safe for concurrent
// use; errors are prefixed with the owner's name (e.g. "rawexport").
type Writer struct {
	prefix       string
	path         string
	flushRecords int

	mu      sync.Mutex
	file    *os.File
	bw      *bufio.Writer
	pending int
	closed  bool
	err     error // first write error; later writes return it

	stop chan struct{}
	done chan struct{}
}

// Open creates (truncating) the file at path, and its directory, and starts
// the timer flush: buffered data reaches the file after at most
// flushInterval or flushRecords records, whichever comes first.
func Open(prefix, path string, flushInterval time.Duration, flushRecords int) (*Writer, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("%s: create directory for %s: %w", prefix, path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%s: create %s: %w", prefix, path, err)
	}
	w := &Writer{
		prefix:       prefix,
		path:         path,
		flushRecords: flushRecords,
		file:         f,
		bw:           bufio.NewWriterSize(f, BufferSize),
		stop:         make(chan struct{}),
		done:         make(chan struct{}),
	}
	go w.flushLoop(flushInterval)
	return w, nil
}

// Path is the file's path.
func (w *Writer) Path() string { return w.path }

// Write appends one record's line and flushes when flushRecords records are
// pending. It returns the first error met, if any. It does not allocate.
// The owner must not call Write after Close.
func (w *Writer) Write(line []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if _, err := w.bw.Write(line); err != nil {
		w.err = fmt.Errorf("%s: write %s: %w", w.prefix, w.path, err)
		return w.err
	}
	w.pending++
	if w.pending >= w.flushRecords {
		return w.flushLocked()
	}
	return nil
}

// Close stops the timer flush, flushes what is buffered and closes the
// file. Later calls return nil.
func (w *Writer) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	w.mu.Unlock()

	close(w.stop)
	<-w.done // the flusher takes w.mu, so wait for it outside the lock

	w.mu.Lock()
	defer w.mu.Unlock()
	flushErr := w.flushLocked()
	if err := w.file.Close(); err != nil && flushErr == nil {
		flushErr = fmt.Errorf("%s: close %s: %w", w.prefix, w.path, err)
	}
	return flushErr
}

func (w *Writer) flushLoop(interval time.Duration) {
	defer close(w.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			w.mu.Lock()
			if w.pending > 0 && w.err == nil {
				_ = w.flushLocked() // the error is kept in w.err for the next caller
			}
			w.mu.Unlock()
		}
	}
}

func (w *Writer) flushLocked() error {
	if w.err != nil {
		return w.err
	}
	w.pending = 0
	if err := w.bw.Flush(); err != nil {
		w.err = fmt.Errorf("%s: flush %s: %w", w.prefix, w.path, err)
		return w.err
	}
	return nil
}
