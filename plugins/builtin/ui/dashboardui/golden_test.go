package dashboardui

import (
	"bytes"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// The frames are golden files under testdata/ (go test -update rewrites
// them). Each test runs the real model in a Bubble Tea program through
// teatest, waits until the program has drawn what the step set up, quits,
// and compares the final model's view: a pure function of the last
// readings and the terminal size, so it does not depend on how many frames
// were drawn on the way.

type step struct {
	set  func()
	want string // text the output must show before the next step
}

func runFrames(t *testing.T, src sdk.ProgressSource, width, height int, steps ...step) string {
	t.Helper()
	tm := teatest.NewTestModel(t, newModel(src, 5*time.Millisecond, plain()), teatest.WithInitialTermSize(width, height))
	for _, s := range steps {
		if s.set != nil {
			s.set()
		}
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(s.want)) },
			teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(2*time.Millisecond))
	}
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	m, ok := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(model)
	if !ok {
		t.Fatal("final model is not the dashboard's")
	}
	if m.width != width || m.height != height {
		t.Fatalf("model saw %dx%d, want %dx%d", m.width, m.height, width, height)
	}
	return m.View().Content
}

func TestGoldenProgressOnly(t *testing.T) {
	src := &fakeProgress{snap: profiling}
	frame := runFrames(t, src, 100, 30, step{want: "450/1,000"})
	golden.RequireEqual(t, []byte(frame))
}

func TestGoldenLiveMetricsErrorsGPUs(t *testing.T) {
	src := &fakeLive{fakeProgress: fakeProgress{snap: profiling}, view: liveView()}
	frame := runFrames(t, src, 120, 40, step{want: "NVIDIA H100"})
	golden.RequireEqual(t, []byte(frame))
}

func TestGoldenWarmupThenProfiling(t *testing.T) {
	src := &fakeLive{fakeProgress: fakeProgress{snap: warmup}, view: liveView()}
	frame := runFrames(t, src, 100, 40,
		step{want: "Warmup ·"},
		step{set: func() { src.set(profiling) }, want: "Profiling ·"})
	golden.RequireEqual(t, []byte(frame))
}

func TestGoldenNarrowTerminal(t *testing.T) {
	src := &fakeLive{fakeProgress: fakeProgress{snap: profiling}, view: liveView()}
	frame := runFrames(t, src, 40, 40, step{want: "Throughput"})
	golden.RequireEqual(t, []byte(frame))
}

func TestGoldenShortTerminal(t *testing.T) {
	src := &fakeLive{fakeProgress: fakeProgress{snap: profiling}, view: liveView()}
	frame := runFrames(t, src, 100, 12, step{want: "Throughput"})
	golden.RequireEqual(t, []byte(frame))
}

func TestGoldenUnmeasuredValues(t *testing.T) {
	v := sdk.LiveView{
		Metrics: []sdk.LiveMetric{{Tag: "time_to_first_token", Header: "Time to First Token", Unit: "ms",
			Avg: nan, Min: nan, Max: nan, P50: nan, P90: nan, P99: nan}},
		RequestThroughput: nan, OutputTokenThroughput: nan,
		GPUs: []sdk.LiveGPU{{Source: "pynvml://localhost", Index: 0, Name: "NVIDIA A10G", PowerW: nan, UtilPct: 12, MemUsedGB: nan, MemUtilPct: 24, TempC: nan}},
	}
	src := &fakeLive{fakeProgress: fakeProgress{snap: sdk.ProgressSnapshot{Phase: sdk.PhaseProfiling, Elapsed: 90 * time.Second}}, view: v}
	frame := runFrames(t, src, 100, 30, step{want: "NVIDIA A10G"})
	golden.RequireEqual(t, []byte(frame))
}
