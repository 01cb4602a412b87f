package metrics

import (
	"github.com/aiperf-go/aiperf/core/clock"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// ToRecordInfo builds one line of profile_export.jsonl (facts §2.4): the
// request metadata with wall-clock epoch timestamps, every record metric that
// computed in its display unit (token counts as ints, ICL as a list), and the
// error. Aggregate, derived and NO_INDIVIDUAL_RECORDS metrics never appear,
// and absent optional metadata is omitted rather than written as null.
//
// Perf timestamps of the record (ack, end, credit issue, cancellation) are
// monotonic core/clock readings and are converted with clock.WallNs;
// request_start_ns is the record's wall TimestampNs. A nil input gives nil.
func ToRecordInfo(rm *sdk.RecordMetrics, processorID string) *sdk.RecordInfo {
	if rm == nil || rm.Record == nil {
		return nil
	}
	rec := rm.Record
	info := &sdk.RecordInfo{
		Metadata: sdk.RecordMetadata{
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
			WasCancelled:      rec.WasCancelled,
		},
		Metrics: make(map[string]sdk.RecordMetric, len(rm.Values)),
		Error:   rec.Error,
	}
	md := &info.Metadata
	// request_ack_ns is a streaming-only field (first byte / headers).
	if rec.Streaming && rec.AckPerfNs != 0 {
		md.RequestAckNs = wallPtr(rec.AckPerfNs)
	}
	if rec.CreditIssuedNs != 0 {
		md.CreditIssuedNs = wallPtr(rec.CreditIssuedNs)
	}
	if rec.WasCancelled && rec.CancellationTimeNs != 0 {
		md.CancellationTimeNs = wallPtr(rec.CancellationTimeNs)
	}

	for tag, mv := range rm.Values {
		if m, ok := recordMetric(tag, mv); ok {
			info.Metrics[tag] = m
		}
	}
	return info
}

// recordMetric converts one value for the per-record export, or reports that
// the metric does not belong there.
func recordMetric(tag string, mv sdk.MetricValue) (sdk.RecordMetric, bool) {
	def, ok := Lookup(tag)
	if !ok {
		// A third-party processor's metric: exported as given, unitless, just
		// as the accumulator summarizes it.
		if mv.IsList {
			return sdk.RecordMetric{Value: append([]float64(nil), mv.List...)}, true
		}
		return sdk.RecordMetric{Value: mv.Scalar}, true
	}
	if def.Kind != KindRecord || def.Flags.Has(sdk.FlagNoIndividualRecords) {
		return sdk.RecordMetric{}, false
	}
	if mv.IsList {
		out := make([]float64, len(mv.List))
		for i, x := range mv.List {
			out[i] = def.ToDisplay(x)
		}
		return sdk.RecordMetric{Value: out, Unit: def.DisplayUnit}, true
	}
	if def.Integer {
		return sdk.RecordMetric{Value: int(mv.Scalar), Unit: def.DisplayUnit}, true
	}
	return sdk.RecordMetric{Value: def.ToDisplay(mv.Scalar), Unit: def.DisplayUnit}, true
}

func wallPtr(perfNs int64) *int64 {
	w := clock.WallNs(perfNs)
	return &w
}

// wallOrZero converts a perf timestamp that may never have been taken.
func wallOrZero(perfNs int64) int64 {
	if perfNs == 0 {
		return 0
	}
	return clock.WallNs(perfNs)
}
