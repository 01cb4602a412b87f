package dashboardui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// tickMsg asks the model to poll its source.
type tickMsg struct{}

// model is the Bubble Tea model: it polls the source on each tick (on the
// program's goroutine, never the senders') and draws the last poll.
type model struct {
	src     sdk.ProgressSource
	live    sdk.LiveSource // nil: progress only
	refresh time.Duration
	st      styles
	// inline: drawn in the normal screen, not the alternate one.
	inline bool

	width, height int
	frame         Frame
	polled        bool
	ticks         int
	repaint       int // ticks between full repaints of the alternate screen
}

// repaintEvery is how often the alternate screen is drawn afresh, so that
// anything else written to the terminal (a log line) does not stay on it.
const repaintEvery = 2 * time.Second

var _ tea.Model = model{}

func newModel(src sdk.ProgressSource, refresh time.Duration, st styles) model {
	m := model{src: src, refresh: refresh, st: st, repaint: max(int(repaintEvery/refresh), 1)}
	m.live, _ = src.(sdk.LiveSource)
	return m
}

// Init polls at once, so the first frame has data.
func (m model) Init() tea.Cmd {
	return func() tea.Msg { return tickMsg{} }
}

func (m model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tickMsg:
		m.poll()
		m.ticks++
		next := tea.Tick(m.refresh, func(time.Time) tea.Msg { return tickMsg{} })
		if !m.inline && m.ticks%m.repaint == 0 {
			return m, tea.Batch(next, tea.ClearScreen)
		}
		return m, next
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	}
	return m, nil
}

// View draws the frame, on the alternate screen unless inline. Inline, it
// ends with an empty line: Bubble Tea leaves the cursor on the last line
// when it stops, and the summary printed there overwrites nothing.
func (m model) View() tea.View {
	var v tea.View
	if m.inline {
		h := m.height
		if h > 0 {
			h = max(h-1, 1)
		}
		v.SetContent(render(m.frame, m.width, h, m.st) + "\n")
	} else {
		v.SetContent(render(m.frame, m.width, m.height, m.st))
		v.AltScreen = true
	}
	v.DisableBracketedPasteMode = true // no input is read
	return v
}

// poll reads the source once. A new phase name settles the previous phase's
// last reading into Done (the engine's counters restart with each phase).
func (m *model) poll() {
	var snap sdk.ProgressSnapshot
	var view *sdk.LiveView
	if m.live != nil {
		v := m.live.Live()
		snap, view = v.Progress, &v
	} else {
		snap = m.src.Snapshot()
	}
	m.frame = settle(m.frame, m.polled, snap)
	if view != nil && len(view.Finished) > 0 {
		m.frame = withFinished(m.frame, view.Finished)
	}
	m.frame.Live = view
	m.polled = true
}

// withFinished takes the ended phases from the source, which kept their
// final counts: a poll misses a phase's last requests, or a short phase
// altogether.
func withFinished(f Frame, finished []sdk.ProgressSnapshot) Frame {
	done := make([]sdk.ProgressSnapshot, 0, len(finished))
	for _, p := range finished {
		if p.Phase == f.Progress.Phase {
			f.Progress = p
			continue
		}
		done = append(done, p)
	}
	f.Done = done
	return f
}

// settle makes snap the current phase of f; when it names another phase
// than the one shown, the one shown joins Done (unless it never started).
// A reading without a phase after one with a phase keeps the latter.
func settle(f Frame, seen bool, snap sdk.ProgressSnapshot) Frame {
	if snap.Phase == "" && f.Progress.Phase != "" {
		return f
	}
	if seen && snap.Phase != f.Progress.Phase && f.Progress.Phase != "" {
		f.Done = append(f.Done[:len(f.Done):len(f.Done)], f.Progress)
	}
	f.Progress = snap
	return f
}
