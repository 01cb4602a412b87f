package metrics

import (
	"errors"
	"math"
	"os"
	"runtime"
	"sync/atomic"

	"github.com/aiperf-go/aiperf/core/errclass"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Accumulator folds processed records into exact per-metric arrays and the
// run-level aggregates. Add must be called from one goroutine at a time;
// Snapshot may be called concurrently with Add.
type Accumulator struct {
	cat  *Catalog
	slos []slo

	// series holds every value of each record metric by catalog id, in its
	// declared unit (list metrics pooled across records).
	series []series
	// extra keeps values of tags nobody declared (a misbehaving record
	// processor), reported with their tag as header.
	extra      map[string]*series
	extraOrder []string

	records, valid, errored, good atomic.Int64

	minRequestTS, maxResponseTS int64
	hasMinTS, hasMaxTS          bool
	// firstStartNs/lastEndNs span every record (valid or not) for the
	// results' start and end times.
	firstStartNs, lastEndNs int64

	// phaseStart/phaseEnd are the profiling phase's wall-clock bounds, set
	// by the runner (SetPhaseStart, SetPhaseEnd) from another goroutine than
	// Add's: the throughputs divide by their span (docs/METRICS.md §2.2).
	phaseStart, phaseEnd phaseBound

	errIndex map[sdk.ErrorDetails]int
	errs     []sdk.ErrorCount

	// fam holds the counters and timing series of AIPerf 0.13's metric
	// families (families.go).
	fam families
	// replay keeps the fixed-schedule send offsets (replaylag.go).
	replay replayLag
	// sweep holds what the sweep metrics need of every record (sweep.go).
	sweep sweepState
	// slicer holds what the timeslices need of every record, with a slice
	// duration (timeslice.go).
	slicer slicer
	// spill takes the series' full chunks to disk (spill.go).
	spill *spill
}

// Counts is a cheap point-in-time view for live progress displays.
type Counts struct {
	// Records counts every record added; Valid and Errors split it.
	Records, Valid, Errors int64
	// Good counts valid records meeting every goodput SLO (0 without SLOs).
	Good int64
}

// NewAccumulator prepares an accumulator over the run's catalog. It fails
// when a goodput SLO names a metric that cannot be a target or does not
// apply to the run, or when the catalog was built for a run with(out)
// goodput SLOs and info says otherwise.
func NewAccumulator(cat *Catalog, info sdk.RunInfo) (*Accumulator, error) {
	if cat == nil {
		return nil, errors.New("metrics: NewAccumulator needs the run's catalog")
	}
	if err := ValidateGoodputTags(info.Goodput, cat); err != nil {
		return nil, err
	}
	if (len(info.Goodput) > 0) == cat.disallowed.Has(sdk.FlagGoodput) {
		return nil, errors.New("metrics: the catalog and the accumulator disagree on whether the run has goodput SLOs; build the catalog with the run's final RunInfo")
	}
	th, err := ThresholdsFromEnv(os.Getenv)
	if err != nil {
		return nil, err
	}
	dir := info.ArtifactDir
	if dir == "" {
		dir = os.TempDir()
	}
	a := &Accumulator{
		spill:         newSpill(dir),
		fam:           newFamilies(cat, th),
		replay:        newReplayLag(cat),
		sweep:         newSweepState(cat),
		cat:           cat,
		series:        make([]series, cat.nRecord),
		slos:          resolveSLOs(info.Goodput, cat),
		errIndex:      make(map[sdk.ErrorDetails]int),
		minRequestTS:  math.MaxInt64,
		maxResponseTS: math.MinInt64,
		firstStartNs:  math.MaxInt64,
		lastEndNs:     math.MinInt64,
	}
	for i := range a.series {
		a.series[i].sp = a.spill
	}
	for _, tm := range a.fam.timings() {
		tm.s.sp = a.spill
	}
	for i := range a.sweep.cols {
		a.sweep.cols[i].sp = a.spill
	}
	// The spill file is closed with the accumulator; no Close to forget.
	runtime.AddCleanup(a, func(sp *spill) { sp.close() }, a.spill)
	return a, nil
}

// Err reports a failure to read back values spilled to disk during the run:
// the statistics Summarize returned then cannot be trusted.
func (a *Accumulator) Err() error { return a.spill.err() }

// phaseBound is a wall-clock instant that may be unknown; it is written and
// read from different goroutines. 0 is a valid instant, so a flag says
// whether it was set.
type phaseBound struct {
	ns  atomic.Int64
	set atomic.Bool
}

func (b *phaseBound) store(ns int64) { b.ns.Store(ns); b.set.Store(true) }

func (b *phaseBound) load() (int64, bool) {
	if !b.set.Load() {
		return 0, false
	}
	return b.ns.Load(), true
}

// SetPhaseStart records when the profiling phase began (epoch ns, on the
// same clock as the records' TimestampNs): AIPerf 0.13's phase start_ns,
// taken just before the timing strategy issues its first credit. The
// request, output-token and goodput throughputs are measured from it
// instead of from the first request. Safe to call concurrently with Add.
func (a *Accumulator) SetPhaseStart(wallNs int64) { a.phaseStart.store(wallNs) }

// SetPhaseEnd records when the profiling phase completed (epoch ns): every
// request it started has finished, AIPerf 0.13's requests_end_ns. Without
// it the window ends at max_response_timestamp. Safe to call concurrently
// with Add.
func (a *Accumulator) SetPhaseEnd(wallNs int64) { a.phaseEnd.store(wallNs) }

// Add folds one processed record in. A nil record is ignored.
func (a *Accumulator) Add(rm *sdk.RecordMetrics) {
	if rm == nil || rm.Record == nil {
		return
	}
	rec := rm.Record
	a.records.Add(1)
	a.trackSpan(rec)
	a.fam.addTiming(rec)
	countersBefore := a.fam.counters()
	valid := rec.Valid()
	var seen recordValues
	iclBefore := a.iclLen()
	a.addValues(rm.Values, valid, &seen)
	a.addSweep(rec, rm.Values, valid, iclBefore)
	good := false
	if valid {
		good = a.addValid(rec, rm.Values, &seen)
	} else {
		a.errored.Add(1)
		a.addError(rec.Error)
		a.fam.addFailed(rec.Error)
	}
	a.slicer.addRecord(rec, recordOutcome{valid: valid, good: good, seen: &seen,
		countersBefore: countersBefore, countersAfter: a.fam.counters()})
}

// addValid folds in what a successful record adds beyond its values and
// reports whether it meets every goodput SLO.
func (a *Accumulator) addValid(rec *sdk.RequestRecord, values map[string]sdk.MetricValue, seen *recordValues) bool {
	a.valid.Add(1)
	a.fam.addValid(rec, seen)
	a.replay.add(rec)
	// min/max timestamps are normal aggregate metrics, so like every normal
	// metric they only see successful records.
	if rec.TimestampNs < a.minRequestTS {
		a.minRequestTS, a.hasMinTS = rec.TimestampNs, true
	}
	if end, ok := seen.responseEnd(rec); ok && end > a.maxResponseTS {
		a.maxResponseTS, a.hasMaxTS = end, true
	}
	if len(a.slos) > 0 && isGood(a.slos, values) {
		a.good.Add(1)
		return true
	}
	return false
}

// addValues appends a record's values to their arrays, applying the
// catalog's gate again (values reach Add unfiltered when it is fed
// directly), so no inapplicable metric and no error value in success
// statistics (or the reverse) gets in. It notes in seen the values the
// run-level metrics read (the request latency max_response_timestamp needs,
// the lengths and differences the counters need), in the same pass.
func (a *Accumulator) addValues(values map[string]sdk.MetricValue, valid bool, seen *recordValues) {
	defs, roles := a.cat.defs, a.cat.roles
	for tag, mv := range values {
		id, known := a.cat.index.lookup(tag)
		if !known {
			a.addExtra(tag, mv)
			continue
		}
		if !defs[id].gate.admits(valid) {
			continue
		}
		a.series[id].addValue(mv)
		a.slicer.own(id, mv)
		if r := roles[id]; r != roleNone && !mv.IsList {
			seen.note(r, mv.Scalar)
		}
	}
}

func (a *Accumulator) addExtra(tag string, mv sdk.MetricValue) {
	if a.extra == nil {
		a.extra = make(map[string]*series)
	}
	s, seen := a.extra[tag]
	if !seen {
		s = &series{sp: a.spill}
		a.extra[tag] = s
		a.extraOrder = append(a.extraOrder, tag)
	}
	s.addValue(mv)
	a.slicer.ownExtra(tag, mv)
}

// trackSpan widens the observed start/end wall-clock span.
func (a *Accumulator) trackSpan(rec *sdk.RequestRecord) {
	if rec.TimestampNs == 0 {
		return
	}
	if rec.TimestampNs < a.firstStartNs {
		a.firstStartNs = rec.TimestampNs
	}
	end := rec.TimestampNs
	if rec.EndPerfNs > rec.StartPerfNs {
		end += rec.EndPerfNs - rec.StartPerfNs
	}
	if end > a.lastEndNs {
		a.lastEndNs = end
	}
}

// addError counts an error by its (code, type, message), the message of a
// transport failure normalised so that one failure repeated over many
// connections is one row (see errclass).
func (a *Accumulator) addError(e *sdk.ErrorDetails) {
	key := errclass.GroupKey(*e)
	if i, ok := a.errIndex[key]; ok {
		a.errs[i].Count++
		return
	}
	a.errIndex[key] = len(a.errs)
	a.errs = append(a.errs, sdk.ErrorCount{ErrorDetails: key, Count: 1})
}

// Snapshot returns the current counts; safe to call while Add runs. Add
// bumps records before valid/errors and valid before good, so loading in the
// reverse order keeps Good <= Valid and Valid+Errors <= Records in every view.
func (a *Accumulator) Snapshot() Counts {
	var c Counts
	c.Good = a.good.Load()
	c.Valid = a.valid.Load()
	c.Errors = a.errored.Load()
	c.Records = a.records.Load()
	return c
}
