package jsonlexport

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/aiperf-go/aiperf/internal/jsonenc"
	"github.com/aiperf-go/aiperf/internal/pyfmt"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// scratch is a reusable per-call encoding buffer, pooled so steady-state
// WriteRecord calls allocate nothing.
type scratch struct {
	buf  []byte
	keys []string
}

// appendRecord appends one compact JSON line (with its trailing newline) in
// the schema of sdk.RecordInfo's json tags: metadata fields in declaration
// order (AIPerf 0.13's) with absent optionals omitted, metrics sorted by tag,
// with trace set the request's HTTP trace ("trace_data", when it has one),
// and an "error" member only on failed requests, as AIPerf writes it
// (MetricRecordInfo: metadata, metrics, trace_data, error).
// Non-finite floats become null so the line stays valid JSON.
func appendRecord(s *scratch, rec *sdk.RecordInfo, trace bool) ([]byte, error) {
	b := append(s.buf[:0], `{"metadata":`...)
	b = appendMetadata(b, &rec.Metadata)

	b = append(b, `,"metrics":{`...)
	s.keys = s.keys[:0]
	for k := range rec.Metrics {
		s.keys = append(s.keys, k)
	}
	slices.Sort(s.keys)
	for i, k := range s.keys {
		if i > 0 {
			b = append(b, ',')
		}
		m := rec.Metrics[k]
		b = jsonenc.AppendString(b, k)
		b = append(b, `:{"value":`...)
		var err error
		if b, err = appendValue(b, m.Value); err != nil {
			s.buf = b
			return nil, fmt.Errorf("metric %q: %w", k, err)
		}
		b = append(b, `,"unit":`...)
		b = jsonenc.AppendString(b, m.Unit)
		b = append(b, '}')
	}
	b = append(b, '}')
	if trace && rec.Request != nil && rec.Request.HTTPTrace != nil {
		b = appendTraceData(b, rec.Request.HTTPTrace, rec.Request.Status)
	}
	if e := rec.Error; e != nil {
		b = append(b, `,"error":{`...)
		if e.Code != 0 {
			b = append(b, `"code":`...)
			b = strconv.AppendInt(b, int64(e.Code), 10)
			b = append(b, ',')
		}
		b = append(b, `"type":`...)
		b = jsonenc.AppendString(b, e.Type)
		b = append(b, `,"message":`...)
		b = jsonenc.AppendString(b, e.Message)
		if e.RetryAfter != "" {
			b = append(b, `,"retry_after":`...)
			b = jsonenc.AppendString(b, e.RetryAfter)
		}
		b = append(b, '}')
	}
	b = append(b, "}\n"...)
	s.buf = b
	return b, nil
}

func appendMetadata(b []byte, m *sdk.RecordMetadata) []byte {
	b = append(b, `{"session_num":`...)
	b = strconv.AppendInt(b, int64(m.SessionNum), 10)
	b = append(b, `,"x_request_id":`...)
	b = jsonenc.AppendString(b, m.XRequestID)
	b = append(b, `,"x_correlation_id":`...)
	b = jsonenc.AppendString(b, m.XCorrelationID)
	b = append(b, `,"conversation_id":`...)
	b = jsonenc.AppendString(b, m.ConversationID)
	b = append(b, `,"turn_index":`...)
	b = strconv.AppendInt(b, int64(m.TurnIndex), 10)
	b = appendOptInt(b, `,"credit_issued_ns":`, m.CreditIssuedNs)
	b = append(b, `,"request_start_ns":`...)
	b = strconv.AppendInt(b, m.RequestStartNs, 10)
	b = appendOptInt(b, `,"request_ack_ns":`, m.RequestAckNs)
	b = append(b, `,"request_end_ns":`...)
	b = strconv.AppendInt(b, m.RequestEndNs, 10)
	b = append(b, `,"worker_id":`...)
	b = jsonenc.AppendString(b, m.WorkerID)
	b = append(b, `,"record_processor_id":`...)
	b = jsonenc.AppendString(b, m.RecordProcessorID)
	b = append(b, `,"benchmark_phase":`...)
	b = jsonenc.AppendString(b, m.BenchmarkPhase)
	b = append(b, `,"phase_index":`...)
	b = strconv.AppendInt(b, int64(m.PhaseIndex), 10)
	if m.ProfilingIndex != nil {
		b = append(b, `,"profiling_index":`...)
		b = strconv.AppendInt(b, int64(*m.ProfilingIndex), 10)
	}
	b = append(b, `,"phase_name":`...)
	b = jsonenc.AppendString(b, m.PhaseName)
	b = append(b, `,"phase_kind":`...)
	b = jsonenc.AppendString(b, m.PhaseKind)
	b = append(b, `,"was_cancelled":`...)
	b = strconv.AppendBool(b, m.WasCancelled)
	b = appendOptInt(b, `,"cancellation_time_ns":`, m.CancellationTimeNs)
	b = append(b, `,"context_overflow_skip":`...)
	b = strconv.AppendBool(b, m.ContextOverflowSkip)
	b = append(b, `,"agent_depth":`...)
	b = strconv.AppendInt(b, int64(m.AgentDepth), 10)
	b = append(b, `,"root_correlation_id":`...)
	b = jsonenc.AppendString(b, m.RootCorrelationID)
	return append(b, '}')
}

func appendOptInt(b []byte, key string, v *int64) []byte {
	if v == nil {
		return b
	}
	b = append(b, key...)
	return strconv.AppendInt(b, *v, 10)
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

func appendFloat(b []byte, f float64) []byte {
	if !finite(f) {
		return append(b, "null"...)
	}
	return pyfmt.AppendFloat(b, f)
}

// appendValue writes a metric value. Ints stay ints (token counts) and floats
// keep a decimal point, as in AIPerf; the common types take a fast path and
// anything else goes through encoding/json.
func appendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case float64:
		return appendFloat(b, x), nil
	case float32:
		return appendFloat(b, float64(x)), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case int32:
		return strconv.AppendInt(b, int64(x), 10), nil
	case uint64:
		return strconv.AppendUint(b, x, 10), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case string:
		return jsonenc.AppendString(b, x), nil
	case []float64:
		b = append(b, '[')
		for i, f := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendFloat(b, f)
		}
		return append(b, ']'), nil
	case []int64:
		b = append(b, '[')
		for i, n := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, n, 10)
		}
		return append(b, ']'), nil
	case []int:
		b = append(b, '[')
		for i, n := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(n), 10)
		}
		return append(b, ']'), nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return append(b, raw...), nil
}
