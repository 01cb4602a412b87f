package grpcloader

import (
	"context"
	"github.com/aiperf-go/aiperf/internal/lines"
	"io"
	"log"
	"log/slog"
	"strings"

	"github.com/hashicorp/go-hclog"
)

// hclogAdapter forwards go-plugin's logging to slog, tagged with the plugin.
//
// go-plugin logs two things through it: its own lifecycle messages (on the
// root logger) and every line the plugin writes to its stderr file
// descriptor (on a logger Named after the binary). Plain stderr lines arrive
// at Debug level; the stderr logger promotes them to Info because a plugin
// author's output is meant to be seen. Lines the plugin logged through
// hclog in JSON keep their own level. go-plugin's own Info chatter (process
// started, exited cleanly) is demoted to Debug; its warnings and errors
// (a crashed process) stay.
type hclogAdapter struct {
	logger *slog.Logger
	name   string
	stderr bool
	args   []any
}

var _ hclog.Logger = (*hclogAdapter)(nil)

func newHCLogAdapter(l *slog.Logger) *hclogAdapter { return &hclogAdapter{logger: l} }

func slogLevel(l hclog.Level) slog.Level {
	switch l {
	case hclog.Trace:
		return slog.LevelDebug - 4
	case hclog.Debug:
		return slog.LevelDebug
	case hclog.Warn:
		return slog.LevelWarn
	case hclog.Error:
		return slog.LevelError
	default:
		return slog.LevelInfo
	}
}

// Log implements hclog.Logger.
func (a *hclogAdapter) Log(level hclog.Level, msg string, args ...any) {
	if level == hclog.Off {
		return
	}
	lvl := slogLevel(level)
	// An unstructured stderr line (no key/values) that did not ask for
	// debug level is the plugin talking to the user.
	if a.stderr && level == hclog.Debug && len(args) == 0 && !strings.HasPrefix(msg, "[DEBUG]") {
		lvl = slog.LevelInfo
	}
	if !a.stderr && level == hclog.Info {
		lvl = slog.LevelDebug
	}
	ctx := context.Background()
	if !a.logger.Enabled(ctx, lvl) {
		return
	}
	attrs := make([]any, 0, len(a.args)+len(args)+2)
	attrs = append(attrs, a.args...)
	for i := 0; i+1 < len(args); i += 2 {
		// Our handler stamps its own time; the plugin's copy is noise.
		key := args[i]
		switch key {
		case "timestamp":
			continue
		case "plugin":
			key = "binary" // go-plugin's name for the path; ours is the label
		}
		attrs = append(attrs, key, args[i+1])
	}
	if len(args)%2 == 1 {
		attrs = append(attrs, "extra", args[len(args)-1])
	}
	if a.name != "" {
		attrs = append(attrs, "logger", a.name)
	}
	a.logger.Log(ctx, lvl, msg, attrs...)
}

// Trace implements hclog.Logger.
func (a *hclogAdapter) Trace(msg string, args ...any) { a.Log(hclog.Trace, msg, args...) }

// Debug implements hclog.Logger.
func (a *hclogAdapter) Debug(msg string, args ...any) { a.Log(hclog.Debug, msg, args...) }

// Info implements hclog.Logger.
func (a *hclogAdapter) Info(msg string, args ...any) { a.Log(hclog.Info, msg, args...) }

// Warn implements hclog.Logger.
func (a *hclogAdapter) Warn(msg string, args ...any) { a.Log(hclog.Warn, msg, args...) }

// Error implements hclog.Logger.
func (a *hclogAdapter) Error(msg string, args ...any) { a.Log(hclog.Error, msg, args...) }

func (a *hclogAdapter) enabled(l hclog.Level) bool {
	return a.logger.Enabled(context.Background(), slogLevel(l))
}

// IsTrace implements hclog.Logger.
func (a *hclogAdapter) IsTrace() bool { return a.enabled(hclog.Trace) }

// IsDebug implements hclog.Logger.
func (a *hclogAdapter) IsDebug() bool { return a.enabled(hclog.Debug) }

// IsInfo implements hclog.Logger.
func (a *hclogAdapter) IsInfo() bool { return a.enabled(hclog.Info) }

// IsWarn implements hclog.Logger.
func (a *hclogAdapter) IsWarn() bool { return a.enabled(hclog.Warn) }

// IsError implements hclog.Logger.
func (a *hclogAdapter) IsError() bool { return a.enabled(hclog.Error) }

// ImpliedArgs implements hclog.Logger.
func (a *hclogAdapter) ImpliedArgs() []any { return a.args }

// With implements hclog.Logger.
func (a *hclogAdapter) With(args ...any) hclog.Logger {
	c := *a
	c.args = append(append([]any(nil), a.args...), args...)
	return &c
}

// Name implements hclog.Logger.
func (a *hclogAdapter) Name() string { return a.name }

// Named implements hclog.Logger. go-plugin names the stderr logger after
// the binary, which is how the adapter tells stderr lines apart.
func (a *hclogAdapter) Named(name string) hclog.Logger {
	c := *a
	if c.name != "" {
		name = c.name + "." + name
	}
	c.name, c.stderr = name, true
	return &c
}

// ResetNamed implements hclog.Logger.
func (a *hclogAdapter) ResetNamed(name string) hclog.Logger {
	c := *a
	c.name, c.stderr = name, true
	return &c
}

// SetLevel implements hclog.Logger; the slog handler owns the level.
func (a *hclogAdapter) SetLevel(hclog.Level) {}

// GetLevel implements hclog.Logger.
func (a *hclogAdapter) GetLevel() hclog.Level {
	for _, l := range []hclog.Level{hclog.Trace, hclog.Debug, hclog.Info, hclog.Warn, hclog.Error} {
		if a.enabled(l) {
			return l
		}
	}
	return hclog.Off
}

// StandardLogger implements hclog.Logger.
func (a *hclogAdapter) StandardLogger(opts *hclog.StandardLoggerOptions) *log.Logger {
	return log.New(a.StandardWriter(opts), "", 0)
}

// StandardWriter implements hclog.Logger.
func (a *hclogAdapter) StandardWriter(*hclog.StandardLoggerOptions) io.Writer {
	return &lineWriter{emit: func(line string) { a.logger.Log(context.Background(), prefixLevel(line), line) }}
}

// prefixLevel reads go-plugin's level convention for plain lines: a
// "[DEBUG]", "[WARN]"... prefix; anything else is Info.
func prefixLevel(line string) slog.Level {
	switch {
	case strings.HasPrefix(line, "[TRACE]"):
		return slog.LevelDebug - 4
	case strings.HasPrefix(line, "[DEBUG]"):
		return slog.LevelDebug
	case strings.HasPrefix(line, "[WARN]"):
		return slog.LevelWarn
	case strings.HasPrefix(line, "[ERROR]"):
		return slog.LevelError
	}
	return slog.LevelInfo
}

// lineWriter splits a byte stream into lines and emits each non-empty one:
// go-plugin copies the plugin's os.Stdout/os.Stderr (after Serve swapped
// them for pipes) through it.
type lineWriter struct {
	split lines.Splitter
	emit  func(line string)
}

// maxLine bounds a line held while waiting for its newline.
const maxLine = 64 << 10

func (w *lineWriter) Write(p []byte) (int, error) {
	w.split.Write(p, maxLine+1, w.flushLine)
	return len(p), nil
}

func (w *lineWriter) flushLine(line []byte) {
	if len(line) > 0 {
		w.emit(string(line))
	}
}
