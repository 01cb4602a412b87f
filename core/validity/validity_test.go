package validity

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// lags returns n schedule lags of d each (ns).
func lags(n int, d time.Duration) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(d)
	}
	return out
}

func TestEvaluateVerdicts(t *testing.T) {
	openLoop := func(rate float64, sent int, window time.Duration, lag time.Duration) Input {
		return Input{Mode: "request_rate", OpenLoop: true, TargetRate: rate, Sent: sent, Window: window,
			Lag: lags(sent, lag), Successful: sent, Records: sent, Cores: 2}
	}
	closedLoop := func(target int, inFlight float64) Input {
		return Input{Mode: "concurrency", TargetConcurrency: target, InFlight: inFlight, InFlightKnown: true,
			Sent: 100, Window: time.Second, Successful: 100, Records: 100, Cores: 2}
	}
	// cpu sets the client's CPU time over a 1 s phase on 2 cores.
	cpu := func(in Input, seconds float64) Input {
		in.CPUKnown, in.Wall, in.CPU = true, time.Second, time.Duration(seconds*float64(time.Second))
		return in
	}
	ceiling := func(in Input, target int, inFlight float64) Input {
		in.TargetConcurrency, in.InFlight, in.InFlightKnown = target, inFlight, true
		return in
	}
	tests := []struct {
		name    string
		in      Input
		verdict string
		reason  string // part of the first reason ("" = none)
		note    string // part of the first note ("" = none)
	}{
		{"rate met", openLoop(50, 100, 2*time.Second, 200*time.Microsecond), Valid, "", ""},
		{"rate exactly 95% is met", openLoop(100, 95, time.Second, 50*time.Millisecond), Valid, "", ""},
		{"rate missed, sender behind its schedule", openLoop(1000, 500, time.Second, 5*time.Millisecond), ClientLimited,
			"achieved 500 requests/s is 50% of the 1000 target (below 95%) and the schedule lag p99 5 ms exceeds 1 ms", ""},
		{"rate missed by chance, schedule kept", openLoop(1000, 900, time.Second, 100*time.Microsecond), Valid,
			"", "achieved 900 requests/s is 90% of the 1000 target"},
		// At 10 requests/s one gap is 100 ms: a 50 ms p99 is within it.
		{"lag bound is one inter-arrival gap", openLoop(10, 8, time.Second, 50*time.Millisecond), Valid, "", "sender kept its schedule"},
		{"rate missed, CPU saturated", cpu(openLoop(1000, 500, time.Second, 0), 1.8), ClientLimited,
			"while the client's CPU was saturated (90% of 2 cores)", ""},
		{"rate missed, CPU busy but below 90%", cpu(openLoop(1000, 500, time.Second, 0), 1.7), Valid, "", "not held against the client"},
		{"rate met, CPU saturated", cpu(openLoop(1000, 990, time.Second, 0), 2), Valid, "", ""},
		{"rate held back by the --concurrency ceiling", ceiling(openLoop(1000, 500, time.Second, 5*time.Millisecond), 10, 9.5), Valid,
			"", "the --concurrency ceiling 10 held it back (average in flight 9.50)"},
		{"ceiling not reached: the sender is to blame", ceiling(openLoop(1000, 500, time.Second, 5*time.Millisecond), 10, 5), ClientLimited,
			"the sender fell behind its schedule", ""},
		{"closed loop at target", cpu(closedLoop(8, 7.9), 2), Valid, "", ""},
		{"closed loop short, CPU saturated", cpu(closedLoop(8, 7), 1.9), ClientLimited,
			"average in flight 7.00 is 88% of --concurrency 8 (below 90%) while the client's CPU was saturated (95% of 2 cores)", ""},
		{"closed loop short, CPU idle", cpu(closedLoop(8, 7), 0.2), Valid, "", "not held against the client"},
		{"closed loop short, CPU unknown", closedLoop(8, 7), Valid, "", "not held against the client"},
		{"fixed schedule late with CPU saturated", cpu(Input{Mode: "fixed_schedule", OpenLoop: true, Lag: lags(10, 20*time.Millisecond), Successful: 10, Records: 10, Cores: 2}, 1.9),
			ClientLimited, "the schedule lag p99 20 ms exceeds 1 ms while the client's CPU was saturated", ""},
		{"fixed schedule late, CPU idle", cpu(Input{Mode: "fixed_schedule", OpenLoop: true, Lag: lags(10, 20*time.Millisecond), Successful: 10, Records: 10, Cores: 2}, 0.1),
			Valid, "", ""},
		{"no request succeeded", Input{Mode: "concurrency", Records: 8, Cores: 2}, Invalid, "no request succeeded", ""},
		{"nothing measured", Input{Mode: "concurrency", Cores: 2}, Invalid, "no request was measured", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Evaluate(tc.in, Defaults)
			if r.Verdict != tc.verdict {
				t.Fatalf("verdict %s, want %s (reasons %q, notes %q)", r.Verdict, tc.verdict, r.Reasons, r.Notes)
			}
			checkFirst(t, "reason", r.Reasons, tc.reason)
			checkFirst(t, "note", r.Notes, tc.note)
		})
	}
}

