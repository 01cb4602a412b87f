package app

import (
	"fmt"
	"io"
	"sync"
)

// LogGate is the stderr side of the run's log. While a UI holds the whole
// terminal (sdk.TerminalUI) it keeps the lines, up to a bound, and writes
// them when the UI is gone; the log file gets every line at once.
type LogGate struct {
	mu      sync.Mutex
	w       io.Writer
	held    bool
	lines   [][]byte
	size    int
	dropped int
}

// maxHeldBytes bounds what a held gate keeps; later lines are counted and
// named in one line pointing at the log file.
const maxHeldBytes = 1 << 20

// NewLogGate writes through to w until Hold.
func NewLogGate(w io.Writer) *LogGate { return &LogGate{w: w} }

// Write implements io.Writer; slog handlers write one record per call.
func (g *LogGate) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.held {
		return g.w.Write(p)
	}
	if g.size+len(p) > maxHeldBytes {
		g.dropped++
		return len(p), nil
	}
	g.lines = append(g.lines, append([]byte(nil), p...))
	g.size += len(p)
	return len(p), nil
}

// Hold keeps lines from now on.
func (g *LogGate) Hold() {
	g.mu.Lock()
	g.held = true
	g.mu.Unlock()
}

// Release writes the kept lines, in order, and writes through again.
func (g *LogGate) Release(logFile string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.held {
		return
	}
	g.held = false
	for _, l := range g.lines {
		_, _ = g.w.Write(l)
	}
	if g.dropped > 0 {
		fmt.Fprintf(g.w, "(%d more log lines while the dashboard ran are in %s)\n", g.dropped, logFile)
	}
	g.lines, g.size, g.dropped = nil, 0, 0
}
