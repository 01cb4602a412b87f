package wasmloader

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
)

// maxLine bounds a buffered output line, so a guest printing without
// newlines cannot grow host memory.
const maxLine = 16 << 10

// lineLogger forwards a guest's stdout or stderr to the log, one record per
// line, tagged with the plugin's name.
type lineLogger struct {
	log    *slog.Logger
	plugin string
	stream string
	level  slog.Level

	mu  sync.Mutex
	buf []byte
}

func (w *lineLogger) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.emit(w.buf[:i])
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) >= maxLine {
		w.emit(w.buf)
		w.buf = w.buf[:0]
	}
	if len(w.buf) == 0 {
		w.buf = nil // drop the consumed backing array
	}
	return len(p), nil
}

func (w *lineLogger) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.emit(w.buf)
		w.buf = nil
	}
}

func (w *lineLogger) emit(line []byte) {
	w.log.Log(context.Background(), w.level, "plugin output", "plugin", w.plugin, "stream", w.stream, "line", string(bytes.TrimRight(line, "\r")))
}
