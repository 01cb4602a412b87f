package dashboardui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// msgTypes runs cmd (and a batch's commands) and names the messages.
func msgTypes(cmd tea.Cmd) []string {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []string
		for _, c := range b {
			out = append(out, msgTypes(c)...)
		}
		return out
	}
	return []string{fmt.Sprintf("%T", msg)}
}

// The alternate screen is redrawn whole every repaint ticks, so a stray
// write to the terminal (a log line) does not stay; inline it never is (a
// clear would wipe the scrollback above).
func TestPeriodicRepaint(t *testing.T) {
	if m := newModel(&fakeProgress{}, DefaultRefresh, plain()); m.repaint != 8 {
		t.Fatalf("repaint every %d ticks at %v, want 8 (2 s)", m.repaint, DefaultRefresh)
	}
	if m := newModel(&fakeProgress{}, 5*time.Second, plain()); m.repaint != 1 {
		t.Fatalf("repaint every %d ticks at 5 s, want every tick", m.repaint)
	}
	for _, inline := range []bool{false, true} {
		m := newModel(&fakeProgress{snap: profiling}, time.Millisecond, plain())
		m.inline, m.repaint = inline, 3
		var clears []int
		var tm tea.Model = m
		for i := 1; i <= 6; i++ {
			var cmd tea.Cmd
			tm, cmd = tm.Update(tickMsg{})
			for _, typ := range msgTypes(cmd) {
				if typ == "tea.clearScreenMsg" {
					clears = append(clears, i)
				}
			}
		}
		want := "[3 6]"
		if inline {
			want = "[]"
		}
		if got := fmt.Sprint(clears); got != want {
			t.Errorf("inline=%v: cleared at ticks %s, want %s", inline, got, want)
		}
		if tm.(model).frame.Progress != profiling {
			t.Errorf("inline=%v: ticks did not poll", inline)
		}
	}
}

// A --benchmark-duration phase has no request count: its bar follows the
// clock, and a finished phase shows the counts the engine kept at its end,
// not the dashboard's last poll.
func TestDurationBarAndFinalCounts(t *testing.T) {
	p := sdkSnapshot("profiling", 0, 30*time.Second, 15*time.Second)
	if f, ok := fraction(p, false); !ok || f != 0.5 {
		t.Errorf("fraction at 15 s of 30 s = %v, %v; want 0.5", f, ok)
	}
	if f, ok := fraction(p, true); !ok || f != 1 {
		t.Errorf("fraction of a finished duration phase = %v, %v; want 1", f, ok)
	}
	if _, ok := fraction(sdkSnapshot("profiling", 0, 0, time.Second), false); ok {
		t.Error("a phase with neither count nor duration has a bar")
	}
	line := render(Frame{Progress: p}, 120, 0, plain())
	if !strings.Contains(line, " 50.0% ") || !strings.Contains(line, "ETA 15.0s") {
		t.Errorf("duration phase frame lacks 50%% and ETA 15.0s:\n%s", line)
	}

	// The dashboard saw warmup at 23/40; the engine ended it at 40/40 and
	// also ran a short "ramp" phase no poll saw.
	f := Frame{Done: []sdk.ProgressSnapshot{{Phase: "warmup", Completed: 23, Total: 40}}, Progress: sdk.ProgressSnapshot{Phase: "profiling", Completed: 3}}
	final := []sdk.ProgressSnapshot{{Phase: "warmup", Completed: 40, Total: 40}, {Phase: "ramp", Completed: 2}}
	got := withFinished(f, final)
	if len(got.Done) != 2 || got.Done[0].Completed != 40 || got.Done[1].Phase != "ramp" || got.Progress.Completed != 3 || f.Done[0].Completed != 23 {
		t.Errorf("withFinished = %+v (input now %+v); want warmup 40/40, ramp, profiling unchanged, the input untouched", got, f)
	}
	// When the current phase has ended too, its final counts are shown.
	got = withFinished(f, append(final, sdk.ProgressSnapshot{Phase: "profiling", Completed: 9}))
	if got.Progress.Completed != 9 || len(got.Done) != 2 {
		t.Errorf("ended current phase: %+v", got)
	}
}

func sdkSnapshot(phase string, total int64, duration, elapsed time.Duration) sdk.ProgressSnapshot {
	return sdk.ProgressSnapshot{Phase: phase, Total: total, Duration: duration, Elapsed: elapsed, Completed: 5, Sent: 6}
}