func checkFirst(t *testing.T, what string, got []string, want string) {
	t.Helper()
	if want == "" {
		if len(got) != 0 {
			t.Errorf("%ss %q, want none", what, got)
		}
		return
	}
	if len(got) == 0 || !strings.Contains(got[0], want) {
		t.Errorf("%ss %q, want the first to contain %q", what, got, want)
	}
}

func TestEvaluateNumbers(t *testing.T) {
	// 100 lags of 0..99 µs: numpy's linear p50 = 49.5 µs, p99 = 98.01 µs.
	lag := make([]float64, 100)
	for i := range lag {
		lag[i] = float64(i) * 1e3
	}
	in := Input{Mode: "request_rate", OpenLoop: true, TargetRate: 40, TargetConcurrency: 4, InFlight: 1, InFlightKnown: true,
		Cores: 4, CPUKnown: true, CPU: 500 * time.Millisecond, Wall: 2500 * time.Millisecond,
		Sent: 100, Window: 2 * time.Second, Lag: lag, Successful: 100, Records: 100,
		Latency: []float64{10e6, 20e6}, CorrectedLatency: []float64{11e6, 20e6}}
	r := Evaluate(in, Defaults)
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	near("cpu %", r.ClientCPU.UtilizationPct, 5) // 0.5 s / (2.5 s * 4 cores)
	near("achieved", r.RequestRate.Achieved, 50)
	near("ratio", r.RequestRate.Ratio, 1.25)
	near("lag p50", r.ScheduleLag.P50Ms, 0.0495)
	near("lag p99", r.ScheduleLag.P99Ms, 0.09801)
	near("lag bound", r.ScheduleLag.BoundMs, 25) // one gap at 40/s
	near("in flight ratio", r.Concurrency.Ratio, 0.25)
	if len(r.Corrected) != 1 || r.Corrected[0].Tag != "request_latency" {
		t.Fatalf("corrected %+v, want request_latency only (no TTFT measured)", r.Corrected)
	}
	c := r.Corrected[0]
	near("measured p50", c.Measured.P50, 15)
	near("corrected p50", c.Corrected.P50, 15.5)
	near("corrected p99", c.Corrected.P99, 11+0.99*9)
	// Closed-loop runs carry no correction.
	in.OpenLoop, in.Mode = false, "concurrency"
	if r := Evaluate(in, Defaults); r.Corrected != nil || r.ScheduleLag != nil || r.RequestRate != nil {
		t.Errorf("closed loop report has open-loop parts: %+v", r)
	}
}

// rec is a profiling record started and ended at the given ms after the
// phase start (base), scheduled at sched ms (<0: not scheduled).
func rec(base int64, start, end, sched float64, latencyMs float64, failed bool) *sdk.RecordMetrics {
	ms := func(v float64) int64 { return base + int64(v*1e6) }
	r := &sdk.RequestRecord{Phase: sdk.PhaseProfiling, StartPerfNs: ms(start), EndPerfNs: ms(end)}
	if sched >= 0 {
		r.ScheduledNs = ms(sched)
	}
	rm := &sdk.RecordMetrics{Record: r, Values: map[string]sdk.MetricValue{}}
	if failed {
		r.Error = &sdk.ErrorDetails{Code: 500, Type: "Internal", Message: "x"}
		return rm
	}
	rm.Values[tagLatency] = sdk.MetricValue{Scalar: latencyMs * 1e6}
	rm.Values[tagTTFT] = sdk.MetricValue{Scalar: latencyMs * 1e6 / 2}
	return rm
}

