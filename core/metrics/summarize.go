package metrics

import (
	"cmp"
	"slices"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Summarize computes the results so far: full stats for record metrics, avg
// only for aggregate and derived metrics, each in its display unit, sorted by
// display order then tag. Hidden metrics (benchmark_duration, totals,
// timestamps) are included with their flags so exporters can filter.
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

	for id := range a.series {
		if cat.on[id] && a.series[id].len() > 0 {
			res.Metrics = append(res.Metrics, recordResult(&cat.defs[id], statsInPlace(a.series[id].values())))
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

	slices.SortFunc(res.Metrics, func(x, y sdk.MetricResult) int {
		return cmp.Or(cmp.Compare(x.DisplayOrder, y.DisplayOrder), cmp.Compare(x.Tag, y.Tag))
	})
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
	if s := a.seriesOf(a.cat.osl); s != nil && s.len() > 0 {
		r.set(rlTotalOSL, s.sum())
	}
	if s := a.seriesOf(a.cat.isl); s != nil && s.len() > 0 {
		r.set(rlTotalISL, s.sum())
	}
	// benchmark_duration = max response - min request (wall clock); min >= max
	// is invalid and leaves the duration and every rate absent.
	if !a.hasMinTS || !a.hasMaxTS || a.minRequestTS >= a.maxResponseTS {
		return r
	}
	durNs := float64(a.maxResponseTS - a.minRequestTS)
	r.set(rlBenchmarkDuration, durNs)
	durS := durNs / nsPerSec
	rate := func(dst, src runLevelIdx) {
		if x, ok := r.value(src); ok {
			r.set(dst, x/durS)
		}
	}
	rate(rlOutputThroughput, rlTotalOSL)
	rate(rlRequestThroughput, rlRequestCount)
	rate(rlGoodput, rlGoodRequestCount)
	return r
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
