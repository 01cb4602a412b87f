package metrics

import (
	"slices"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// AIPerf 0.13's replay send-lag family (replay_sched_lag_metrics.py,
// replay_sched_lag_analyzer.py): how far fixed-schedule sends drifted from
// the trace, anchored at the least-late request.
const (
	TagReplaySchedLagP50   = "replay_sched_lag_p50"
	TagReplaySchedLagP90   = "replay_sched_lag_p90"
	TagReplaySchedLagP99   = "replay_sched_lag_p99"
	TagReplaySchedDegraded = "replay_sched_degraded"
	UnitCount              = "count"
)

// ReplaySchedDegradedThresholdMs is AIPerf's REPLAY_SCHED_DEGRADED_THRESHOLD_MS:
// a run whose anchored p99 send lag exceeds it is flagged degraded.
const ReplaySchedDegradedThresholdMs = 500.0

// replayLag keeps each successful scheduled request's send offset: actual
// minus intended send time, ns. Only differences between offsets are
// reported, so the clock's origin does not matter (AIPerf subtracts a
// schedule-relative time from a wall clock; we use the perf clock for both).
type replayLag struct {
	on      bool
	offsets series
}

func newReplayLag(cat *Catalog) replayLag {
	return replayLag{on: cat.on[cat.runLevelID(rlReplaySchedLagP50)]}
}

// add records a successful request's offset when it was scheduled (the
// first turn of a trace entry; later turns are delay-scheduled and have
// none, as in AIPerf).
func (r *replayLag) add(rec *sdk.RequestRecord) {
	if r.on && rec.ScheduledNs > 0 && rec.StartPerfNs > 0 {
		r.offsets.add(float64(rec.StartPerfNs - rec.ScheduledNs))
	}
}

// results are the three anchored percentiles (ms) and the degraded flag,
// each with count 1 as AIPerf injects them; none without an offset.
func (r *replayLag) results(cat *Catalog) []sdk.MetricResult {
	if !r.on || r.offsets.len() == 0 {
		return nil
	}
	anchored := r.offsets.values()
	least := slices.Min(anchored)
	for i, x := range anchored {
		anchored[i] = (x - least) / nsPerMs
	}
	s := statsInPlace(anchored) // numpy's linear percentiles
	degraded := 0.0
	if s.P99 > ReplaySchedDegradedThresholdMs {
		degraded = 1
	}
	one := int64(1)
	out := make([]sdk.MetricResult, 0, 4)
	for _, v := range []struct {
		i   runLevelIdx
		val float64
	}{{rlReplaySchedLagP50, s.P50}, {rlReplaySchedLagP90, s.P90}, {rlReplaySchedLagP99, s.P99}, {rlReplaySchedDegraded, degraded}} {
		m := scalarResult(&cat.defs[cat.runLevelID(v.i)], v.val)
		m.Count = &one
		out = append(out, m)
	}
	return out
}
