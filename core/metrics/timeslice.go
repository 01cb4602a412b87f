package metrics

import (
	"errors"
	"fmt"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// This file computes AIPerf 0.13's timeslices (--slice-duration) where
// AIPerf does, in the accumulator (aiperf/metrics/accumulator.py,
// _compute_timeslices): every slice's results come from the same code as
// the phase's (summarize.go), restricted to the records that started in the
// slice, and its sweep metrics are the phase's curves read over the slice's
// window.
//
// Design: the accumulator keeps each value once, in its metric's series.
// With a slice duration it also notes, per record, what the run-level
// metrics read of it (sliceRec: its start and end, whether it succeeded and
// was good, what it added to the families' counters) and, per series, which
// records added its values (valueOwners: a bit per record, plus the count
// of those that did not add exactly one value). Summarize lays the grid
// over the records once, then splits one series at a time among the slices
// (partition), so the extra memory while summarizing is one series' values.

// SetSliceDuration turns the timeslices on: Summarize then also reports the
// results of every d-wide window of the phase in Results.Timeslices. It
// must be called before the first Add, since the accumulator has to note
// which record added each value; 0 turns slicing off.
func (a *Accumulator) SetSliceDuration(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("metrics: slice duration %v is negative", d)
	}
	if a.records.Load() > 0 {
		return errors.New("metrics: the slice duration must be set before the first record is added")
	}
	a.slicer = slicer{}
	if d > 0 {
		a.slicer = slicer{durNs: int64(d), owners: make([]valueOwners, a.cat.nRecord)}
	}
	return nil
}

// slicer is what the accumulator keeps for the timeslices; empty without a
// slice duration.
type slicer struct {
	durNs int64
	// recs has one entry per record added, in Add order.
	recs []sliceRec
	// owners says which records added the values of each record metric's
	// series, by metric id; extraOwners the same for undeclared tags.
	owners      []valueOwners
	extraOwners map[string]*valueOwners
}

func (s *slicer) on() bool { return s.durNs > 0 }

// sliceRec is what the timeslices read of one record besides its values.
type sliceRec struct {
	// start and end are request_start_ns and request_end_ns (epoch ns), 0
	// when unknown.
	start, end int64
	// responseEnd is start + request latency: the record's
	// max_response_timestamp, with recHasResponse.
	responseEnd int64
	flags       recFlags
}

type recFlags uint16

const (
	recValid recFlags = 1 << iota
	recGood
	recHasResponse
	// Then two bits per familyCounter: the record contributed to the
	// counter (seen), and was counted (hit).
	recCounterBits
)

func counterSeen(c familyCounter) recFlags { return recCounterBits << (2 * c) }
func counterHit(c familyCounter) recFlags  { return recCounterBits << (2*c + 1) }

// recordOutcome is what Add learnt of a record beyond its values.
type recordOutcome struct {
	valid, good                   bool
	seen                          *recordValues
	countersBefore, countersAfter [numFamilyCounters]counter
}

// addRecord keeps a record's sliceRec; a no-op without slicing.
func (s *slicer) addRecord(rec *sdk.RequestRecord, o recordOutcome) {
	if !s.on() {
		return
	}
	r := sliceRec{start: rec.TimestampNs}
	// request_end_ns is the wall start moved by the monotonic duration, as
	// for the sweeps (AIPerf reads both from the same column).
	if rec.TimestampNs != 0 && rec.EndPerfNs != 0 {
		r.end = rec.TimestampNs + (rec.EndPerfNs - rec.StartPerfNs)
	}
	if o.valid {
		r.flags |= recValid
		if end, ok := o.seen.responseEnd(rec); ok {
			r.responseEnd, r.flags = end, r.flags|recHasResponse
		}
	}
	if o.good {
		r.flags |= recGood
	}
	for c := range numFamilyCounters {
		before, after := o.countersBefore[c], o.countersAfter[c]
		if after.seen > before.seen {
			r.flags |= counterSeen(c)
		}
		if after.n > before.n {
			r.flags |= counterHit(c)
		}
	}
	s.recs = append(s.recs, r)
}

// own notes that the record being added added mv to record metric id's
// series.
func (s *slicer) own(id metricID, mv sdk.MetricValue) {
	if s.on() {
		s.owners[id].note(len(s.recs), valueCount(mv))
	}
}

// ownExtra is own for a tag nobody declared.
func (s *slicer) ownExtra(tag string, mv sdk.MetricValue) {
	if !s.on() {
		return
	}
	if s.extraOwners == nil {
		s.extraOwners = make(map[string]*valueOwners)
	}
	o := s.extraOwners[tag]
	if o == nil {
		o = &valueOwners{}
		s.extraOwners[tag] = o
	}
	o.note(len(s.recs), valueCount(mv))
}

