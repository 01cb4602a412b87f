package metrics

import (
	"math"
	"sync/atomic"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Accumulator folds processed records into exact per-metric arrays and the
// run-level aggregates. Add must be called from one goroutine at a time;
// Snapshot may be called concurrently with Add.
type Accumulator struct {
	on   [numMetrics]bool
	slos []slo

	// series holds every value of each record metric, in base units
	// (list metrics pooled across records).
	series [numMetrics]series
	// extra keeps values of tags this registry does not know (third-party
	// record processors), reported with their tag as header.
	extra      map[string]*series
	extraOrder []string

	records, valid, errored, good atomic.Int64

	minRequestTS, maxResponseTS int64
	hasMinTS, hasMaxTS          bool
	// firstStartNs/lastEndNs span every record (valid or not) for the
	// results' start and end times.
	firstStartNs, lastEndNs int64

	errIndex map[sdk.ErrorDetails]int
	errs     []sdk.ErrorCount
}

// Counts is a cheap point-in-time view for live progress displays.
type Counts struct {
	// Records counts every record added; Valid and Errors split it.
	Records, Valid, Errors int64
	// Good counts valid records meeting every goodput SLO (0 without SLOs).
	Good int64
}

// NewAccumulator prepares an accumulator for the run. It fails when a goodput
// SLO names a metric that cannot be a target or does not apply to the run.
func NewAccumulator(info sdk.RunInfo) (*Accumulator, error) {
	if err := ValidateGoodputTags(info.Goodput, info); err != nil {
		return nil, err
	}
	return &Accumulator{
		on:            enabledSet(info),
		slos:          resolveSLOs(info.Goodput),
		errIndex:      make(map[sdk.ErrorDetails]int),
		minRequestTS:  math.MaxInt64,
		maxResponseTS: math.MinInt64,
		firstStartNs:  math.MaxInt64,
		lastEndNs:     math.MinInt64,
	}, nil
}

// Add folds one processed record in. A nil record is ignored.
func (a *Accumulator) Add(rm *sdk.RecordMetrics) {
	if rm == nil || rm.Record == nil {
		return
	}
	rec := rm.Record
	a.records.Add(1)
	a.trackSpan(rec)
	valid := rec.Valid()
	a.addValues(rm.Values, valid)
	if !valid {
		a.errored.Add(1)
		a.addError(rec.Error)
		return
	}
	a.valid.Add(1)
	// min/max timestamps are normal aggregate metrics, so like every normal
	// metric they only see successful records.
	if rec.TimestampNs < a.minRequestTS {
		a.minRequestTS, a.hasMinTS = rec.TimestampNs, true
	}
	if lat, ok := rm.Values[TagRequestLatency]; ok && !lat.IsList {
		if end := rec.TimestampNs + int64(lat.Scalar); end > a.maxResponseTS {
			a.maxResponseTS, a.hasMaxTS = end, true
		}
	}
	if len(a.slos) > 0 && isGood(a.slos, rm.Values) {
		a.good.Add(1)
	}
}

// addValues appends a record's values to their arrays, applying the validity
// gate again so a misbehaving processor cannot leak error values into
// success statistics (or the reverse).
func (a *Accumulator) addValues(values map[string]sdk.MetricValue, valid bool) {
	for tag, mv := range values {
		id, known := byTag[tag]
		if !known {
			a.addExtra(tag, mv)
			continue
		}
		def := &registry[id]
		if def.Kind != KindRecord || !a.on[id] || def.Flags.Has(sdk.FlagErrorOnly) == valid {
			continue
		}
		a.series[id].addValue(mv)
	}
}

func (a *Accumulator) addExtra(tag string, mv sdk.MetricValue) {
	if a.extra == nil {
		a.extra = make(map[string]*series)
	}
	s, seen := a.extra[tag]
	if !seen {
		s = &series{}
		a.extra[tag] = s
		a.extraOrder = append(a.extraOrder, tag)
	}
	s.addValue(mv)
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

// addError counts an error by its (code, type, message).
func (a *Accumulator) addError(e *sdk.ErrorDetails) {
	key := *e
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
