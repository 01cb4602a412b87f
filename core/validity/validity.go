// Package validity decides whether a profile run measured the server or
// aiperf itself (issue 14, docs/METRICS.md "Run validity"): the client's CPU
// use, the achieved request rate and schedule lag of open-loop runs, the
// in-flight requests of closed-loop runs, and latency percentiles corrected
// for coordinated omission.
package validity

import (
	"fmt"
	"math"
	"time"

	"github.com/aiperf-go/aiperf/core/metrics"
)

// Verdicts of a run.
const (
	// Valid: nothing says the client held the run back.
	Valid = "VALID"
	// ClientLimited: aiperf was the bottleneck; the numbers describe the
	// client, not the server.
	ClientLimited = "CLIENT-LIMITED"
	// Invalid: the run measured nothing usable (no successful request).
	Invalid = "INVALID"
)

// Thresholds are the verdict's bounds. Defaults holds the documented values
// (docs/METRICS.md); a caller may pass others.
type Thresholds struct {
	// MinRateRatio: an open-loop run missed its target when the achieved
	// request rate is below this fraction of it.
	MinRateRatio float64
	// LagFloor is the least schedule-lag p99 that counts as the sender
	// falling behind; the bound is the larger of it and one mean
	// inter-arrival gap (1/target rate): a p99 later than a whole gap
	// means requests bunched up behind the sender.
	LagFloor time.Duration
	// CPUSaturated: the client's CPU is saturated when its CPU time over
	// the profiling phase is at least this fraction of GOMAXPROCS cores.
	CPUSaturated float64
	// MinConcurrencyRatio: a closed-loop run missed its target when the
	// time-averaged in-flight requests are below this fraction of it.
	MinConcurrencyRatio float64
	// CeilingRatio: an open-loop run's --concurrency ceiling held the rate
	// back (the server, not the client) when the average in flight reached
	// this fraction of it.
	CeilingRatio float64
}

// Defaults are the documented thresholds.
var Defaults = Thresholds{
	MinRateRatio:        0.95,
	LagFloor:            time.Millisecond,
	CPUSaturated:        0.90,
	MinConcurrencyRatio: 0.90,
	CeilingRatio:        0.90,
}

// Input is what was measured during the profiling phase.
type Input struct {
	// Mode is the profiling phase's timing mode (config.TimingMode).
	Mode string
	// OpenLoop: requests are sent on a schedule (request rate, user-centric
	// rate, fixed schedule), whatever the responses do.
	OpenLoop bool
	// TargetRate is the open-loop target in requests/s (0: none, as for a
	// fixed schedule). TargetConcurrency is the closed-loop target, or the
	// open-loop ceiling (0: none).
	TargetRate        float64
	TargetConcurrency int

	// Cores is GOMAXPROCS; CPU is the client's user+system CPU time and
	// Wall the profiling phase's wall time. CPUKnown is false where the
	// platform has no getrusage.
	Cores    int
	CPU      time.Duration
	Wall     time.Duration
	CPUKnown bool

	// Sent is how many requests started in the measuring window, Window
	// its length: from the phase start (after any ramp) to the last start.
	Sent   int
	Window time.Duration
	// InFlight is the time-averaged number of requests in flight over the
	// window; InFlightKnown is false when the window is empty.
	InFlight      float64
	InFlightKnown bool

	// Lag are the scheduled requests' schedule lags (start - scheduled),
	// ns; empty for closed-loop runs.
	Lag []float64
	// Successful and Records count the profiling phase's records.
	Successful int
	Records    int

	// Latency and TTFT are the successful requests' measured request
	// latency and time to first token, ns; CorrectedLatency and
	// CorrectedTTFT the same measured from the scheduled send time (open
	// loop only).
	Latency, TTFT                   []float64
	CorrectedLatency, CorrectedTTFT []float64
}

// Report is the verdict and what it rests on; it is validity.json's
// "validity" object.
type Report struct {
	Verdict string `json:"verdict"`
	// Reasons say why the verdict is not VALID; Notes say why a missed
	// target was not held against the client.
	Reasons  []string `json:"reasons"`
	Notes    []string `json:"notes,omitempty"`
	Mode     string   `json:"mode"`
	OpenLoop bool     `json:"open_loop"`

	ClientCPU   *CPU         `json:"client_cpu,omitempty"`
	RequestRate *Rate        `json:"request_rate,omitempty"`
	ScheduleLag *Lag         `json:"schedule_lag,omitempty"`
	Concurrency *Concurrency `json:"concurrency,omitempty"`
	// Corrected are the coordinated-omission corrected percentiles beside
	// the measured ones (open loop only).
	Corrected []Corrected `json:"coordinated_omission,omitempty"`

	Thresholds ThresholdsJSON `json:"thresholds"`
}