// valueCount is how many values series.addValue appends for mv.
func valueCount(mv sdk.MetricValue) int {
	if mv.IsList {
		return len(mv.List)
	}
	return 1
}

// timeslices computes every non-empty slice's results: the record metrics'
// statistics and the run-level metrics over the slice's records, by the
// phase's code, and the sweep metrics over the slice's window. The derived
// latencies of every record (credit_to_start_latency, effective_latency)
// are left out: AIPerf derives them over the whole phase only. (Its other
// run-scoped family, the replay send lag, has no counterpart here.) nil
// without a slice duration or records.
func (a *Accumulator) timeslices(sw *sweepSet) []sdk.TimesliceResult {
	if !a.slicer.on() {
		return nil
	}
	grid := buildSliceGrid(a.slicer.recs, a.slicer.durNs)
	if len(grid.windows) == 0 {
		return nil
	}
	tallies := a.sliceTallies(&grid)
	sets := make([]resultSet, len(grid.windows))
	for k := range sets {
		sets[k].failed = tallies[k].failed
	}
	a.addSlicedSeries(&grid, tallies, sets)
	hasSLOs := len(a.slos) > 0
	out := make([]sdk.TimesliceResult, len(grid.windows))
	for k, w := range grid.windows {
		rl := tallies[k].runLevel(hasSLOs)
		sets[k].addRunLevel(a.cat, &rl)
		sets[k].metrics = append(sets[k].metrics, a.sweepResultsOver(sw, w.w0, w.w1)...)
		out[k] = sdk.TimesliceResult{StartNs: w.startNs, EndNs: w.endNs, Partial: w.partial, Metrics: sets[k].sorted()}
	}
	return out
}

// sliceTallies counts every slice's records as phaseTally counts the
// phase's. A slice's throughputs divide by its window's integer bounds
// (AIPerf's window_start_ns / window_end_ns).
func (a *Accumulator) sliceTallies(g *sliceGrid) []tally {
	tallies := make([]tally, len(g.windows))
	for k, w := range g.windows {
		tallies[k] = newTally()
		tallies[k].win0, tallies[k].win1 = w.startNs, w.endNs
	}
	for i := range a.slicer.recs {
		if k := g.of[i]; k >= 0 {
			tallies[k].countRecord(&a.slicer.recs[i])
		}
	}
	return tallies
}

// countRecord counts one record as Add counts it for the phase.
func (t *tally) countRecord(r *sliceRec) {
	for c := range numFamilyCounters {
		if r.flags&counterSeen(c) != 0 {
			t.counters[c].add(r.flags&counterHit(c) != 0)
		}
	}
	if r.flags&recValid == 0 {
		t.failed++
		return
	}
	t.valid++
	if r.flags&recGood != 0 {
		t.good++
	}
	if r.start < t.minRequestTS {
		t.minRequestTS, t.hasMinTS = r.start, true
	}
	if r.flags&recHasResponse != 0 && r.responseEnd > t.maxResponseTS {
		t.maxResponseTS, t.hasMaxTS = r.responseEnd, true
	}
}

// addSlicedSeries gives every slice the values its records added, one
// series at a time: the statistics of each record metric and undeclared
// tag, and the sums the derived totals read.
func (a *Accumulator) addSlicedSeries(g *sliceGrid, tallies []tally, sets []resultSet) {
	cat := a.cat
	for id := range a.series {
		s := &a.series[id]
		if s.len() == 0 {
			continue
		}
		for k, part := range partition(s, &a.slicer.owners[id], g.of, len(g.windows)) {
			if len(part) == 0 {
				continue
			}
			tallies[k].addTotal(cat, metricID(id), sumOf(part)) // before add sorts it
			if cat.on[id] {
				sets[k].add(&cat.defs[id], part)
			}
		}
	}
	for _, tag := range a.extraOrder {
		owners := a.slicer.extraOwners[tag]
		if owners == nil {
			continue // cannot happen: ownExtra notes every value
		}
		for k, part := range partition(a.extra[tag], owners, g.of, len(g.windows)) {
			if len(part) > 0 {
				sets[k].add(extraEntry(tag), part)
			}
		}
	}
}

// sumOf adds values in order, as series.sum does.
func sumOf(xs []float64) float64 {
	total := 0.0
	for _, x := range xs {
		total += x
	}
	return total
}
