package metrics

import (
	"cmp"
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
// exporters can filter.
// StartTime/EndTime are the observed span of all records; WasCancelled is
// left for the caller, which knows how the run ended.
func (a *Accumulator) Summarize() *sdk.Results {
	cat := a.cat
	res := &sdk.Results{
		Metrics:          make([]sdk.MetricResult, 0, len(cat.defs)+len(a.extraOrder)),
		ErrorSummary:     a.errorSummary(),
		CompletedRecords: int(a.records.Load()),
	}
	if a.firstStartNs <= a.lastEndNs {
		res.StartTime = time.Unix(0, a.firstStartNs)
		res.EndTime = time.Unix(0, a.lastEndNs)
	}

	// AIPerf's error-adjusted view of the metrics flagged
	// PERCENTILE_INCLUDES_FAILED_REQUESTS, when there were failures.
	failed := a.errored.Load()
	var adj []adjusted
	for id := range a.series {
		if !cat.on[id] || a.series[id].len() == 0 {
			continue
		}
		e := &cat.defs[id]
		sorted := a.series[id].values()
		res.Metrics = append(res.Metrics, recordResult(e, statsInPlace(sorted)))
		if failed > 0 && e.Flags.Has(sdk.FlagPercentileIncludesFailedRequests) {
			adj = append(adj, adjustedOf(e, sorted, failed))
		}
	}
	// The derived latencies of every record: full stats, like record metrics.
	for _, t := range a.fam.timings() {
		if id := cat.runLevelID(t.i); cat.on[id] && t.s.len() > 0 {
			res.Metrics = append(res.Metrics, recordResult(&cat.defs[id], statsInPlace(t.s.values())))
		}
	}
	for _, tag := range a.extraOrder {
		e := entry{Def: Def{MetricSpec: sdk.MetricSpec{Tag: tag, Header: tag}}, div: 1, order: NoDisplayOrder}
		res.Metrics = append(res.Metrics, recordResult(&e, statsInPlace(a.extra[tag].values())))
	}

	agg := a.runLevel()
	for i := range numRunLevel {
		id := cat.runLevelID(i)
		if v, ok := agg.value(i); ok && cat.on[id] {
			res.Metrics = append(res.Metrics, scalarResult(&cat.defs[id], v))
		}
	}
	if d, ok := agg.value(rlBenchmarkDuration); ok && cat.on[cat.runLevelID(rlBenchmarkDuration)] {
		res.BenchmarkDurationS = d / nsPerSec
	}
	// The time-weighted sweep metrics (sweep.go).
	res.Metrics = append(res.Metrics, a.sweepResults()...)

	slices.SortFunc(res.Metrics, func(x, y sdk.MetricResult) int {
		return cmp.Or(cmp.Compare(x.DisplayOrder, y.DisplayOrder), cmp.Compare(x.Tag, y.Tag))
	})
	// The adj_* results have no display order; like AIPerf's they come
	// last, in their metrics' display order (TTFT, request latency, decode
	// duration, ITL).
	slices.SortFunc(adj, func(x, y adjusted) int {
		return cmp.Or(cmp.Compare(x.order, y.order), cmp.Compare(x.res.Tag, y.res.Tag))
	})
	for _, x := range adj {
		res.Metrics = append(res.Metrics, x.res)
	}
	return res
}

// runLevel holds the aggregate and derived values in base units; a metric
// without a value is absent.
type runLevel struct {
	v   [numRunLevel]float64
	has [numRunLevel]bool
}

func (r *runLevel) set(i runLevelIdx, x float64) { r.v[i], r.has[i] = x, true }

func (r *runLevel) value(i runLevelIdx) (float64, bool) { return r.v[i], r.has[i] }

// seriesOf returns the values of a record metric, nil when undeclared.
func (a *Accumulator) seriesOf(id metricID) *series {
	if id == noMetric {
		return nil
	}
	return &a.series[id]
}

// runLevel computes the aggregate and derived metrics. Dependents of an
// absent metric are absent too (AIPerf's NoMetricValue/ValueError cascade).
func (a *Accumulator) runLevel() runLevel {
	var r runLevel
	if n := a.valid.Load(); n > 0 {
		r.set(rlRequestCount, float64(n))
		if len(a.slos) > 0 {
			// Every valid record contributes 0 or 1, so the count exists
			// (possibly 0) as soon as one valid record arrived.
			r.set(rlGoodRequestCount, float64(a.good.Load()))
		}
	}
	// Zero-error trap: error_request_count is absent, not 0, without errors.
	if n := a.errored.Load(); n > 0 {
		r.set(rlErrorRequestCount, float64(n))
	}
	if a.hasMinTS {
		r.set(rlMinRequestTS, float64(a.minRequestTS))
	}
	if a.hasMaxTS {
		r.set(rlMaxResponseTS, float64(a.maxResponseTS))
	}
	// Derived totals (total_osl, total_isl, total_output_tokens, ...) sum
	// their record metric; absent when it has no values.
	for i := range numRunLevel {
		if s := a.seriesOf(a.cat.sumIDs[i]); s != nil && s.len() > 0 {
			r.set(i, s.sum())
		}
	}
	a.familyRunLevel(&r)
	// benchmark_duration = max response - min request (wall clock); min >= max
	// is invalid and leaves the duration and every rate absent (AIPerf's
	// rates require benchmark_duration even when they divide by the phase).
	if !a.hasMinTS || !a.hasMaxTS || a.minRequestTS >= a.maxResponseTS {
		return r
	}
	r.set(rlBenchmarkDuration, float64(a.maxResponseTS-a.minRequestTS))
	// The rates divide by the observation window: the profiling phase's
	// start to its end (AIPerf 0.13's observation_duration), each bound
	// falling back to min_request / max_response when the runner did not
	// report it. An empty or negative window leaves the rates absent.
	winNs := a.windowEnd() - a.windowStart()
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
func (a *Accumulator) familyRunLevel(r *runLevel) {
	f := &a.fam
	for _, c := range [...]struct {
		i runLevelIdx
		c *counter
	}{{rlOSLMismatchCount, &f.oslMismatch}, {rlUsageDiscrepancyCount, &f.usageDisc}, {rlContextOverflowCount, &f.ctxOverflow}} {
		if c.c.seen > 0 {
			r.set(c.i, float64(c.c.n))
		}
	}
	// completed_request_count and request_error_rate read request_count and
	// error_request_count as optional (absent = 0) and are absent without
	// any record.
	valid, failed := a.valid.Load(), a.errored.Load()
	if total := valid + failed; total > 0 {
		r.set(rlCompletedRequestCount, float64(total))
		r.set(rlRequestErrorRate, 100*float64(failed)/float64(total))
	}
	// good_request_fraction = good / (valid + failed), 0 when nothing was
	// attempted; it exists whenever goodput SLOs do.
	if len(a.slos) > 0 {
		frac := 0.0
		if total := valid + failed; total > 0 {
			frac = float64(a.good.Load()) / float64(total)
		}
		r.set(rlGoodRequestFraction, frac)
	}
}

// windowStart is the profiling phase's start, else the first request's.
func (a *Accumulator) windowStart() int64 {
	if ns, ok := a.phaseStart.load(); ok {
		return ns
	}
	return a.minRequestTS
}

// windowEnd is the profiling phase's end, else the last response's.
func (a *Accumulator) windowEnd() int64 {
	if ns, ok := a.phaseEnd.load(); ok {
		return ns
	}
	return a.maxResponseTS
}

func recordResult(e *entry, s Stats) sdk.MetricResult {
	s = s.scaled(e.div)
	return sdk.MetricResult{
		Tag: e.Tag, Header: e.Header, Unit: e.Display(), Flags: e.Flags,
		DisplayOrder: e.order, Integer: e.Integer,
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
		DisplayOrder: e.order, Integer: e.Integer, Avg: &avg,
	}
}

// errorSummary lists error groups by count, most frequent first; ties keep
// first-seen order.
func (a *Accumulator) errorSummary() []sdk.ErrorCount {
	out := slices.Clone(a.errs)
	slices.SortStableFunc(out, func(x, y sdk.ErrorCount) int { return cmp.Compare(y.Count, x.Count) })
	return out
}