// CPU is the client's CPU use over the profiling phase.
type CPU struct {
	CPUSeconds  float64 `json:"cpu_seconds"`
	WallSeconds float64 `json:"wall_seconds"`
	Cores       int     `json:"cores"`
	// UtilizationPct is CPU time / (wall time * cores), in %.
	UtilizationPct float64 `json:"utilization_pct"`
	Saturated      bool    `json:"saturated"`
}

// Rate is the open-loop achieved request rate against its target.
type Rate struct {
	Target   float64 `json:"target"`
	Achieved float64 `json:"achieved"`
	// Ratio is Achieved / Target.
	Ratio         float64 `json:"ratio"`
	Sent          int     `json:"sent"`
	WindowSeconds float64 `json:"window_seconds"`
	Missed        bool    `json:"missed"`
}

// Lag is the schedule lag's percentiles, ms, and the bound p99 is held to.
type Lag struct {
	P50Ms   float64 `json:"p50_ms"`
	P99Ms   float64 `json:"p99_ms"`
	BoundMs float64 `json:"bound_ms"`
	Exceeds bool    `json:"exceeds"`
}

// Concurrency is the time-averaged in-flight requests against the target
// (closed loop) or ceiling (open loop).
type Concurrency struct {
	Target      int     `json:"target"`
	AvgInFlight float64 `json:"avg_in_flight"`
	Ratio       float64 `json:"ratio"`
	// Missed: a closed-loop run below its target; Bound: an open-loop run
	// at its ceiling.
	Missed bool `json:"missed,omitempty"`
	Bound  bool `json:"bound,omitempty"`
}

// Corrected is one metric's p50/p90/p99 as measured and as corrected, ms.
type Corrected struct {
	Tag       string      `json:"tag"`
	Header    string      `json:"header"`
	Unit      string      `json:"unit"`
	Measured  Percentiles `json:"measured"`
	Corrected Percentiles `json:"corrected"`
}

// Percentiles are p50, p90 and p99.
type Percentiles struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
}

// ThresholdsJSON are the thresholds the verdict used, in export units.
type ThresholdsJSON struct {
	MinRateRatio        float64 `json:"min_rate_ratio"`
	LagFloorMs          float64 `json:"lag_floor_ms"`
	CPUSaturatedPct     float64 `json:"cpu_saturated_pct"`
	MinConcurrencyRatio float64 `json:"min_concurrency_ratio"`
	CeilingRatio        float64 `json:"ceiling_ratio"`
}

const nsPerMs = 1e6

// Evaluate applies the rules (docs/METRICS.md "Run validity") to what was
// measured.
func Evaluate(in Input, th Thresholds) *Report {
	r := &Report{Verdict: Valid, Reasons: []string{}, Mode: in.Mode, OpenLoop: in.OpenLoop, Thresholds: ThresholdsJSON{
		MinRateRatio: th.MinRateRatio, LagFloorMs: float64(th.LagFloor) / nsPerMs, CPUSaturatedPct: th.CPUSaturated * 100,
		MinConcurrencyRatio: th.MinConcurrencyRatio, CeilingRatio: th.CeilingRatio,
	}}
	saturated := false
	if in.CPUKnown && in.Wall > 0 && in.Cores > 0 {
		util := in.CPU.Seconds() / (in.Wall.Seconds() * float64(in.Cores))
		saturated = util >= th.CPUSaturated
		r.ClientCPU = &CPU{CPUSeconds: in.CPU.Seconds(), WallSeconds: in.Wall.Seconds(), Cores: in.Cores,
			UtilizationPct: util * 100, Saturated: saturated}
	}
	if in.InFlightKnown && in.TargetConcurrency > 0 {
		ratio := in.InFlight / float64(in.TargetConcurrency)
		r.Concurrency = &Concurrency{Target: in.TargetConcurrency, AvgInFlight: in.InFlight, Ratio: ratio}
		if in.OpenLoop {
			r.Concurrency.Bound = ratio >= th.CeilingRatio
		} else {
			r.Concurrency.Missed = ratio < th.MinConcurrencyRatio
		}
	}
	if in.OpenLoop {
		r.openLoop(in, th, saturated)
	} else if c := r.Concurrency; c != nil && c.Missed {
		why := fmt.Sprintf("average in flight %.2f is %.0f%% of --concurrency %d (below %.0f%%)", c.AvgInFlight, c.Ratio*100, c.Target, th.MinConcurrencyRatio*100)
		if saturated {
			r.limited(why + fmt.Sprintf(" while the client's CPU was saturated (%.0f%% of %d cores)", r.ClientCPU.UtilizationPct, in.Cores))
		} else {
			r.Notes = append(r.Notes, why+"; the client's CPU was not saturated, so it is not held against the client")
		}
	}
	if in.OpenLoop && len(in.Latency)+len(in.TTFT) > 0 {
		r.Corrected = corrected(in)
	}
	// Breakage outranks the client: with no successful request there is
	// nothing the verdict could qualify.
	if in.Successful == 0 {
		r.Verdict = Invalid
		msg := "no request succeeded"
		if in.Records == 0 {
			msg = "no request was measured"
		}
		r.Reasons = append([]string{msg}, r.Reasons...)
	}
	return r
}

