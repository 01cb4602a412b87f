package wasmloader

import (
	"context"
	"log/slog"

	"github.com/aiperf-go/aiperf/internal/lines"
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
	split  lines.Splitter
}

func (w *lineLogger) Write(p []byte) (int, error) {
	w.split.Write(p, maxLine, w.emit)
	return len(p), nil
}

func (w *lineLogger) flush() { w.split.Flush(w.emit) }

func (w *lineLogger) emit(line []byte) {
	w.log.Log(context.Background(), w.level, "plugin output", "plugin", w.plugin, "stream", w.stream, "line", string(line))
}
