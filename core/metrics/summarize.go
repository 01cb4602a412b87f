package metrics

import (
	"cmp"
	"math"
	"slices"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Summarize computes the results so far: full stats for record metrics and
// the derived latencies, avg only for aggregate and derived metrics, the
// sweep metrics' time-weighted stats (sweep.go), each in its display unit,
// sorted by display order then tag, followed by the error-adjusted adj_*
// results when some request failed. Hidden metrics
// (benchmark_duration, totals, timestamps) are included with their flags so
// exporters can filter. With a slice duration (SetSliceDuration) it also
// computes every timeslice's results the same way (timeslice.go).
// StartTime/EndTime are the observed span of all records; WasCancelled is
// left for the caller, which knows how the run ended.
func (a *Accumulator) Summarize() *sdk.Results {
	res := &sdk.Results{
		ErrorSummary:     errorSummary(a.errs),
		CompletedRecords: int(a.records.Load()),
	}
	if a.firstStartNs <= a.lastEndNs {
		res.StartTime = time.Unix(0, a.firstStartNs)
		res.EndTime = time.Unix(0, a.lastEndNs)
	}
	// The sweep curves are built once, for the phase's window and every
	// slice's.
	sw := a.buildSweeps()
	t := a.phaseTally()
	rl := t.runLevel(len(a.slos) > 0)
	res.Metrics = a.phaseResults(&t, &rl, sw)
	if d, ok := rl.value(rlBenchmarkDuration); ok && a.cat.on[a.cat.runLevelID(rlBenchmarkDuration)] {
		res.BenchmarkDurationS = d / nsPerSec
	}
	res.Timeslices = a.timeslices(sw)
	return res
}

// phaseResults are the whole phase's results: every record metric, the
// derived latencies of every record (which AIPerf computes over the phase
// only), the undeclared tags, the run-level metrics rl of tally t and the
// sweep metrics over the phase's window.
func (a *Accumulator) phaseResults(t *tally, rl *runLevel, sw *sweepSet) []sdk.MetricResult {
	cat := a.cat
	rs := resultSet{failed: t.failed,
		metrics: make([]sdk.MetricResult, 0, len(cat.defs)+len(a.extraOrder))}
	for id := range a.series {
		if cat.on[id] && a.series[id].len() > 0 {
			rs.add(&cat.defs[id], a.series[id].values())
		}
	}
	for _, tm := range a.fam.timings() {
		if id := cat.runLevelID(tm.i); cat.on[id] && tm.s.len() > 0 {
			rs.add(&cat.defs[id], tm.s.values())
		}
	}
	for _, tag := range a.extraOrder {
		rs.add(extraEntry(tag), a.extra[tag].values())
	}
	rs.addRunLevel(cat, rl)
	// Run-scoped: never per timeslice (AIPerf's timeslice_derivable False).
	rs.metrics = append(rs.metrics, a.replay.results(cat)...)
	rs.metrics = append(rs.metrics, a.phaseSweepResults(sw)...)
	return rs.sorted()
}

// extraEntry describes a tag nobody declared: its tag is its header, it
// has no unit and no display order.
func extraEntry(tag string) *entry {
	return &entry{Def: Def{MetricSpec: sdk.MetricSpec{Tag: tag, Header: tag}}, div: 1, order: NoDisplayOrder}
}

// resultSet collects one set of results, the phase's or a timeslice's, so
// both are built by the same code.
type resultSet struct {
	// failed counts the failed records of the set, for the adj_* views.
	failed  int64
	metrics []sdk.MetricResult
	adj     []adjusted
}

// add appends the full statistics of a metric's values (base units; sorted
// in place) and, for a metric flagged PERCENTILE_INCLUDES_FAILED_REQUESTS
// when records failed, AIPerf's error-adjusted view of them.
func (rs *resultSet) add(e *entry, vals []float64) {
	rs.metrics = append(rs.metrics, recordResult(e, statsInPlace(vals)))
	if rs.failed > 0 && e.Flags.Has(sdk.FlagPercentileIncludesFailedRequests) {
		rs.adj = append(rs.adj, adjustedOf(e, vals, rs.failed))
	}
}

// addRunLevel appends the applicable aggregate and derived metrics that
// have a value.
func (rs *resultSet) addRunLevel(cat *Catalog, r *runLevel) {
	for i := range numRunLevel {
		id := cat.runLevelID(i)
		if v, ok := r.value(i); ok && cat.on[id] {
			rs.metrics = append(rs.metrics, scalarResult(&cat.defs[id], v))
		}
	}
}

// sorted returns the results by display order then tag, then the adj_*
// results: they have no display order and, like AIPerf's, come last, in
// their metrics' display order (TTFT, request latency, decode duration,
// ITL).
func (rs *resultSet) sorted() []sdk.MetricResult {
	slices.SortFunc(rs.metrics, func(x, y sdk.MetricResult) int {
		return cmp.Or(cmp.Compare(x.DisplayOrder, y.DisplayOrder), cmp.Compare(x.Tag, y.Tag))
	})
	slices.SortFunc(rs.adj, func(x, y adjusted) int {
		return cmp.Or(cmp.Compare(x.order, y.order), cmp.Compare(x.res.Tag, y.res.Tag))
	})
	for _, x := range rs.adj {
		rs.metrics = append(rs.metrics, x.res)
	}
	return rs.metrics
}

// runLevel holds the aggregate and derived values in base units; a metric
// without a value is absent.
type runLevel struct {
	v   [numRunLevel]float64
	has [numRunLevel]bool
}

func (r *runLevel) set(i runLevelIdx, x float64) { r.v[i], r.has[i] = x, true }

func (r *runLevel) value(i runLevelIdx) (float64, bool) { return r.v[i], r.has[i] }

// tally is what the run-level metrics are computed from: the whole phase's
// counts (phaseTally) or the share of one timeslice's records
// (timeslice.go).
type tally struct {
	valid, failed, good         int64
	minRequestTS, maxResponseTS int64
	hasMinTS, hasMaxTS          bool
	// counters are the families' counters, by familyCounter.
	counters [numFamilyCounters]counter
	// totals are the sums the derived totals read (total_osl, ...).
	totals runLevel
	// win0 and win1 bound the throughputs' window (epoch ns).
	win0, win1 int64
}

func newTally() tally {
	return tally{minRequestTS: math.MaxInt64, maxResponseTS: math.MinInt64}
}

// phaseTally is the whole phase's tally. The throughputs' window is the
// profiling phase, each bound falling back to min_request /
// max_response when the runner did not report it (AIPerf 0.13's
// observation_duration).
func (a *Accumulator) phaseTally() tally {
	t := tally{
		valid: a.valid.Load(), failed: a.errored.Load(), good: a.good.Load(),
		minRequestTS: a.minRequestTS, maxResponseTS: a.maxResponseTS,
		hasMinTS: a.hasMinTS, hasMaxTS: a.hasMaxTS,
		counters: a.fam.counters(),
		win0:     a.minRequestTS, win1: a.maxResponseTS,
	}
	if ns, ok := a.phaseStart.load(); ok {
		t.win0 = ns
	}
	if ns, ok := a.phaseEnd.load(); ok {
		t.win1 = ns
	}
	for id := range a.series {
		if s := &a.series[id]; s.len() > 0 {
			t.addTotal(a.cat, metricID(id), s.sum())
		}
	}
	return t
}

// addTotal notes the sum of record metric id's values for the derived
// totals that sum it.
func (t *tally) addTotal(cat *Catalog, id metricID, sum float64) {
	for i := range numRunLevel {
		if cat.sumIDs[i] == id {
			t.totals.set(i, sum)
		}
	}
}

// runLevel computes the aggregate and derived metrics. Dependents of an
// absent metric are absent too (AIPerf's NoMetricValue/ValueError cascade).
func (t *tally) runLevel(hasSLOs bool) runLevel {
	var r runLevel
	if t.valid > 0 {
		r.set(rlRequestCount, float64(t.valid))
		if hasSLOs {
			// Every valid record contributes 0 or 1, so the count exists
			// (possibly 0) as soon as one valid record arrived.
			r.set(rlGoodRequestCount, float64(t.good))
		}
	}
	// Zero-error trap: error_request_count is absent, not 0, without errors.
	if t.failed > 0 {
		r.set(rlErrorRequestCount, float64(t.failed))
	}
	if t.hasMinTS {
		r.set(rlMinRequestTS, float64(t.minRequestTS))
	}
	if t.hasMaxTS {
		r.set(rlMaxResponseTS, float64(t.maxResponseTS))
	}
	// Derived totals (total_osl, total_isl, total_output_tokens, ...) sum
	// their record metric; absent when it has no values.
	for i := range numRunLevel {
		if v, ok := t.totals.value(i); ok {
			r.set(i, v)
		}
	}
	t.familyRunLevel(&r, hasSLOs)
	// benchmark_duration = max response - min request (wall clock); min >= max
	// is invalid and leaves the duration and every rate absent (AIPerf's
	// rates require benchmark_duration even when they divide by the window).
	if !t.hasMinTS || !t.hasMaxTS || t.minRequestTS >= t.maxResponseTS {
		return r
	}
	r.set(rlBenchmarkDuration, float64(t.maxResponseTS-t.minRequestTS))
	// The rates divide by the observation window; an empty or negative
	// one leaves them absent.
	winNs := t.win1 - t.win0
	if winNs <= 0 {
		return r
	}
	durS := float64(winNs) / nsPerSec
	rate := func(dst, src runLevelIdx) {
		if x, ok := r.value(src); ok {
			r.set(dst, x/durS)
		}
	}
	rate(rlOutputThroughput, rlTotalOSL)
	rate(rlRequestThroughput, rlRequestCount)
	rate(rlGoodput, rlGoodRequestCount)
	rate(rlInputThroughput, rlTotalISL)
	if isl, ok := r.value(rlTotalISL); ok {
		if osl, ok := r.value(rlTotalOSL); ok {
			r.set(rlTotalThroughput, (isl+osl)/durS)
		}
	}
	return r
}

// familyRunLevel sets the counters and request-count ratios of AIPerf 0.13's
// families (docs/METRICS.md §2.4).
func (t *tally) familyRunLevel(r *runLevel, hasSLOs bool) {
	for c, i := range familyCounterMetrics {
		if t.counters[c].seen > 0 {
			r.set(i, float64(t.counters[c].n))
		}
	}
	// completed_request_count and request_error_rate read request_count and
	// error_request_count as optional (absent = 0) and are absent without
	// any record.
	total := t.valid + t.failed
	if total > 0 {
		r.set(rlCompletedRequestCount, float64(total))
		r.set(rlRequestErrorRate, 100*float64(t.failed)/float64(total))
	}
	// good_request_fraction = good / (valid + failed), 0 when nothing was
	// attempted; it exists whenever goodput SLOs do.
	if hasSLOs {
		frac := 0.0
		if total > 0 {
			frac = float64(t.good) / float64(total)
		}
		r.set(rlGoodRequestFraction, frac)
	}
}

func recordResult(e *entry, s Stats) sdk.MetricResult {
	s = s.scaled(e.div)
	return sdk.MetricResult{
		Tag: e.Tag, Header: e.Header, Unit: e.Display(), Flags: e.Flags,
		DisplayOrder: e.order, Integer: e.Integer, ConsoleGroup: e.ConsoleGroup,
		Avg: &s.Avg, Min: &s.Min, Max: &s.Max,
		P1: &s.P1, P5: &s.P5, P10: &s.P10, P25: &s.P25, P50: &s.P50,
		P75: &s.P75, P90: &s.P90, P95: &s.P95, P99: &s.P99,
		Std: &s.Std, Count: &s.Count, Sum: &s.Sum,
	}
}

func scalarResult(e *entry, base float64) sdk.MetricResult {
	avg := e.toDisplay(base)
	return sdk.MetricResult{
		Tag: e.Tag, Header: e.Header, Unit: e.Display(), Flags: e.Flags,
		DisplayOrder: e.order, Integer: e.Integer, ConsoleGroup: e.ConsoleGroup, Avg: &avg,
	}
}

// errorSummary lists error groups by count, most frequent first; ties keep
// first-seen order.
func errorSummary(errs []sdk.ErrorCount) []sdk.ErrorCount {
	out := slices.Clone(errs)
	slices.SortStableFunc(out, func(x, y sdk.ErrorCount) int { return cmp.Compare(y.Count, x.Count) })
	return out
}
