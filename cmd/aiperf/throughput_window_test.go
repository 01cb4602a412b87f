package main

// End-to-end check of the throughput window: AIPerf 0.13 divides request,
// output-token and goodput throughput by the profiling phase's end − start
// (the phase start, before the first credit, to its end once every request
// finished), while benchmark_duration stays first request to last response.

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
)

// exportTime parses the JSON's start_time / end_time (local time, µs).
func exportTime(t *testing.T, r *profileRun, key string) time.Time {
	t.Helper()
	var s string
	if err := json.Unmarshal(r.summary[key], &s); err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	for _, layout := range []string{"2006-01-02T15:04:05.000000", "2006-01-02T15:04:05"} {
		if at, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return at
		}
	}
	t.Fatalf("%s %q is not an export timestamp", key, s)
	return time.Time{}
}

// A constant 10 requests/s schedule sends its first request one 100 ms gap
// after the phase starts: the throughputs count that gap, benchmark_duration
// does not. With a warmup, the window still starts at the profiling phase.
func TestThroughputWindowStartsAtThePhaseStart(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 5 * time.Millisecond, ITL: time.Millisecond})
	const gap = 100 * time.Millisecond // 1 / --request-rate
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"request rate", nil},
		{"request rate after a warmup", []string{"--warmup-request-count", "3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"-m", "m", "-u", url, "--streaming", "--request-rate", "10",
				"--arrival-pattern", "constant", "--request-count", "5", "--isl", "16", "--osl", "4",
				"--extra-inputs", "ignore_eos:true", "--goodput", "request_latency:60000"}, tc.args...)
			r := profile(t, args...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			count := *r.mustMetric(t, "request_count").Avg
			duration := time.Duration(*r.mustMetric(t, "benchmark_duration").Avg * 1e9)
			window := time.Duration(count / *r.mustMetric(t, "request_throughput").Avg * 1e9)
			phaseStart, phaseEnd := exportTime(t, r, "start_time"), exportTime(t, r, "end_time")
			ss := spans(t, r)
			if count != 5 || len(ss) != 5 {
				t.Fatalf("request_count %v, %d JSONL records; want 5", count, len(ss))
			}
			firstStart, lastEnd := ss[0].start, ss[0].end
			for _, s := range ss {
				firstStart, lastEnd = min(firstStart, s.start), max(lastEnd, s.end)
			}
			lead := time.Duration(firstStart - phaseStart.UnixNano())
			tail := time.Duration(phaseEnd.UnixNano() - lastEnd)
			t.Logf("phase %v, window %v, benchmark_duration %v, first request %v after the phase start, phase end %v after the last response",
				phaseEnd.Sub(phaseStart), window, duration, lead, tail)

			// The first request really left one schedule gap after the phase start.
			if lead < gap*8/10 || lead > gap*3 {
				t.Errorf("first request %v after the phase start, want about %v", lead, gap)
			}
			// request_throughput = request_count / (phase end − phase start),
			// the exported profiling span (µs timestamps): not the warmup's.
			if d := (window - phaseEnd.Sub(phaseStart)).Abs(); d > 2*time.Millisecond {
				t.Errorf("request_throughput window %v, profiling phase %v: off by %v", window, phaseEnd.Sub(phaseStart), d)
			}
			// …which is benchmark_duration plus the lead before the first
			// request and the phase's close after the last response.
			if window-duration < gap*8/10 {
				t.Errorf("window %v − benchmark_duration %v = %v: the lead before the first request (%v) is not counted",
					window, duration, window-duration, lead)
			}
			if d := (window - duration - lead - tail).Abs(); d > 5*time.Millisecond {
				t.Errorf("window %v ≠ benchmark_duration %v + lead %v + tail %v (off by %v)", window, duration, lead, tail, d)
			}
			// benchmark_duration itself stays first request to last response.
			if span := time.Duration(lastEnd - firstStart); duration > span+time.Millisecond || duration < span-10*time.Millisecond {
				t.Errorf("benchmark_duration %v, first request to last response %v", duration, span)
			}
			// Output-token throughput and goodput share the window.
			osl := r.mustMetric(t, "output_sequence_length")
			otps := *r.mustMetric(t, "output_token_throughput").Avg
			if want := *osl.Sum / window.Seconds(); math.Abs(otps-want) > 1e-3*want {
				t.Errorf("output_token_throughput %v, want total OSL %v / window %v = %v", otps, *osl.Sum, window, want)
			}
			good := *r.mustMetric(t, "good_request_count").Avg
			if gp, want := *r.mustMetric(t, "goodput").Avg, good/window.Seconds(); good != 5 || math.Abs(gp-want) > 1e-3*want {
				t.Errorf("goodput %v (good %v), want %v over the window", gp, good, want)
			}
		})
	}
}
