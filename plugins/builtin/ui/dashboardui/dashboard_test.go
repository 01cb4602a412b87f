package dashboardui

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/ui/simpleui"
)

// pipeOutput is the write end of a real pipe whose bytes are collected.
type pipeOutput struct {
	w    *os.File
	mu   sync.Mutex
	buf  bytes.Buffer
	done chan struct{}
}

func newPipeOutput(t *testing.T) *pipeOutput {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &pipeOutput{w: w, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		defer r.Close()
		b := make([]byte, 4096)
		for {
			n, err := r.Read(b)
			p.mu.Lock()
			p.buf.Write(b[:n])
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { w.Close() })
	return p
}

// has reports whether s has been written so far.
func (p *pipeOutput) has(s string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Contains(p.buf.String(), s)
}

// close ends the pipe and returns everything written to it.
func (p *pipeOutput) close() string {
	p.w.Close()
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.buf.String()
}

const (
	altScreenOn  = "\x1b[?1049h"
	altScreenOff = "\x1b[?1049l"
)

func TestStartStopOverPipe(t *testing.T) {
	out := newPipeOutput(t)
	src := &fakeLive{fakeProgress: fakeProgress{snap: profiling}, view: liveView()}
	u := New(WithWriter(out.w), WithRefresh(2*time.Millisecond))
	u.Start(context.Background(), src)
	waitFor(t, "three polls", func() bool { return src.pollCount() >= 3 })
	final := sdk.ProgressSnapshot{Phase: sdk.PhaseProfiling, Sent: 1000, Completed: 1000, Errors: 3, Total: 1000, Elapsed: 20 * time.Second}
	src.set(final)
	u.Stop()
	got := out.close()

	if !strings.Contains(got, "Time to First Token") || !strings.Contains(got, "NVIDIA H100 80GB HBM3") {
		t.Fatalf("no dashboard frame drawn:\n%q", got)
	}
	if strings.Contains(got, altScreenOn) {
		t.Error("alternate screen used on a pipe")
	}
	// The frame stays whole (Bubble Tea erases the line it stops on), and
	// the summary, the source's reading at Stop, follows it.
	if !strings.Contains(got, "Server metrics  http://127.0.0.1:8000/metrics\n") {
		t.Errorf("last frame line not kept: %q", got[max(0, len(got)-300):])
	}
	if want := simpleui.Line(final) + "\n"; !strings.HasSuffix(got, want) {
		t.Fatalf("output does not end with the final summary %q:\n%q", want, got[max(0, len(got)-300):])
	}
	waitFor(t, "UI goroutines gone", func() bool { return len(uiGoroutines()) == 0 })
}

// On a terminal the dashboard takes the alternate screen and gives it back
// before printing the summary, one line per phase, so it stays visible.
func TestAltScreenClosesBeforeSummary(t *testing.T) {
	out := newPipeOutput(t)
	src := &fakeLive{fakeProgress: fakeProgress{snap: warmup}, view: liveView()}
	u := New(WithWriter(out.w), WithTTY(true), WithRefresh(2*time.Millisecond))
	u.Start(context.Background(), src)
	waitFor(t, "warmup polled", func() bool { return src.pollCount() >= 2 })
	src.set(profiling)
	n := src.pollCount()
	waitFor(t, "profiling polled", func() bool { return src.pollCount() >= n+2 })
	u.Stop()
	got := out.close()

	on, off := strings.Index(got, altScreenOn), strings.LastIndex(got, altScreenOff)
	if on < 0 || off < on {
		t.Fatalf("alternate screen not entered then left: %q", got)
	}
	want := simpleui.Line(warmup) + "\n" + simpleui.Line(profiling) + "\n"
	if tail := got[off+len(altScreenOff):]; !strings.HasSuffix(tail, want) || strings.Contains(tail, "Throughput") {
		t.Fatalf("after the alternate screen: %q, want the summary %q", tail, want)
	}
	if !strings.Contains(got[on:off], "Warmup ") || !strings.Contains(got[on:off], "Profiling ") {
		t.Fatalf("frames did not show both phases: %q", got[on:off])
	}
	waitFor(t, "UI goroutines gone", func() bool { return len(uiGoroutines()) == 0 })
}

// A live source with nothing measured yet (NaN statistics, no errors, GPU
// fields the collector does not report) draws N/A and still ends cleanly.
func TestUnmeasuredLiveSource(t *testing.T) {
	out := newPipeOutput(t)
	v := sdk.LiveView{
		Metrics:           []sdk.LiveMetric{{Tag: "request_latency", Header: "Request Latency", Unit: "ms", Avg: nan, Min: nan, Max: nan, P50: nan, P90: nan, P99: nan}},
		RequestThroughput: nan, OutputTokenThroughput: nan,
		GPUs: []sdk.LiveGPU{{Index: 3, Name: "NVIDIA L4", PowerW: nan, UtilPct: nan, MemUsedGB: nan, MemUtilPct: nan, TempC: nan}},
	}
	src := &fakeLive{fakeProgress: fakeProgress{snap: sdk.ProgressSnapshot{Phase: sdk.PhaseProfiling, Total: 10}}, view: v}
	u := New(WithWriter(out.w), WithRefresh(2*time.Millisecond))
	u.Start(context.Background(), src)
	waitFor(t, "two polls", func() bool { return src.pollCount() >= 2 })
	u.Stop()
	got := out.close()
	if !strings.Contains(got, "N/A  N/A  N/A") || !strings.Contains(got, "NVIDIA L4") || !strings.Contains(got, "Errors  none") {
		t.Fatalf("unmeasured values not drawn as N/A:\n%q", got)
	}
	if strings.Contains(got, "dashboard UI:") {
		t.Fatalf("the program failed: %q", got)
	}
	if want := simpleui.Line(src.snap) + "\n"; !strings.HasSuffix(got, want) {
		t.Fatalf("no summary %q at the end of %q", want, got)
	}

	// An empty live view (no phase yet, no metrics at all).
	out = newPipeOutput(t)
	empty := &fakeLive{}
	u = New(WithWriter(out.w), WithRefresh(2*time.Millisecond))
	u.Start(context.Background(), empty)
	waitFor(t, "two polls", func() bool { return empty.pollCount() >= 2 })
	u.Stop()
	got = out.close()
	if !strings.Contains(got, "waiting for the first phase") || !strings.HasSuffix(got, simpleui.Line(sdk.ProgressSnapshot{})+"\n") {
		t.Fatalf("empty source: %q", got)
	}
	waitFor(t, "UI goroutines gone", func() bool { return len(uiGoroutines()) == 0 })
}

func TestLifecycleEdges(t *testing.T) {
	out := newPipeOutput(t)
	New(WithWriter(out.w)).Stop() // Stop without Start
	u := New(WithWriter(out.w))
	u.Start(context.Background(), nil) // a nil source is ignored
	u.Stop()
	u.Start(context.Background(), &fakeProgress{}) // Start after Stop is ignored
	u.Stop()
	if got := out.close(); got != "" {
		t.Fatalf("printed without a running dashboard: %q", got)
	}
	if g := uiGoroutines(); len(g) != 0 {
		t.Fatalf("goroutines left: %v", g)
	}

	// A second Start is ignored; Stop twice prints the summary once.
	out = newPipeOutput(t)
	src := &fakeProgress{snap: profiling}
	u = New(WithWriter(out.w), WithRefresh(2*time.Millisecond))
	u.Start(context.Background(), src)
	u.Start(context.Background(), &fakeProgress{snap: warmup})
	waitFor(t, "two polls", func() bool { return src.pollCount() >= 2 })
	u.Stop()
	u.Stop()
	got := out.close()
	if line := simpleui.Line(profiling); strings.Count(got, line) != 1 || strings.Contains(got, "Warmup") {
		t.Fatalf("want one summary of the first source, got %q", got)
	}
}

// When the run's context ends (the core's Ctrl-C path) the dashboard leaves
// by itself, restoring the terminal; Stop then only prints the summary.
func TestContextEndStopsTheDashboard(t *testing.T) {
	out := newPipeOutput(t)
	src := &fakeProgress{snap: profiling}
	ctx, cancel := context.WithCancel(context.Background())
	u := New(WithWriter(out.w), WithTTY(true), WithRefresh(2*time.Millisecond))
	u.Start(ctx, src)
	waitFor(t, "a frame drawn", func() bool { return out.has("450/1,000") })
	cancel()
	waitFor(t, "dashboard ended with its context", func() bool { return len(uiGoroutines()) == 0 })
	u.Stop()
	got := out.close()
	if !strings.Contains(got, altScreenOff) {
		t.Fatalf("terminal not restored: %q", got)
	}
	if strings.Contains(got, "dashboard UI:") || !strings.HasSuffix(got, simpleui.Line(profiling)+"\n") {
		t.Fatalf("want only the summary after a cancelled run, got %q", got[strings.LastIndex(got, altScreenOff):])
	}
}

// Ctrl-C belongs to the core: the dashboard installs no signal handler, so
// a SIGINT reaches the process's own handler and the dashboard keeps
// running until the core stops it. It runs in a child process so the
// signal reaches no other test.
func TestSIGINTIsLeftToTheCore(t *testing.T) {
	const childEnv = "AIPERF_DASHBOARD_SIGINT_CHILD"
	if os.Getenv(childEnv) == "1" {
		sigintChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSIGINTIsLeftToTheCore$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "core got SIGINT; dashboard still running") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func sigintChild(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt) // the core's handler
	defer signal.Stop(sigs)
	out := newPipeOutput(t)
	src := &fakeProgress{snap: profiling}
	u := New(WithWriter(out.w), WithRefresh(2*time.Millisecond))
	u.Start(context.Background(), src)
	waitFor(t, "two polls", func() bool { return src.pollCount() >= 2 })
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-sigs:
	case <-time.After(10 * time.Second):
		t.Fatal("SIGINT never reached the process's handler")
	}
	n := src.pollCount()
	waitFor(t, "dashboard polling after SIGINT", func() bool { return src.pollCount() >= n+3 })
	u.Stop()
	if got := out.close(); strings.Contains(got, "dashboard UI:") || !strings.HasSuffix(got, simpleui.Line(profiling)+"\n") {
		t.Fatalf("output: %q", got)
	}
	t.Log("core got SIGINT; dashboard still running")
}