func TestCollectorInput(t *testing.T) {
	const base = int64(5e9)
	c := NewCollector(true)
	c.Begin()
	c.beginNs, c.endNs = base, base+int64(time.Second)
	c.Add(&sdk.RecordMetrics{Record: &sdk.RequestRecord{Phase: sdk.PhaseWarmup, StartPerfNs: base - 1e6, EndPerfNs: base}})
	c.Add(rec(base, 100, 150, 90, 50, false))                                                                             // 10 ms late
	c.Add(rec(base, 200, 350, 201, 150, false))                                                                           // 1 ms early: not credited
	c.Add(rec(base, 300, 320, -1, 20, false))                                                                             // not scheduled
	c.Add(rec(base, 400, 900, 400, 500, false))                                                                           // on time
	c.Add(rec(base, 250, 260, 250, 0, true))                                                                              // failed
	c.Add(&sdk.RecordMetrics{Record: &sdk.RequestRecord{Phase: sdk.PhaseProfiling, Error: &sdk.ErrorDetails{Type: "x"}}}) // never sent
	tests := []struct {
		name     string
		ramp     time.Duration
		sent     int
		window   time.Duration
		inFlight float64
	}{
		// Busy time within [0, 400] ms: 50 + 150 + 20 + 0 + 10 = 230 ms.
		{"whole phase", 0, 5, 400 * time.Millisecond, 230.0 / 400},
		// After a 150 ms ramp, [150, 400] ms: 0 + 150 + 20 + 0 + 10 = 180 ms.
		{"after the ramp", 150 * time.Millisecond, 4, 250 * time.Millisecond, 180.0 / 250},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := c.Input(Target{Mode: "request_rate", OpenLoop: true, Rate: 10, Ramp: tc.ramp})
			if in.Sent != tc.sent || in.Window != tc.window || math.Abs(in.InFlight-tc.inFlight) > 1e-12 || !in.InFlightKnown {
				t.Errorf("sent %d window %v in flight %v (%v), want %d %v %v", in.Sent, in.Window, in.InFlight, in.InFlightKnown, tc.sent, tc.window, tc.inFlight)
			}
			if in.Records != 6 || in.Successful != 4 || in.Wall != time.Second {
				t.Errorf("records %d successful %d wall %v, want 6 4 1s", in.Records, in.Successful, in.Wall)
			}
			// Lags of the scheduled successful requests (the failed one's
			// is not kept): early sends stay negative here, uncredited above.
			if got := in.Lag; len(got) != 3 || got[0] != 10e6 || got[1] != -1e6 || got[2] != 0 {
				t.Errorf("lags %v, want [10ms -1ms 0]", got)
			}
			if got := in.CorrectedLatency; len(got) != 4 || got[0] != 60e6 || got[1] != 150e6 || got[2] != 20e6 || got[3] != 500e6 {
				t.Errorf("corrected latencies %v, want [60 150 20 500] ms", got)
			}
			if got := in.CorrectedTTFT; len(got) != 4 || got[0] != 35e6 || got[1] != 75e6 {
				t.Errorf("corrected TTFTs %v, want [35 75 ...] ms", got)
			}
		})
	}
	// A closed-loop collector keeps no lags or corrections.
	cl := NewCollector(false)
	cl.Add(rec(base, 100, 150, 90, 50, false))
	if in := cl.Input(Target{Mode: "concurrency", Concurrency: 1}); len(in.Lag)+len(in.CorrectedLatency)+len(in.Latency) != 0 || in.Successful != 1 {
		t.Errorf("closed-loop input %+v", in)
	}
}

func TestCollectorMeasuresCPU(t *testing.T) {
	c := NewCollector(false)
	c.Begin()
	// Burn CPU on this thread so the process's CPU time surely grows.
	deadline := time.Now().Add(30 * time.Millisecond)
	x := 0
	for time.Now().Before(deadline) {
		x++
	}
	c.End()
	in := c.Input(Target{Mode: "concurrency"})
	if _, ok := processCPU(); ok && (!in.CPUKnown || in.CPU <= 0 || in.Wall < 30*time.Millisecond) {
		t.Errorf("CPU %v over %v (known %v) after a 30 ms busy loop (%d)", in.CPU, in.Wall, in.CPUKnown, x)
	}
	var nilC *Collector
	nilC.Begin() // a run without a collector: no panic
	nilC.End()
}

func TestReportFileAndConsole(t *testing.T) {
	r := Evaluate(Input{Mode: "request_rate", OpenLoop: true, TargetRate: 1000, Sent: 500, Window: time.Second,
		Lag: lags(500, 5*time.Millisecond), Successful: 500, Records: 500, Cores: 2,
		TTFT: []float64{1e6}, CorrectedTTFT: []float64{6e6}}, Defaults)
	dir := t.TempDir()
	path, err := r.WriteFile(dir)
	if err != nil || path != filepath.Join(dir, "validity.json") {
		t.Fatalf("WriteFile = %q, %v", path, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Validity struct {
			Verdict     string   `json:"verdict"`
			Reasons     []string `json:"reasons"`
			RequestRate struct {
				Achieved float64 `json:"achieved"`
				Missed   bool    `json:"missed"`
			} `json:"request_rate"`
			CO []struct {
				Tag       string             `json:"tag"`
				Corrected map[string]float64 `json:"corrected"`
			} `json:"coordinated_omission"`
		} `json:"validity"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("validity.json: %v\n%s", err, data)
	}
	v := doc.Validity
	if v.Verdict != ClientLimited || len(v.Reasons) != 1 || v.RequestRate.Achieved != 500 || !v.RequestRate.Missed ||
		len(v.CO) != 1 || v.CO[0].Tag != "time_to_first_token" || v.CO[0].Corrected["p99"] != 6 {
		t.Errorf("validity.json = %s", data)
	}
	var out bytes.Buffer
	r.Print(&out)
	for _, want := range []string{"Run validity: CLIENT-LIMITED", "Request rate: 500/s achieved of 1000/s target (50.0%)",
		"Schedule lag: p50 5.000 ms, p99 5.000 ms (bound 1.000 ms)", "Time to First Token  p50 6.00 (1.00)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("console lacks %q:\n%s", want, out.String())
		}
	}
	if _, err := r.WriteFile(filepath.Join(dir, "missing", "dir")); err == nil || !strings.Contains(err.Error(), "validity.json") {
		t.Errorf("write into a missing directory: %v", err)
	}
}