// openLoop applies the open-loop rules: a missed rate with the sender
// behind its schedule or its CPU saturated is the client's doing, unless a
// --concurrency ceiling held the rate back.
func (r *Report) openLoop(in Input, th Thresholds, saturated bool) {
	lagExceeds := false
	if len(in.Lag) > 0 {
		s := metrics.ComputeStats(in.Lag)
		bound := float64(th.LagFloor)
		if in.TargetRate > 0 {
			bound = math.Max(bound, 1e9/in.TargetRate)
		}
		p99 := s.P99
		lagExceeds = p99 > bound
		r.ScheduleLag = &Lag{P50Ms: s.P50 / nsPerMs, P99Ms: p99 / nsPerMs, BoundMs: bound / nsPerMs, Exceeds: lagExceeds}
	}
	capped := r.Concurrency != nil && r.Concurrency.Bound
	if in.TargetRate > 0 && in.Window > 0 && in.Sent > 0 {
		achieved := float64(in.Sent) / in.Window.Seconds()
		ratio := achieved / in.TargetRate
		missed := ratio < th.MinRateRatio
		r.RequestRate = &Rate{Target: in.TargetRate, Achieved: achieved, Ratio: ratio, Sent: in.Sent,
			WindowSeconds: in.Window.Seconds(), Missed: missed}
		if !missed {
			return
		}
		why := fmt.Sprintf("achieved %.4g requests/s is %.0f%% of the %.4g target (below %.0f%%)", achieved, ratio*100, in.TargetRate, th.MinRateRatio*100)
		switch {
		case saturated:
			r.limited(why + fmt.Sprintf(" while the client's CPU was saturated (%.0f%% of %d cores)", r.ClientCPU.UtilizationPct, in.Cores))
		case capped:
			// Waiting on the ceiling is the server being slow: the run is
			// valid at that concurrency.
			r.Notes = append(r.Notes, why+fmt.Sprintf("; the --concurrency ceiling %d held it back (average in flight %.2f), not the client",
				r.Concurrency.Target, r.Concurrency.AvgInFlight))
		case lagExceeds:
			r.limited(why + fmt.Sprintf(" and the schedule lag p99 %.3g ms exceeds %.3g ms: the sender fell behind its schedule",
				r.ScheduleLag.P99Ms, r.ScheduleLag.BoundMs))
		default:
			// Random arrivals (poisson, gamma) over a short run miss the
			// mean rate by chance while the sender keeps its schedule.
			r.Notes = append(r.Notes, why+"; the sender kept its schedule and its CPU was not saturated, so it is not held against the client")
		}
		return
	}
	// No rate target (a fixed schedule): a late schedule with the CPU
	// saturated.
	if lagExceeds && saturated && !capped {
		r.limited(fmt.Sprintf("the schedule lag p99 %.3g ms exceeds %.3g ms while the client's CPU was saturated (%.0f%% of %d cores)",
			r.ScheduleLag.P99Ms, r.ScheduleLag.BoundMs, r.ClientCPU.UtilizationPct, in.Cores))
	}
}

func (r *Report) limited(reason string) {
	r.Verdict = ClientLimited
	r.Reasons = append(r.Reasons, reason)
}

// corrected pairs each metric's measured percentiles with the corrected
// ones, ms.
func corrected(in Input) []Corrected {
	var out []Corrected
	for _, m := range []struct {
		tag, header    string
		measured, corr []float64
	}{
		{"time_to_first_token", "Time to First Token", in.TTFT, in.CorrectedTTFT},
		{"request_latency", "Request Latency", in.Latency, in.CorrectedLatency},
	} {
		if len(m.measured) == 0 || len(m.corr) == 0 {
			continue
		}
		out = append(out, Corrected{Tag: m.tag, Header: m.header, Unit: "ms", Measured: pcts(m.measured), Corrected: pcts(m.corr)})
	}
	return out
}

func pcts(v []float64) Percentiles {
	// The percentiles of the metrics table (numpy's linear, as AIPerf).
	s := metrics.ComputeStats(v)
	return Percentiles{P50: s.P50 / nsPerMs, P90: s.P90 / nsPerMs, P99: s.P99 / nsPerMs}
}
