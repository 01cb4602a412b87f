package metrics

import (
	"github.com/aiperf-go/aiperf/core/clock"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// ToRecordInfo builds one line of profile_export.jsonl (docs/METRICS.md §5)
// for a run without a warmup phase; ToRecordInfoIn numbers the phases of
// any layout. See ToRecordInfoIn.
func ToRecordInfo(rm *sdk.RecordMetrics, cat *Catalog, processorID string) *sdk.RecordInfo {
	return ToRecordInfoIn(rm, cat, processorID, PhaseLayout{})
}

// PhaseLayout is the ordered phase list of a run as AIPerf numbers it in the
// record metadata: phase_index is the position in the list, profiling_index
// the position among profiling phases. A CLI run has at most a warmup phase
// followed by the profiling phase.
type PhaseLayout struct {
	// Warmup reports whether a warmup phase runs before profiling.
	Warmup bool
}

// indices returns phase_index and profiling_index (-1 for a warmup record)
// of a record of the named phase.
func (l PhaseLayout) indices(phase string) (phaseIndex, profilingIndex int) {
	if phase == sdk.PhaseWarmup {
		return 0, -1
	}
	if l.Warmup {
		return 1, 0
	}
	return 0, 0
}

// recordInfoBox holds a RecordInfo together with the storage its optional
// metadata fields point into, so one allocation serves them all.
type recordInfoBox struct {
	info                      sdk.RecordInfo
	ackNs, creditNs, cancelNs int64
	profilingIndex            int
}

// ToRecordInfoIn builds one line of profile_export.jsonl (docs/METRICS.md
// §5): the request metadata with wall-clock epoch timestamps and AIPerf
// 0.13's phase fields (numbered by layout), every applicable record metric
// of the catalog that computed, in its display unit (Integer metrics as
// ints, list metrics as lists), and the error (nil on success, so the line
// has no "error" member). Run-level, inapplicable and NO_INDIVIDUAL_RECORDS
// metrics never appear; values of tags nobody declared are written as given,
// unitless. Absent optional metadata is omitted rather than written as null.
//
// Perf timestamps of the record (ack, end, credit issue, cancellation) are
// monotonic core/clock readings and are converted with clock.WallNs;
// request_start_ns is the record's wall TimestampNs. A nil input gives nil.
//
// session_num is the record's SessionNum as the engine sets it (AIPerf 0.13:
// the credit's sequence number within its phase).
func ToRecordInfoIn(rm *sdk.RecordMetrics, cat *Catalog, processorID string, layout PhaseLayout) *sdk.RecordInfo {
	if rm == nil || rm.Record == nil {
		return nil
	}
	box := &recordInfoBox{}
	box.fill(rm, cat, processorID, layout, make(map[string]sdk.RecordMetric, len(rm.Values)))
	return &box.info
}

// RecordInfoBuilder builds export lines as ToRecordInfoIn does, reusing one
// RecordInfo and its metrics map: what Build returns is valid until the
// next Build. For the single collector goroutine of a run, whose sinks
// encode each line before returning.
type RecordInfoBuilder struct {
	box recordInfoBox
}

// Build is ToRecordInfoIn into the builder's storage.
func (b *RecordInfoBuilder) Build(rm *sdk.RecordMetrics, cat *Catalog, processorID string, layout PhaseLayout) *sdk.RecordInfo {
	if rm == nil || rm.Record == nil {
		return nil
	}
	m := b.box.info.Metrics
	if m == nil {
		m = make(map[string]sdk.RecordMetric, len(rm.Values))
	}
	clear(m)
	b.box = recordInfoBox{}
	b.box.fill(rm, cat, processorID, layout, m)
	return &b.box.info
}

// fill writes rm's export line into the box, its metrics into m (empty).
func (box *recordInfoBox) fill(rm *sdk.RecordMetrics, cat *Catalog, processorID string, layout PhaseLayout, m map[string]sdk.RecordMetric) {
	rec := rm.Record
	phaseIndex, profilingIndex := layout.indices(rec.Phase)
	info := &box.info
	info.Metadata = sdk.RecordMetadata{
		SessionNum:        rec.SessionNum,
		XRequestID:        rec.XRequestID,
		XCorrelationID:    rec.XCorrelationID,
		ConversationID:    rec.ConversationID,
		TurnIndex:         rec.TurnIndex,
		RequestStartNs:    rec.TimestampNs,
		RequestEndNs:      wallOrZero(rec.EndPerfNs),
		WorkerID:          rec.WorkerID,
		RecordProcessorID: processorID,
		BenchmarkPhase:    rec.Phase,
		PhaseIndex:        phaseIndex,
		PhaseName:         rec.Phase,
		PhaseKind:         rec.Phase,
		WasCancelled:      rec.WasCancelled,
		// Every session of a CLI run is a root session.
		RootCorrelationID: rec.XCorrelationID,
	}
	info.Metrics = m
	info.Error = rec.Error
	md := &info.Metadata
	if profilingIndex >= 0 {
		box.profilingIndex = profilingIndex
		md.ProfilingIndex = &box.profilingIndex
	}
	// request_ack_ns: when the headers of a 2xx response arrived, streaming
	// or not; AIPerf 0.13 takes it only after checking the status, so a
	// non-2xx response has none.
	if rec.AckPerfNs != 0 && (rec.Status == 0 || rec.Status >= 200 && rec.Status < 300) {
		box.ackNs = clock.WallNs(rec.AckPerfNs)
		md.RequestAckNs = &box.ackNs
	}
	if rec.CreditIssuedNs != 0 {
		box.creditNs = clock.WallNs(rec.CreditIssuedNs)
		md.CreditIssuedNs = &box.creditNs
	}
	if rec.WasCancelled && rec.CancellationTimeNs != 0 {
		box.cancelNs = clock.WallNs(rec.CancellationTimeNs)
		md.CancellationTimeNs = &box.cancelNs
	}

	for tag, mv := range rm.Values {
		var id metricID = noMetric
		if cat != nil {
			if known, ok := cat.index.lookup(tag); ok {
				id = known
			}
		}
		if id == noMetric {
			// Nobody declared it: exported as given, unitless, just as the
			// accumulator summarizes it.
			info.Metrics[tag] = rawMetric(mv)
			continue
		}
		if e := &cat.defs[id]; e.exported {
			info.Metrics[tag] = e.recordMetric(mv)
		}
	}
	// With goodput SLOs AIPerf writes each successful record's
	// good_request_count contribution: 1 when it met every SLO, else 0.
	if cat != nil && len(cat.slos) > 0 && rec.Valid() && cat.on[cat.runLevelID(rlGoodRequestCount)] {
		good := 0
		if isGood(cat.slos, rm.Values) {
			good = 1
		}
		info.Metrics[TagGoodRequestCount] = sdk.RecordMetric{Value: good, Unit: UnitRequests}
	}
}

func rawMetric(mv sdk.MetricValue) sdk.RecordMetric {
	if mv.IsList {
		return sdk.RecordMetric{Value: append([]float64(nil), mv.List...)}
	}
	return sdk.RecordMetric{Value: mv.Scalar}
}

// recordMetric converts one value for the per-record export.
func (e *entry) recordMetric(mv sdk.MetricValue) sdk.RecordMetric {
	unit := e.Display()
	if mv.IsList {
		out := make([]float64, len(mv.List))
		for i, x := range mv.List {
			out[i] = e.toDisplay(x)
		}
		return sdk.RecordMetric{Value: out, Unit: unit}
	}
	if e.Integer {
		return sdk.RecordMetric{Value: int(mv.Scalar), Unit: unit}
	}
	return sdk.RecordMetric{Value: e.toDisplay(mv.Scalar), Unit: unit}
}

// wallOrZero converts a perf timestamp that may never have been taken.
func wallOrZero(perfNs int64) int64 {
	if perfNs == 0 {
		return 0
	}
	return clock.WallNs(perfNs)
}
