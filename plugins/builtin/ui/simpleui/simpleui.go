// Package simpleui is the "simple" UI: one progress line per phase on a
// terminal (redrawn in place), or periodic plain lines when the output is a
// file or pipe, so logs are not flooded with carriage returns.
package simpleui

import (
	"context"
	"io"
	"os"
	"sync"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Name is the plugin name of this UI.
const Name = "simple"

// Defaults: redraw at most 4 times a second; without a terminal, one line
// every 5 seconds.
const (
	DefaultRefresh       = 250 * time.Millisecond
	DefaultPlainInterval = 5 * time.Second
)

// UI renders progress lines.
type UI struct {
	w             io.Writer
	tty           *bool // nil: detect from w
	refresh       time.Duration
	plainInterval time.Duration

	mu        sync.Mutex
	src       sdk.ProgressSource
	cancel    context.CancelFunc
	done      chan struct{}
	last      sdk.ProgressSnapshot
	haveLast  bool
	lastPlain time.Time
	isTTY     bool
	stopped   bool
}

var _ sdk.UI = (*UI)(nil)

// Option configures the UI.
type Option func(*UI)

// WithWriter sets the output (default os.Stderr).
func WithWriter(w io.Writer) Option { return func(u *UI) { u.w = w } }

// WithTTY forces terminal (in-place redraw) or plain-line mode.
func WithTTY(on bool) Option { return func(u *UI) { u.tty = &on } }

// WithRefresh sets the polling interval.
func WithRefresh(d time.Duration) Option { return func(u *UI) { u.refresh = d } }

// WithPlainInterval sets how often a plain line is printed without a terminal.
func WithPlainInterval(d time.Duration) Option { return func(u *UI) { u.plainInterval = d } }

// New returns the simple UI.
func New(opts ...Option) *UI {
	u := &UI{w: os.Stderr, refresh: DefaultRefresh, plainInterval: DefaultPlainInterval}
	for _, o := range opts {
		o(u)
	}
	if u.refresh <= 0 {
		u.refresh = DefaultRefresh
	}
	return u
}

// Start begins polling src in a goroutine until Stop or ctx ends. A second
// Start, or a nil source, is ignored.
func (u *UI) Start(ctx context.Context, src sdk.ProgressSource) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if src == nil || u.src != nil || u.stopped {
		return
	}
	u.src = src
	u.isTTY = IsTerminal(u.w)
	if u.tty != nil {
		u.isTTY = *u.tty
	}
	u.lastPlain = time.Now()
	ctx, u.cancel = context.WithCancel(ctx)
	u.done = make(chan struct{})
	go u.loop(ctx, u.done)
}

// Stop ends polling, waits for the goroutine to exit, then prints the final
// line. It is idempotent and safe without Start.
func (u *UI) Stop() {
	u.mu.Lock()
	if u.stopped || u.src == nil {
		u.stopped = true
		u.mu.Unlock()
		return
	}
	u.stopped = true
	cancel, done := u.cancel, u.done
	u.mu.Unlock()

	cancel()
	<-done

	u.mu.Lock()
	defer u.mu.Unlock()
	u.finish(u.src.Snapshot())
}

func (u *UI) loop(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(u.refresh)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			snap := u.src.Snapshot()
			u.mu.Lock()
			u.draw(snap)
			u.mu.Unlock()
		}
	}
}

// draw shows snap. A phase change first completes the previous phase's line
// so each phase keeps one final line on screen.
func (u *UI) draw(snap sdk.ProgressSnapshot) {
	phaseChanged := u.haveLast && snap.Phase != u.last.Phase
	if phaseChanged {
		u.finish(u.final(u.last))
	}
	if u.isTTY {
		io.WriteString(u.w, "\r"+Line(snap)+"\x1b[K")
	} else if phaseChanged || !u.haveLast || time.Since(u.lastPlain) >= u.plainInterval {
		io.WriteString(u.w, Line(snap)+"\n")
		u.lastPlain = time.Now()
	}
	u.last, u.haveLast = snap, true
}

// finish prints snap as the settled line of its phase.
func (u *UI) finish(snap sdk.ProgressSnapshot) {
	if u.isTTY {
		io.WriteString(u.w, "\r"+Line(snap)+"\x1b[K\n")
	} else {
		io.WriteString(u.w, Line(snap)+"\n")
	}
	u.last, u.haveLast = snap, true
}

// IsTerminal reports whether w is a character device (a terminal).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// final is the ended phase of last with the counts the source kept at its
// end, when it keeps them (a poll misses the phase's last requests).
func (u *UI) final(last sdk.ProgressSnapshot) sdk.ProgressSnapshot {
	if live, ok := u.src.(sdk.LiveSource); ok {
		for _, f := range live.Live().Finished {
			if f.Phase == last.Phase {
				return f
			}
		}
	}
	return last
}
