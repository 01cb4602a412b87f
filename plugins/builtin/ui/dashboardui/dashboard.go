// Package dashboardui is the "dashboard" UI: a full-screen live terminal
// view (Bubble Tea) of the run — progress per phase, live metric
// percentiles, throughput, errors by type and GPU telemetry when the source
// is an sdk.LiveSource, progress alone otherwise. It polls the source at a
// fixed refresh on its own goroutine, so the timed path never waits for it.
package dashboardui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/ui/simpleui"
)

// Name is the plugin name of this UI.
const Name = "dashboard"

// DefaultRefresh is how often the source is polled and the screen redrawn.
const DefaultRefresh = 250 * time.Millisecond

// UI runs the dashboard.
type UI struct {
	w       io.Writer
	tty     *bool // nil: detect from w
	refresh time.Duration

	mu      sync.Mutex
	started bool
	stopped bool
	src     sdk.ProgressSource
	prog    *tea.Program
	done    chan struct{}
	final   model // the model when the program ended (set before done closes)
	runErr  error
	// alt: the program draws on the alternate screen (a terminal).
	alt bool
}

var _ sdk.TerminalUI = (*UI)(nil)

// OwnsTerminal reports whether the dashboard holds the whole terminal (the
// alternate screen) now: the core then holds its stderr log lines until
// Stop, so they do not tear the screen.
func (u *UI) OwnsTerminal() bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.started && !u.stopped && u.alt
}

// Option configures the UI.
type Option func(*UI)

// WithWriter sets the output (default os.Stderr).
func WithWriter(w io.Writer) Option { return func(u *UI) { u.w = w } }

// WithTTY forces (or forbids) the alternate screen; by default it is used
// when the writer is a terminal.
func WithTTY(on bool) Option { return func(u *UI) { u.tty = &on } }

// WithRefresh sets the polling interval.
func WithRefresh(d time.Duration) Option { return func(u *UI) { u.refresh = d } }

// New returns the dashboard UI.
func New(opts ...Option) *UI {
	u := &UI{w: os.Stderr, refresh: DefaultRefresh}
	for _, o := range opts {
		o(u)
	}
	if u.w == nil {
		u.w = io.Discard
	}
	if u.refresh <= 0 {
		u.refresh = DefaultRefresh
	}
	return u
}

// Start runs the dashboard on its own goroutine until Stop or ctx ends. A
// second Start, a Start after Stop, or a nil source is ignored.
//
// It reads no keyboard input and installs no signal handler, so the
// terminal stays in cooked mode: Ctrl-C raises SIGINT and the core's
// cancellation runs, which ends ctx and with it the dashboard.
func (u *UI) Start(ctx context.Context, src sdk.ProgressSource) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if src == nil || u.started || u.stopped {
		return
	}
	if ctx == nil {
		ctx = context.Background()
	}
	u.started, u.src = true, src
	term := simpleui.IsTerminal(u.w)
	tty := term
	if u.tty != nil {
		tty = *u.tty
	}
	m := newModel(src, u.refresh, newStyles(true))
	m.inline = !tty
	u.alt = tty
	// No input: no raw mode and no terminal queries whose answers nobody
	// would read.
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithOutput(u.w), tea.WithInput(nil), tea.WithoutSignalHandler()}
	if !term {
		// No size to ask a pipe or file for: draw a fixed screen.
		opts = append(opts, tea.WithWindowSize(DefaultWidth, DefaultHeight))
	}
	u.prog = tea.NewProgram(m, opts...)
	u.final = m
	u.done = make(chan struct{})
	go u.run(u.prog, u.done)
}

func (u *UI) run(p *tea.Program, done chan<- struct{}) {
	defer close(done)
	fm, err := p.Run()
	u.mu.Lock()
	defer u.mu.Unlock()
	if m, ok := fm.(model); ok {
		u.final = m
	}
	u.runErr = err
}

// Stop quits the dashboard, waits until it has restored the terminal, then
// prints one plain line per phase so the result stays on screen after the
// alternate screen closes. It is idempotent and safe without Start.
func (u *UI) Stop() {
	u.mu.Lock()
	if u.stopped || !u.started {
		u.stopped = true
		u.mu.Unlock()
		return
	}
	u.stopped = true
	prog, done := u.prog, u.done
	u.mu.Unlock()

	prog.Quit() // returns at once if the program already ended (ctx done)
	<-done

	u.mu.Lock()
	defer u.mu.Unlock()
	// A panic in the view or a terminal that cannot be set up is worth a
	// line; the run's own cancellation is not.
	if err := u.runErr; err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintf(u.w, "dashboard UI: %v\n", err)
	}
	lines := summary(u.final.frame, u.final.polled, u.src.Snapshot())
	if live, ok := u.src.(sdk.LiveSource); ok {
		if fin := live.Live().Finished; len(fin) > 0 {
			f := withFinished(Frame{Done: lines[:len(lines)-1], Progress: lines[len(lines)-1]}, fin)
			lines = append(f.Done, f.Progress)
		}
	}
	for _, s := range lines {
		io.WriteString(u.w, simpleui.Line(s)+"\n")
	}
}

// summary is each phase's final reading: those the dashboard settled, then
// the current one as the source reports it now.
func summary(f Frame, seen bool, last sdk.ProgressSnapshot) []sdk.ProgressSnapshot {
	f = settle(f, seen, last)
	return append(f.Done[:len(f.Done):len(f.Done)], f.Progress)
}
