package metrics

import (
	"github.com/aiperf-go/aiperf/core/clock"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// ToRecordInfo builds one line of profile_export.jsonl (docs/METRICS.md §5): the
// request metadata with wall-clock epoch timestamps, every applicable record
// metric of the catalog that computed, in its display unit (Integer metrics
// as ints, list metrics as lists), and the error. Run-level, inapplicable
// and NO_INDIVIDUAL_RECORDS metrics never appear; values of tags nobody
// declared are written as given, unitless. Absent optional metadata is
// omitted rather than written as null.
//
// Perf timestamps of the record (ack, end, credit issue, cancellation) are
// monotonic core/clock readings and are converted with clock.WallNs;
// request_start_ns is the record's wall TimestampNs. A nil input gives nil.
func ToRecordInfo(rm *sdk.RecordMetrics, cat *Catalog, processorID string) *sdk.RecordInfo {
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
	return info
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
