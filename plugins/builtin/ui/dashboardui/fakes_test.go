package dashboardui

import (
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// fakeProgress is a settable ProgressSource that counts its polls.
type fakeProgress struct {
	mu    sync.Mutex
	snap  sdk.ProgressSnapshot
	polls int
}

func (f *fakeProgress) Snapshot() sdk.ProgressSnapshot {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.polls++
	return f.snap
}

func (f *fakeProgress) set(s sdk.ProgressSnapshot) {
	f.mu.Lock()
	f.snap = s
	f.mu.Unlock()
}

func (f *fakeProgress) pollCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.polls
}

// fakeLive is a settable LiveSource; Live's Progress is the progress snapshot.
type fakeLive struct {
	fakeProgress
	view sdk.LiveView
}

func (f *fakeLive) Live() sdk.LiveView {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.polls++
	v := f.view
	v.Progress = f.snap
	return v
}

var _ sdk.LiveSource = (*fakeLive)(nil)

// plain are the styles without colour, for readable golden frames.
func plain() styles { return newStyles(false) }

var nan = math.NaN()

// Fixed inputs for the frames.
var (
	profiling = sdk.ProgressSnapshot{Phase: sdk.PhaseProfiling, Sent: 460, Completed: 450, Errors: 3, Total: 1000, Elapsed: 12 * time.Second}
	warmup    = sdk.ProgressSnapshot{Phase: sdk.PhaseWarmup, Sent: 100, Completed: 100, Total: 100, Elapsed: 2500 * time.Millisecond}

	liveMetrics = []sdk.LiveMetric{
		{Tag: "time_to_first_token", Header: "Time to First Token", Unit: "ms", Count: 450, Avg: 18.42, Min: 9.87, Max: 132.5, P50: 16.3, P90: 27.91, P99: 88.04},
		{Tag: "inter_token_latency", Header: "Inter Token Latency", Unit: "ms", Count: 450, Avg: 4.21, Min: 2.05, Max: 19.6, P50: 3.98, P90: 5.4, P99: 11.73},
		{Tag: "request_latency", Header: "Request Latency", Unit: "ms", Count: 450, Avg: 1082.37, Min: 611.2, Max: 2417.93, P50: 1034.5, P90: 1390.08, P99: 2011.66},
		{Tag: "output_sequence_length", Header: "Output Sequence Length", Unit: "tokens", Count: 450, Avg: 254.6, Min: 128, Max: 256, P50: 256, P90: 256, P99: 256},
	}
	liveErrors = []sdk.LiveErrorCount{{Type: "TimeoutError", Count: 1}, {Type: "ServerError", Count: 2}}
	liveGPUs   = []sdk.LiveGPU{
		{Source: "http://node1:9401/metrics", Index: 0, Name: "NVIDIA H100 80GB HBM3", PowerW: 612.4, UtilPct: 97, MemUsedGB: 71.32, MemUtilPct: 85.52, TempC: 64},
		{Source: "http://node1:9401/metrics", Index: 1, Name: "NVIDIA H100 80GB HBM3", PowerW: 598.07, UtilPct: 95, MemUsedGB: 70.9, MemUtilPct: 85.52, TempC: 61},
	}
)

func liveView() sdk.LiveView {
	return sdk.LiveView{Metrics: liveMetrics, RequestThroughput: 37.5, OutputTokenThroughput: 9547.5,
		Errors: liveErrors, GPUs: liveGPUs, Server: []string{"http://127.0.0.1:8000/metrics"}}
}

// uiGoroutines lists the goroutines running Bubble Tea or this package's
// UI code.
func uiGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "charm.land/bubbletea") || strings.Contains(g, "dashboardui.(*UI)") {
			out = append(out, g)
		}
	}
	return out
}

// waitFor polls cond; the deadline is generous because machines are noisy.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not reached", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
