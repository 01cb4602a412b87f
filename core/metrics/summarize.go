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
	res := &sdk.Results{
		Metrics:          make([]sdk.MetricResult, 0, numMetrics),
		ErrorSummary:     a.errorSummary(),
		CompletedRecords: int(a.records.Load()),
	}
	if a.firstStartNs <= a.lastEndNs {
		res.StartTime = time.Unix(0, a.firstStartNs)
		res.EndTime = time.Unix(0, a.lastEndNs)
	}

	for id := range numMetrics {
		def := &registry[id]
		if def.Kind == KindRecord && a.on[id] && a.series[id].len() > 0 {
			res.Metrics = append(res.Metrics, recordResult(def, statsInPlace(a.series[id].values())))
		}
	}
	for _, tag := range a.extraOrder {
		d := Def{Tag: tag, Header: tag, DisplayOrder: NoDisplayOrder}
		res.Metrics = append(res.Metrics, recordResult(&d, statsInPlace(a.extra[tag].values())))
	}

	agg := a.runLevel()
	for id := range numMetrics {
		if v, ok := agg.value(id); ok && a.on[id] {
			res.Metrics = append(res.Metrics, scalarResult(&registry[id], v))
		}
	}
	if d, ok := agg.value(idBenchmarkDuration); ok && a.on[idBenchmarkDuration] {
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
	v   [numMetrics]float64
	has [numMetrics]bool
}

func (r *runLevel) set(id metricID, x float64) { r.v[id], r.has[id] = x, true }

func (r *runLevel) value(id metricID) (float64, bool) { return r.v[id], r.has[id] }

// runLevel computes the aggregate and derived metrics. Dependents of an
// absent metric are absent too (AIPerf's NoMetricValue/ValueError cascade).
func (a *Accumulator) runLevel() runLevel {
	var r runLevel
	if n := a.valid.Load(); n > 0 {
		r.set(idRequestCount, float64(n))
		if len(a.slos) > 0 {
			// Every valid record contributes 0 or 1, so the count exists
			// (possibly 0) as soon as one valid record arrived.
			r.set(idGoodRequestCount, float64(a.good.Load()))
		}
	}
	// Zero-error trap: error_request_count is absent, not 0, without errors.
	if n := a.errored.Load(); n > 0 {
		r.set(idErrorRequestCount, float64(n))
	}
	if a.hasMinTS {
		r.set(idMinRequestTS, float64(a.minRequestTS))
	}
	if a.hasMaxTS {
		r.set(idMaxResponseTS, float64(a.maxResponseTS))
	}
	if a.series[idOSL].len() > 0 {
		r.set(idTotalOSL, a.series[idOSL].sum())
	}
	if a.series[idISL].len() > 0 {
		r.set(idTotalISL, a.series[idISL].sum())
	}
	// benchmark_duration = max response - min request (wall clock); min >= max
	// is invalid and leaves the duration and every rate absent.
	if !a.hasMinTS || !a.hasMaxTS || a.minRequestTS >= a.maxResponseTS {
		return r
	}
	durNs := float64(a.maxResponseTS - a.minRequestTS)
	r.set(idBenchmarkDuration, durNs)
	durS := durNs / nsPerSec
	rate := func(dst, src metricID) {
		if x, ok := r.value(src); ok {
			r.set(dst, x/durS)
		}
	}
	rate(idOutputThroughput, idTotalOSL)
	rate(idRequestThroughput, idRequestCount)
	rate(idGoodput, idGoodRequestCount)
	return r
}

func recordResult(def *Def, s Stats) sdk.MetricResult {
	s = s.scaled(displayDivisor(def.Unit, def.DisplayUnit))
	return sdk.MetricResult{
		Tag: def.Tag, Header: def.Header, Unit: def.DisplayUnit, Flags: def.Flags,
		DisplayOrder: def.DisplayOrder, Integer: def.Integer,
		Avg: &s.Avg, Min: &s.Min, Max: &s.Max,
		P1: &s.P1, P5: &s.P5, P10: &s.P10, P25: &s.P25, P50: &s.P50,
		P75: &s.P75, P90: &s.P90, P95: &s.P95, P99: &s.P99,
		Std: &s.Std, Count: &s.Count, Sum: &s.Sum,
	}
}

func scalarResult(def *Def, base float64) sdk.MetricResult {
	avg := def.ToDisplay(base)
	return sdk.MetricResult{
		Tag: def.Tag, Header: def.Header, Unit: def.DisplayUnit, Flags: def.Flags,
		DisplayOrder: def.DisplayOrder, Integer: def.Integer, Avg: &avg,
	}
}

// errorSummary lists error groups by count, most frequent first; ties keep
// first-seen order.
func (a *Accumulator) errorSummary() []sdk.ErrorCount {
	out := slices.Clone(a.errs)
	slices.SortStableFunc(out, func(x, y sdk.ErrorCount) int { return cmp.Compare(y.Count, x.Count) })
	return out
}
