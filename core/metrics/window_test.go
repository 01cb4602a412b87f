package metrics

import (
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// windowRun is 100 successful requests of 10 output tokens each: request i
// starts at 1 s + i·100 ms, so the first starts at 1 s and the last one
// (10.9 s + 100 ms) answers at 11 s. The first 20 take 300 ms and miss the
// 250 ms latency SLO: 80 are good. benchmark_duration is 10 s whatever the
// phase bounds.
func windowRun(t *testing.T, start, end *int64, boundsFirst bool) *sdk.Results {
	t.Helper()
	info := streamingInfo()
	info.Goodput = map[string]float64{TagRequestLatency: 250}
	acc, err := NewAccumulator(newCatalog(t, info), info)
	if err != nil {
		t.Fatal(err)
	}
	bounds := func() {
		if start != nil {
			acc.SetPhaseStart(*start)
		}
		if end != nil {
			acc.SetPhaseEnd(*end)
		}
	}
	if boundsFirst {
		bounds()
	}
	for i := range int64(100) {
		latency := int64(100_000_000)
		if i < 20 {
			latency = 300_000_000
		}
		acc.Add(timedRecord(1_000_000_000+i*100_000_000, latency, 10))
	}
	if !boundsFirst {
		bounds()
	}
	return acc.Summarize()
}

func ns(sec float64) *int64 { v := int64(sec * 1e9); return &v }

// AIPerf 0.13 divides request, output-token and goodput throughput by the
// profiling phase's end − start (observation_duration over the phase's
// start_ns and requests_end_ns), not by benchmark_duration (first request
// to last response), which it still reports unchanged.
func TestThroughputsUseTheProfilingPhaseWindow(t *testing.T) {
	cases := []struct {
		name        string
		start, end  *int64
		boundsFirst bool
		windowS     float64 // 0: the rates are absent
	}{
		// The runner reports both bounds: phase start 0, phase end at the
		// last response. 100 requests over 11 s, not 10.
		{"phase start 0 to last response", ns(0), ns(11), false, 11},
		{"bounds reported before the records", ns(0), ns(11), true, 11},
		// The phase ends after the last successful response (a failed or
		// cancelled request, the grace period): its end counts.
		{"phase end after the last response", ns(0), ns(12.5), false, 12.5},
		// A bound that was not reported falls back to the first request /
		// last response.
		{"start only: ends at the last response", ns(0), nil, false, 11},
		{"end only: starts at the first request", nil, ns(12), false, 11},
		// Without a phase (the accumulator fed directly) the window is
		// benchmark_duration, as AIPerf falls back to it without bounds.
		{"no phase bounds", nil, nil, false, 10},
		// An empty or inverted window has no rates (AIPerf: NoMetricValue
		// on a zero observation duration).
		{"empty window", ns(11), ns(11), false, 0},
		{"inverted window", ns(12), ns(11), false, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := windowRun(t, tc.start, tc.end, tc.boundsFirst)
			// The duration, counts and totals never depend on the window.
			fixed := map[string]float64{
				TagBenchmarkDuration: 10, TagMinRequestTS: 1e9, TagMaxResponseTS: 11e9,
				TagRequestCount: 100, TagGoodRequestCount: 80, TagTotalOSL: 1000,
			}
			for tag, want := range fixed {
				if got := avg(t, res, tag); !near(got, want) {
					t.Errorf("%s = %v, want %v", tag, got, want)
				}
			}
			if res.BenchmarkDurationS != 10 {
				t.Errorf("BenchmarkDurationS = %v, want 10 (first request to last response)", res.BenchmarkDurationS)
			}
			if tc.windowS == 0 {
				assertNoResult(t, res, TagRequestThroughput, TagOutputThroughput, TagGoodput)
				return
			}
			rates := map[string]float64{
				TagRequestThroughput: 100 / tc.windowS,
				TagOutputThroughput:  1000 / tc.windowS,
				TagGoodput:           80 / tc.windowS,
			}
			for tag, want := range rates {
				if got := avg(t, res, tag); !near(got, want) {
					t.Errorf("%s = %v, want %v (over a %v s window)", tag, got, want, tc.windowS)
				}
			}
		})
	}
}

// The rates still need benchmark_duration (AIPerf's required_metrics): a run
// whose duration is invalid has no rates even inside a phase window.
func TestPhaseWindowWithoutBenchmarkDurationHasNoRates(t *testing.T) {
	acc, err := NewAccumulator(newCatalog(t, streamingInfo()), streamingInfo())
	if err != nil {
		t.Fatal(err)
	}
	acc.SetPhaseStart(0)
	acc.SetPhaseEnd(10e9)
	acc.Add(timedRecord(5e9, 0, 3)) // min request == max response
	res := acc.Summarize()
	assertNoResult(t, res, TagBenchmarkDuration, TagRequestThroughput, TagOutputThroughput)
	if got := avg(t, res, TagRequestCount); got != 1 {
		t.Errorf("request_count = %v, want 1", got)
	}
}

// The runner reports the bounds from its own goroutine while records are
// still being added (run with -race).
func TestPhaseBoundsConcurrentWithAdd(t *testing.T) {
	acc, err := NewAccumulator(newCatalog(t, streamingInfo()), streamingInfo())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		acc.SetPhaseStart(0)
		acc.SetPhaseEnd(4e9)
	}()
	for i := range int64(4) {
		acc.Add(timedRecord(1e9+i*1e8, 1e8, 1))
	}
	<-done
	if got := avg(t, acc.Summarize(), TagRequestThroughput); !near(got, 1) {
		t.Errorf("request_throughput = %v, want 4 requests / 4 s", got)
	}
}
