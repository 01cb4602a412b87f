package metrics

import (
	"math"
	"slices"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// This file holds AIPerf 0.13's sweep metrics (docs/METRICS.md §2.5): the
// time-weighted statistics of step functions built from every record's
// start, first token, chunks and end (aiperf/metrics/accumulator_sweeps.py
// and aiperf/analysis/sweepline*.py; the machinery is in sweepline.go).
//
// Design: Add keeps a few numbers per record (sweepRec: its start, first
// token and end as float64 epoch ns, its ISL and OSL, and how many
// inter-chunk latencies it added to the inter_chunk_latency series the
// accumulator keeps anyway); Summarize rebuilds every chunk's time from
// that series, in record order, exactly as AIPerf replays its ragged ICL
// column. Nothing per chunk is kept beyond the series the run already has.

// Tags of the sweep metrics, in AIPerf's result order.
const (
	TagEffectiveConcurrency              = "effective_concurrency"
	TagEffectiveDecodeThroughput         = "effective_decode_throughput"
	TagEffectivePrefillThroughput        = "effective_prefill_throughput"
	TagEffectiveDecodeConcurrency        = "effective_decode_concurrency"
	TagEffectivePrefillConcurrency       = "effective_prefill_concurrency"
	TagEffectiveTotalThroughput          = "effective_total_throughput"
	TagEffectiveDecodeThroughputPerUser  = "effective_decode_throughput_per_user"
	TagEffectivePrefillThroughputPerUser = "effective_prefill_throughput_per_user"
	TagTokensInFlight                    = "tokens_in_flight"
	TagActiveDecodeThroughput            = "active_decode_throughput"
	TagActivePrefillThroughput           = "active_prefill_throughput"
	TagActiveDecodeThroughputPerUser     = "active_decode_throughput_per_user"
	TagActivePrefillThroughputPerUser    = "active_prefill_throughput_per_user"
	TagActiveTotalThroughput             = "active_total_throughput"
)

// The record metrics the sweeps read besides ISL and OSL (their ids are
// looked up in the catalog; values in any time unit are converted to ns).
const (
	sweepTagTTFT = "time_to_first_token"
	sweepTagICL  = "inter_chunk_latency"
)

// sweepIdx indexes sweepDefs.
type sweepIdx int

const (
	swConcurrency sweepIdx = iota
	swDecodeThroughput
	swPrefillThroughput
	swDecodeConcurrency
	swPrefillConcurrency
	swTotalThroughput
	swDecodeThroughputPerUser
	swPrefillThroughputPerUser
	swTokensInFlight
	swActiveDecodeThroughput
	swActivePrefillThroughput
	swActiveDecodeThroughputPerUser
	swActivePrefillThroughputPerUser
	swActiveTotalThroughput
	numSweep
)

// sweepDefs are AIPerf's SWEEP_LINE_METRIC_SPECS and active variants:
// tags, headers and units as it writes them, in its order. AIPerf builds
// them outside its metric registry (no flags, short header or display
// order), in console groups EFFECTIVE and ACTIVE; their display orders
// here only keep AIPerf's order, after every registered metric (its
// unordered results keep insertion order).
var sweepDefs = [numSweep]sdk.MetricSpec{
	swConcurrency:                    sweepSpec(swConcurrency, TagEffectiveConcurrency, "Effective Concurrency", UnitRequests),
	swDecodeThroughput:               sweepSpec(swDecodeThroughput, TagEffectiveDecodeThroughput, "Effective Decode Throughput", UnitTokensPerSec),
	swPrefillThroughput:              sweepSpec(swPrefillThroughput, TagEffectivePrefillThroughput, "Effective Prefill Throughput", UnitTokensPerSec),
	swDecodeConcurrency:              sweepSpec(swDecodeConcurrency, TagEffectiveDecodeConcurrency, "Effective Decode Concurrency", UnitRequests),
	swPrefillConcurrency:             sweepSpec(swPrefillConcurrency, TagEffectivePrefillConcurrency, "Effective Prefill Concurrency", UnitRequests),
	swTotalThroughput:                sweepSpec(swTotalThroughput, TagEffectiveTotalThroughput, "Effective Total Throughput", UnitTokensPerSec),
	swDecodeThroughputPerUser:        sweepSpec(swDecodeThroughputPerUser, TagEffectiveDecodeThroughputPerUser, "Effective Decode Throughput Per User", UnitTokensPerUser),
	swPrefillThroughputPerUser:       sweepSpec(swPrefillThroughputPerUser, TagEffectivePrefillThroughputPerUser, "Effective Prefill Throughput Per User", UnitTokensPerUser),
	swTokensInFlight:                 sweepSpec(swTokensInFlight, TagTokensInFlight, "Tokens In Flight", UnitTokens),
	swActiveDecodeThroughput:         sweepSpec(swActiveDecodeThroughput, TagActiveDecodeThroughput, "Active Decode Throughput", UnitTokensPerSec),
	swActivePrefillThroughput:        sweepSpec(swActivePrefillThroughput, TagActivePrefillThroughput, "Active Prefill Throughput", UnitTokensPerSec),
	swActiveDecodeThroughputPerUser:  sweepSpec(swActiveDecodeThroughputPerUser, TagActiveDecodeThroughputPerUser, "Active Decode Throughput Per User", UnitTokensPerUser),
	swActivePrefillThroughputPerUser: sweepSpec(swActivePrefillThroughputPerUser, TagActivePrefillThroughputPerUser, "Active Prefill Throughput Per User", UnitTokensPerUser),
	swActiveTotalThroughput:          sweepSpec(swActiveTotalThroughput, TagActiveTotalThroughput, "Active Total Throughput", UnitTokensPerSec),
}

func sweepSpec(i sweepIdx, tag, header, unit string) sdk.MetricSpec {
	group := sdk.ConsoleGroupEffective
	if strings.HasPrefix(tag, "active_") {
		group = sdk.ConsoleGroupActive
	}
	return sdk.MetricSpec{Tag: tag, Header: header, Unit: unit, DisplayUnit: unit, ConsoleGroup: group,
		DisplayOrder: SweepDisplayOrder + int(i)}
}

// SweepDisplayOrder is the display order of the first sweep metric; the
// others follow in sweepDefs order, then credit_to_start_latency and
// effective_latency.
const SweepDisplayOrder = 20000

// sweepByTag finds a sweep metric by tag.
var sweepByTag = func() map[string]sweepIdx {
	m := make(map[string]sweepIdx, numSweep)
	for i := range sweepDefs {
		m[sweepDefs[i].Tag] = sweepIdx(i)
	}
	return m
}()

func (c *Catalog) sweepID(i sweepIdx) metricID {
	return metricID(c.nRecord + int(numRunLevel) + int(i))
}

// sweepRec is what the sweeps keep of one record: AIPerf's column-store
// row (start_ns, generation_start_ns, end_ns as float64 epoch ns, ISL, OSL;
// NaN when absent) and how many ICL values the record added to the
// inter_chunk_latency series.
type sweepRec struct {
	start, gen, end, isl, osl float64
	nICL                      int32
}

// The columns of a sweep row.
const (
	colStart = iota
	colGen
	colEnd
	colISL
	colOSL
	colNICL
	numSweepCols
)

// add appends a row.
func (s *sweepState) add(r sweepRec) {
	s.cols[colStart].add(r.start)
	s.cols[colGen].add(r.gen)
	s.cols[colEnd].add(r.end)
	s.cols[colISL].add(r.isl)
	s.cols[colOSL].add(r.osl)
	s.cols[colNICL].add(float64(r.nICL))
	s.n++
}

// rows reads the rows back, in the order added.
func (s *sweepState) rows() []sweepRec {
	recs := make([]sweepRec, s.n)
	set := func(col int, put func(r *sweepRec, v float64)) {
		i := 0
		s.cols[col].each(func(vals []float64) {
			for _, v := range vals {
				put(&recs[i], v)
				i++
			}
		})
	}
	set(colStart, func(r *sweepRec, v float64) { r.start = v })
	set(colGen, func(r *sweepRec, v float64) { r.gen = v })
	set(colEnd, func(r *sweepRec, v float64) { r.end = v })
	set(colISL, func(r *sweepRec, v float64) { r.isl = v })
	set(colOSL, func(r *sweepRec, v float64) { r.osl = v })
	set(colNICL, func(r *sweepRec, v float64) { r.nICL = int32(v) })
	return recs
}

// sweepState is the accumulator's sweep input.
type sweepState struct {
	on bool // some sweep metric applies
	// cols hold the records' rows by column (sweepCol), so they spill to
	// disk with the series instead of staying resident: 48 bytes per
	// request, read only by Summarize.
	cols [numSweepCols]series
	n    int
	// Record metrics read (noMetric when undeclared) and the factor their
	// values are multiplied by to get ns.
	ttft, icl, isl, osl metricID
	ttftNs, iclNs       float64
}

func newSweepState(cat *Catalog) sweepState {
	s := sweepState{ttft: cat.recordID(sweepTagTTFT), icl: cat.recordID(sweepTagICL), isl: cat.isl, osl: cat.osl}
	for i := range numSweep {
		s.on = s.on || cat.on[cat.sweepID(i)]
	}
	// Latencies in a time unit other than ns are converted; a non-time
	// unit makes the metric unusable for the sweeps.
	s.ttftNs, s.ttft = nsFactor(cat, s.ttft)
	s.iclNs, s.icl = nsFactor(cat, s.icl)
	return s
}

func nsFactor(cat *Catalog, id metricID) (float64, metricID) {
	if id == noMetric {
		return 0, noMetric
	}
	f, ok := timeUnits[cat.defs[id].Unit]
	if !ok {
		return 0, noMetric
	}
	return f, id
}

// iclLen is how many values the inter_chunk_latency series holds.
func (a *Accumulator) iclLen() int {
	if !a.sweep.on || a.sweep.icl == noMetric {
		return 0
	}
	return a.series[a.sweep.icl].len()
}

// addSweep keeps a record's sweep row, failed records included (AIPerf
// ingests every record of the phase; a failed one has only its start and
// end). iclBefore is iclLen before the record's values were added.
func (a *Accumulator) addSweep(rec *sdk.RequestRecord, values map[string]sdk.MetricValue, valid bool, iclBefore int) {
	s := &a.sweep
	if !s.on {
		return
	}
	nan := math.NaN()
	r := sweepRec{start: nan, gen: nan, end: nan, isl: nan, osl: nan}
	if rec.TimestampNs != 0 {
		// request_start_ns; request_end_ns is the same wall clock moved by
		// the request's monotonic duration.
		r.start = float64(rec.TimestampNs)
		if rec.EndPerfNs != 0 {
			r.end = float64(rec.TimestampNs + (rec.EndPerfNs - rec.StartPerfNs))
		}
		// generation_start_ns = request_start_ns + int(ttft_ns).
		if ttft, ok := a.scalarOf(values, s.ttft, valid); ok {
			r.gen = float64(rec.TimestampNs + int64(ttft*s.ttftNs))
		}
	}
	if v, ok := a.scalarOf(values, s.isl, valid); ok {
		r.isl = v
	}
	if v, ok := a.scalarOf(values, s.osl, valid); ok {
		r.osl = v
	}
	if n := a.iclLen() - iclBefore; n > 0 {
		r.nICL = int32(n)
	}
	s.add(r)
}

// scalarOf is a record's scalar value of metric id when the catalog admits
// it for the record (what the accumulator stored).
func (a *Accumulator) scalarOf(values map[string]sdk.MetricValue, id metricID, valid bool) (float64, bool) {
	if id == noMetric {
		return 0, false
	}
	e := &a.cat.defs[id]
	if !e.gate.admits(valid) {
		return 0, false
	}
	mv, ok := values[e.Tag]
	if !ok || mv.IsList || math.IsNaN(mv.Scalar) {
		return 0, false
	}
	return mv.Scalar, true
}

// sweepSet is the phase's sweep curves, built once per Summarize and read
// over the phase's window and every timeslice's (AIPerf builds them once
// for both too).
type sweepSet struct {
	c sweepCurves
	w *sweepWork
}

// buildSweeps builds the curves from every record kept (AIPerf's
// compute_sweep_curves); nil when no sweep metric applies or no record was
// added.
func (a *Accumulator) buildSweeps() *sweepSet {
	s := &a.sweep
	if !s.on || s.n == 0 {
		return nil
	}
	recs := s.rows()
	var icl []float64
	if s.icl != noMetric {
		icl = a.series[s.icl].values()
		total := 0
		for i := range recs {
			total += int(recs[i].nICL)
		}
		if total != len(icl) {
			icl = nil // cannot happen: Add counts what it appends
		}
		if s.iclNs != 1 {
			for i := range icl {
				icl[i] *= s.iclNs
			}
		}
	}
	c, w := buildSweepCurves(recs, icl)
	return &sweepSet{c: c, w: w}
}

// sweepResults computes the sweep metrics over the phase from freshly
// built curves.
func (a *Accumulator) sweepResults() []sdk.MetricResult {
	return a.phaseSweepResults(a.buildSweeps())
}

// phaseSweepResults are the sweep metrics over the phase (AIPerf's
// _inject_sweep_metrics): none without a record that has both a start and
// an end; otherwise every applicable one, zero stats where its curve is
// empty. The window is the profiling phase, each bound falling back to the
// first or last event of the concurrency curve when the runner did not
// report it.
func (a *Accumulator) phaseSweepResults(sw *sweepSet) []sdk.MetricResult {
	if sw == nil || len(sw.c.conc.ts) == 0 {
		return nil
	}
	w0, w1 := sw.c.conc.ts[0], sw.c.conc.ts[len(sw.c.conc.ts)-1]
	if ns, ok := a.phaseStart.load(); ok {
		w0 = float64(ns)
	}
	if ns, ok := a.phaseEnd.load(); ok {
		w1 = float64(ns)
	}
	return a.sweepResultsOver(sw, w0, w1)
}

// sweepResultsOver is every applicable sweep metric's statistics over
// [w0, w1] (SweepLineCurves.compute_metrics); nil without curves.
func (a *Accumulator) sweepResultsOver(sw *sweepSet, w0, w1 float64) []sdk.MetricResult {
	if sw == nil {
		return nil
	}
	stats := sw.c.stats(w0, w1, sw.w)
	out := make([]sdk.MetricResult, 0, numSweep)
	for i := range numSweep {
		id := a.cat.sweepID(i)
		if a.cat.on[id] {
			out = append(out, sweepResult(&a.cat.defs[id], stats[i], sweepScale(i)))
		}
	}
	return out
}

// sweepScale is what a sweep metric's stats are multiplied by: the rates
// are in tokens/ns and shown per second.
func sweepScale(i sweepIdx) float64 {
	switch i {
	case swConcurrency, swDecodeConcurrency, swPrefillConcurrency, swTokensInFlight:
		return 1
	}
	return nsPerSec
}

// sweepResult is metric_result_from_sweep_line_stats: each stat scaled,
// non-finite ones left out (AIPerf's scrub_non_finite writes them as null,
// which its JSON export then omits).
func sweepResult(e *entry, st sweepStats, scale float64) sdk.MetricResult {
	f := func(x float64) *float64 {
		x *= scale
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return &x
	}
	return sdk.MetricResult{
		Tag: e.Tag, Header: e.Header, Unit: e.Display(), Flags: e.Flags, DisplayOrder: e.order, ConsoleGroup: e.ConsoleGroup,
		Avg: f(st.avg), Min: f(st.min), Max: f(st.max),
		P50: f(st.p50), P90: f(st.p90), P95: f(st.p95), P99: f(st.p99), Std: f(st.std),
	}
}

// sweepCurves are AIPerf's SweepLineCurves.
type sweepCurves struct {
	conc, genConc, prefillConc   stepFn
	tput, prefillTput, totalTput stepFn
	tputPerUser, prefillPerUser  stepFn
	tokensInFlight               stepFn
}

// stats computes every sweep metric's statistics over [w0, w1], by
// sweepIdx (SweepLineCurves.compute_metrics).
func (c *sweepCurves) stats(w0, w1 float64, w *sweepWork) [numSweep]sweepStats {
	var st [numSweep]sweepStats
	for i, f := range [...]*stepFn{
		swConcurrency: &c.conc, swDecodeThroughput: &c.tput, swPrefillThroughput: &c.prefillTput,
		swDecodeConcurrency: &c.genConc, swPrefillConcurrency: &c.prefillConc, swTotalThroughput: &c.totalTput,
		swDecodeThroughputPerUser: &c.tputPerUser, swPrefillThroughputPerUser: &c.prefillPerUser,
		swTokensInFlight: &c.tokensInFlight,
	} {
		st[i] = timeWeighted(*f, w0, w1, w)
	}
	// Active variants: weighted only where their phase has a record in
	// flight.
	for _, v := range [...]struct {
		i          sweepIdx
		rate, mask *stepFn
	}{
		{swActiveDecodeThroughput, &c.tput, &c.genConc},
		{swActivePrefillThroughput, &c.prefillTput, &c.prefillConc},
		{swActiveDecodeThroughputPerUser, &c.tputPerUser, &c.genConc},
		{swActivePrefillThroughputPerUser, &c.prefillPerUser, &c.prefillConc},
		{swActiveTotalThroughput, &c.totalTput, &c.conc},
	} {
		st[v.i] = activeWeighted(*v.rate, *v.mask, w0, w1, w)
	}
	return st
}

func isNaN(x float64) bool { return x != x }

// buildSweepCurves is compute_sweep_curves over the records and the
// inter-chunk latencies (ns) they added, in record order. With no ICL value
// at all, decode throughput and tokens in flight fall back to the
// request-level curves, as AIPerf does when ICL was not recorded. The
// events' buffers are handed on as the statistics' scratch space: a
// curve's segments are at most one more than its events.
func buildSweepCurves(recs []sweepRec, icl []float64) (sweepCurves, *sweepWork) {
	// Room for the concurrency curves (2 events per record); the larger
	// ones (ICL decode throughput: 2 per chunk, total throughput: 4 per
	// record) grow it when the run has them. Sized for the largest up front
	// it held 128 MB at a million non-streaming records, which have none.
	// buf is the sort's scratch, grown by sweepLine.
	ev := make([]sweepEvent, 0, 2*len(recs)+1)
	var buf []sweepEvent
	var c sweepCurves

	// concurrency_sweep_line(a, b): +1 at a, -1 at b for every record with
	// both.
	concurrency := func(a, b func(*sweepRec) float64) stepFn {
		ev = ev[:0]
		for i := range recs {
			if x, y := a(&recs[i]), b(&recs[i]); !isNaN(x) && !isNaN(y) {
				ev = append(ev, sweepEvent{x, 1})
			}
		}
		for i := range recs {
			if x, y := a(&recs[i]), b(&recs[i]); !isNaN(x) && !isNaN(y) {
				ev = append(ev, sweepEvent{y, -1})
			}
		}
		return sweepLine(ev, &buf)
	}
	start := func(r *sweepRec) float64 { return r.start }
	gen := func(r *sweepRec) float64 { return r.gen }
	end := func(r *sweepRec) float64 { return r.end }
	c.conc = concurrency(start, end)
	c.genConc = concurrency(gen, end)
	c.prefillConc = concurrency(start, gen)

	// Per-record rates of the request-level curves.
	prefillOK := func(r *sweepRec) bool {
		return !isNaN(r.start) && !isNaN(r.gen) && !isNaN(r.isl) && r.gen-r.start > 0
	}
	prefillRate := func(r *sweepRec) float64 { return r.isl / (r.gen - r.start) }
	decodeOK := func(r *sweepRec) bool {
		return !isNaN(r.gen) && !isNaN(r.osl) && r.end-r.gen > 0 && r.osl >= 1
	}
	decodeRate := func(r *sweepRec) float64 { return (r.osl - 1) / (r.end - r.gen) }

	// prefill_throughput_sweep_line: ISL / prefill duration over
	// [start, first token).
	ev = ev[:0]
	ev = appendIntervals(ev, recs, prefillOK, start, gen, prefillRate)
	c.prefillTput = sweepLine(ev, &buf)

	// total_throughput_sweep_line: the prefill rate, then the uniform
	// decode rate (OSL - 1) / (end - first token), even with ICL.
	ev = ev[:0]
	ev = appendIntervals(ev, recs, prefillOK, start, gen, prefillRate)
	ev = appendIntervals(ev, recs, decodeOK, gen, end, decodeRate)
	c.totalTput = sweepLine(ev, &buf)

	// Decode throughput: per chunk with ICL, else uniform per record.
	ev = ev[:0]
	if len(icl) > 0 {
		ev = appendICLThroughput(ev, recs, icl)
	} else {
		ev = appendIntervals(ev, recs, decodeOK, gen, end, decodeRate)
	}
	c.tput = sweepLine(ev, &buf)

	c.tputPerUser = divideSteps(c.tput, c.genConc)
	c.prefillPerUser = divideSteps(c.prefillTput, c.prefillConc)

	ev = ev[:0]
	if len(icl) > 0 {
		ev = appendICLTokensInFlight(ev, recs, icl)
	} else {
		ev = appendTokensInFlight(ev, recs)
	}
	c.tokensInFlight = sweepLine(ev, &buf)
	return c, &sweepWork{pairs: ev[:0], pbuf: buf[:0]}
}

// appendIntervals appends +rate at from and, after every such event, -rate
// at to, for the records ok selects (numpy's concatenate of starts then
// ends).
func appendIntervals(ev []sweepEvent, recs []sweepRec, ok func(*sweepRec) bool, from, to, rate func(*sweepRec) float64) []sweepEvent {
	for i := range recs {
		if r := &recs[i]; ok(r) {
			ev = append(ev, sweepEvent{from(r), rate(r)})
		}
	}
	for i := range recs {
		if r := &recs[i]; ok(r) {
			ev = append(ev, sweepEvent{to(r), -rate(r)})
		}
	}
	return ev
}

// forEachChunk walks the ICL values record by record (recs' nICL add up
// to len(icl)), giving each record's values and their running sum: chunk k
// arrives at the first token time + cs[k]. The sum is numpy's: a global
// running sum minus the sum before the record's first value.
func forEachChunk(recs []sweepRec, icl []float64, fn func(i int, vals, cs []float64)) {
	off, global := 0, 0.0
	cs := make([]float64, 0, 256)
	for i := range recs {
		n := int(recs[i].nICL)
		if n == 0 {
			continue
		}
		vals := icl[off : off+n]
		before := global
		cs = cs[:0]
		for _, v := range vals {
			global += v
			cs = append(cs, global-before)
		}
		fn(i, vals, cs)
		off += n
	}
}

// chunkRecordOK: a record's chunks count when it has a first token and at
// least one output token.
func chunkRecordOK(r *sweepRec) bool { return !isNaN(r.gen) && !isNaN(r.osl) && r.osl >= 1 }

// appendICLThroughput is throughput_sweep_line_icl: each positive ICL gap
// of a record carries (OSL - 1) / (its count of positive gaps) tokens at a
// constant rate over the gap; starts first, then ends.
func appendICLThroughput(ev []sweepEvent, recs []sweepRec, icl []float64) []sweepEvent {
	k, off := 0, 0
	for i := range recs {
		n := int(recs[i].nICL)
		if n > 0 && chunkRecordOK(&recs[i]) {
			for _, v := range icl[off : off+n] {
				if v > 0 {
					k++
				}
			}
		}
		off += n
	}
	base := len(ev)
	ev = slices.Grow(ev, 2*k)[:base+2*k]
	starts, ends := ev[base:base+k], ev[base+k:]
	j := 0
	forEachChunk(recs, icl, func(i int, vals, cs []float64) {
		r := &recs[i]
		if !chunkRecordOK(r) {
			return
		}
		nonzero := 0
		for _, v := range vals {
			if v > 0 {
				nonzero++
			}
		}
		perMsg := 0.0
		if nonzero > 0 {
			perMsg = (r.osl - 1) / float64(nonzero)
		}
		for c, v := range vals {
			if !(v > 0) {
				continue
			}
			to := r.gen + cs[c]
			rate := perMsg / v
			starts[j], ends[j] = sweepEvent{to - v, rate}, sweepEvent{to, -rate}
			j++
		}
	})
	return ev
}

// appendTokensInFlight is tokens_in_flight_sweep_line (_kv_cache_events):
// a record holds its ISL from its start (when it has a prefill) and its
// OSL from its first token (when it has a decode) until its end.
func appendTokensInFlight(ev []sweepEvent, recs []sweepRec) []sweepEvent {
	pf := func(r *sweepRec) bool {
		return !isNaN(r.start) && !isNaN(r.isl) && !isNaN(r.gen) && r.gen > r.start
	}
	hasGen := func(r *sweepRec) bool { return !isNaN(r.gen) && !isNaN(r.osl) && r.end-r.gen > 0 }
	for i := range recs {
		if r := &recs[i]; pf(r) {
			ev = append(ev, sweepEvent{r.start, r.isl})
		}
	}
	for i := range recs {
		if r := &recs[i]; hasGen(r) {
			ev = append(ev, sweepEvent{r.gen, r.osl})
		}
	}
	// Ends: input and output, input only, output only (in that order).
	for pass := range 3 {
		for i := range recs {
			r := &recs[i]
			if isNaN(r.end) {
				continue
			}
			in, out := pf(r), hasGen(r)
			switch {
			case pass == 0 && in && out:
				ev = append(ev, sweepEvent{r.end, -(r.isl + r.osl)})
			case pass == 1 && in && !out:
				ev = append(ev, sweepEvent{r.end, -r.isl})
			case pass == 2 && out && !in:
				ev = append(ev, sweepEvent{r.end, -r.osl})
			}
		}
	}
	return ev
}

// appendICLTokensInFlight is tokens_in_flight_sweep_line_icl: a record
// holds its ISL from its start (when it has a prefill), 1 token from its
// first token, (OSL - 1) / (its ICL count) more at each later chunk
// (clamped to just before its end), and frees all at its end.
func appendICLTokensInFlight(ev []sweepEvent, recs []sweepRec, icl []float64) []sweepEvent {
	// _icl_chunk_events' has_icl: the records with a valid (>= 0) gap.
	hasICL := make([]bool, len(recs))
	off := 0
	for i := range recs {
		n := int(recs[i].nICL)
		if n > 0 && chunkRecordOK(&recs[i]) {
			for _, v := range icl[off : off+n] {
				if v >= 0 {
					hasICL[i] = true
					break
				}
			}
		}
		off += n
	}
	// The first token's 1 token.
	for i := range recs {
		if hasICL[i] && chunkRecordOK(&recs[i]) {
			ev = append(ev, sweepEvent{recs[i].gen, 1})
		}
	}
	// The later chunks.
	forEachChunk(recs, icl, func(i int, vals, cs []float64) {
		r := &recs[i]
		if !chunkRecordOK(r) {
			return
		}
		perChunk := (r.osl - 1) / float64(len(vals))
		for c, v := range vals {
			if !(v >= 0) {
				continue
			}
			t := r.gen + cs[c]
			if !isNaN(r.end) && t >= r.end {
				t = math.Nextafter(r.end, math.Inf(-1))
			}
			ev = append(ev, sweepEvent{t, perChunk})
		}
	})
	pf := func(r *sweepRec) bool {
		return !isNaN(r.start) && !isNaN(r.isl) && !isNaN(r.gen) && r.gen > r.start
	}
	for i := range recs {
		if r := &recs[i]; pf(r) {
			ev = append(ev, sweepEvent{r.start, r.isl})
		}
	}
	for pass := range 3 {
		for i := range recs {
			r := &recs[i]
			if isNaN(r.end) {
				continue
			}
			in, out := pf(r), hasICL[i]
			switch {
			case pass == 0 && in && out:
				ev = append(ev, sweepEvent{r.end, -(r.isl + r.osl)})
			case pass == 1 && in && !out:
				ev = append(ev, sweepEvent{r.end, -r.isl})
			case pass == 2 && out && !in:
				ev = append(ev, sweepEvent{r.end, -r.osl})
			}
		}
	}
	return ev
}
