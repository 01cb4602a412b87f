package simpleui

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// fakeSource is a settable ProgressSource (the interface is one method).
type fakeSource struct {
	mu    sync.Mutex
	snap  sdk.ProgressSnapshot
	polls int
}

func (f *fakeSource) Snapshot() sdk.ProgressSnapshot {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.polls++
	return f.snap
}

func (f *fakeSource) set(s sdk.ProgressSnapshot) {
	f.mu.Lock()
	f.snap = s
	f.mu.Unlock()
}

func (f *fakeSource) pollCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.polls
}

// syncBuffer is a goroutine-safe writer that can be sealed: any write after
// sealing is a leak of the UI goroutine.
type syncBuffer struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	sealed bool
	late   int
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sealed {
		s.late++
	}
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

func (s *syncBuffer) seal() {
	s.mu.Lock()
	s.sealed = true
	s.mu.Unlock()
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second) // generous: machines are noisy
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestLine(t *testing.T) {
	tests := []struct {
		name string
		snap sdk.ProgressSnapshot
		want string
	}{
		{"bounded", sdk.ProgressSnapshot{Phase: "profiling", Completed: 450, Errors: 3, Total: 1000, Elapsed: 12 * time.Second},
			"Profiling:  45.0% |#########...........| 450/1000 | errors: 3 | 00:12 | 37.50 req/s"},
		{"done", sdk.ProgressSnapshot{Phase: "warmup", Completed: 10, Total: 10, Elapsed: 2 * time.Second},
			"Warmup: 100.0% |####################| 10/10 | errors: 0 | 00:02 | 5.00 req/s"},
		{"overshoot is clamped", sdk.ProgressSnapshot{Phase: "profiling", Completed: 12, Total: 10, Elapsed: 0},
			"Profiling: 100.0% |####################| 12/10 | errors: 0 | 00:00 | 0.00 req/s"},
		{"unbounded", sdk.ProgressSnapshot{Phase: "profiling", Completed: 7200, Errors: 1, Elapsed: 3723 * time.Second},
			"Profiling: 7200 done | errors: 1 | 1:02:03 | 1.93 req/s"},
		{"no phase", sdk.ProgressSnapshot{}, "Progress: 0 done | errors: 0 | 00:00 | 0.00 req/s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Line(tc.snap); got != tc.want {
				t.Fatalf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestTTYRedrawsInPlaceAndSettlesPhases(t *testing.T) {
	src := &fakeSource{snap: sdk.ProgressSnapshot{Phase: "warmup", Completed: 1, Total: 2, Elapsed: time.Second}}
	out := &syncBuffer{}
	u := New(WithWriter(out), WithTTY(true), WithRefresh(time.Millisecond))
	u.Start(context.Background(), src)
	waitFor(t, func() bool { return strings.Contains(out.String(), "Warmup:") })

	src.set(sdk.ProgressSnapshot{Phase: "profiling", Completed: 5, Total: 10, Elapsed: time.Second})
	waitFor(t, func() bool { return strings.Contains(out.String(), "Profiling:") })
	src.set(sdk.ProgressSnapshot{Phase: "profiling", Completed: 10, Total: 10, Errors: 2, Elapsed: 2 * time.Second})
	u.Stop()
	out.seal()

	got := out.String()
	if !strings.Contains(got, "\x1b[K") || !strings.HasPrefix(got, "\r") {
		t.Fatalf("no in-place redraw: %q", got)
	}
	// Each phase ends in exactly one settled (newline-terminated) line.
	settled := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(settled) != 2 {
		t.Fatalf("want 2 settled lines, got %d: %q", len(settled), got)
	}
	if !strings.Contains(settled[0], "Warmup:") {
		t.Errorf("first settled line is not warmup: %q", settled[0])
	}
	final := "\r" + Line(sdk.ProgressSnapshot{Phase: "profiling", Completed: 10, Total: 10, Errors: 2, Elapsed: 2 * time.Second}) + "\x1b[K\n"
	if !strings.HasSuffix(got, final) {
		t.Errorf("final line missing: %q", got[max(0, len(got)-200):])
	}
	polls := src.pollCount()
	time.Sleep(20 * time.Millisecond)
	if src.pollCount() != polls || out.late != 0 {
		t.Fatal("UI goroutine still running after Stop")
	}
}

func TestPlainModePrintsLinesWithoutCarriageReturns(t *testing.T) {
	src := &fakeSource{snap: sdk.ProgressSnapshot{Phase: "profiling", Completed: 1, Total: 4, Elapsed: time.Second}}
	out := &syncBuffer{}
	u := New(WithWriter(out), WithTTY(false), WithRefresh(time.Millisecond), WithPlainInterval(time.Hour))
	u.Start(context.Background(), src)
	waitFor(t, func() bool { return src.pollCount() >= 5 })
	u.Stop()
	out.seal()

	got := out.String()
	if strings.ContainsAny(got, "\r\x1b") {
		t.Fatalf("control characters in plain output: %q", got)
	}
	// The hour-long interval allows only the first line plus the final one,
	// however many polls happened.
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 2 || lines[0] != lines[1] || !strings.HasPrefix(lines[0], "Profiling:  25.0%") {
		t.Fatalf("lines = %q", lines)
	}
}

func TestPlainModeHonoursInterval(t *testing.T) {
	src := &fakeSource{snap: sdk.ProgressSnapshot{Phase: "profiling", Total: 4}}
	out := &syncBuffer{}
	u := New(WithWriter(out), WithTTY(false), WithRefresh(time.Millisecond), WithPlainInterval(time.Nanosecond))
	u.Start(context.Background(), src)
	waitFor(t, func() bool { return strings.Count(out.String(), "\n") >= 3 })
	u.Stop()
}

func TestLifecycleEdges(t *testing.T) {
	out := &syncBuffer{}
	New(WithWriter(out)).Stop() // Stop without Start
	u := New(WithWriter(out), WithTTY(false))
	u.Start(context.Background(), nil) // nil source is ignored
	u.Stop()
	if out.String() != "" {
		t.Fatalf("printed without a source: %q", out.String())
	}

	src := &fakeSource{snap: sdk.ProgressSnapshot{Phase: "profiling"}}
	ctx, cancel := context.WithCancel(context.Background())
	u = New(WithWriter(out), WithTTY(false), WithRefresh(time.Millisecond))
	u.Start(ctx, src)
	u.Start(ctx, src) // second Start is ignored
	cancel()          // the parent context ending stops polling too
	u.Stop()
	u.Stop()
	if n := strings.Count(out.String(), "\n"); n < 1 || n > 2 {
		t.Fatalf("want the final line once (plus at most one poll line), got %q", out.String())
	}
}

// liveSource also keeps each ended phase's final counts, as the core's does.
type liveSource struct {
	fakeSource
	finished []sdk.ProgressSnapshot
}

func (l *liveSource) Live() sdk.LiveView {
	l.mu.Lock()
	defer l.mu.Unlock()
	return sdk.LiveView{Progress: l.snap, Finished: l.finished}
}

// A poll misses the last requests of a phase; the settled line of an ended
// phase shows the counts the source kept at its end.
func TestEndedPhaseShowsItsFinalCounts(t *testing.T) {
	src := &liveSource{fakeSource: fakeSource{snap: sdk.ProgressSnapshot{Phase: "warmup", Completed: 23, Total: 40, Elapsed: time.Second}}}
	out := &syncBuffer{}
	u := New(WithWriter(out), WithTTY(false), WithRefresh(time.Millisecond))
	u.Start(context.Background(), src)
	waitFor(t, func() bool { return strings.Contains(out.String(), "Warmup:") })
	src.mu.Lock()
	src.finished = []sdk.ProgressSnapshot{{Phase: "warmup", Completed: 40, Total: 40, Elapsed: 2 * time.Second}}
	src.snap = sdk.ProgressSnapshot{Phase: "profiling", Completed: 1, Total: 10, Elapsed: time.Millisecond}
	src.mu.Unlock()
	waitFor(t, func() bool { return strings.Contains(out.String(), "Profiling:") })
	u.Stop()
	want := Line(sdk.ProgressSnapshot{Phase: "warmup", Completed: 40, Total: 40, Elapsed: 2 * time.Second}) + "\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("no settled warmup line with 40/40:\n%s", out.String())
	}
}
