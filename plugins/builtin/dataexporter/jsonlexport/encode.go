package jsonlexport

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"

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
// order with absent optionals omitted, metrics sorted by tag, error null on
// success. Non-finite floats become null so the line stays valid JSON.
func appendRecord(s *scratch, rec *sdk.RecordInfo) ([]byte, error) {
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
		b = appendString(b, k)
		b = append(b, `:{"value":`...)
		var err error
		if b, err = appendValue(b, m.Value); err != nil {
			s.buf = b
			return nil, fmt.Errorf("metric %q: %w", k, err)
		}
		b = append(b, `,"unit":`...)
		b = appendString(b, m.Unit)
		b = append(b, '}')
	}
	b = append(b, `},"error":`...)
	if e := rec.Error; e == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '{')
		if e.Code != 0 {
			b = append(b, `"code":`...)
			b = strconv.AppendInt(b, int64(e.Code), 10)
			b = append(b, ',')
		}
		b = append(b, `"type":`...)
		b = appendString(b, e.Type)
		b = append(b, `,"message":`...)
		b = appendString(b, e.Message)
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
	b = appendString(b, m.XRequestID)
	b = append(b, `,"x_correlation_id":`...)
	b = appendString(b, m.XCorrelationID)
	b = append(b, `,"conversation_id":`...)
	b = appendString(b, m.ConversationID)
	b = append(b, `,"turn_index":`...)
	b = strconv.AppendInt(b, int64(m.TurnIndex), 10)
	b = append(b, `,"request_start_ns":`...)
	b = strconv.AppendInt(b, m.RequestStartNs, 10)
	b = appendOptInt(b, `,"request_ack_ns":`, m.RequestAckNs)
	b = append(b, `,"request_end_ns":`...)
	b = strconv.AppendInt(b, m.RequestEndNs, 10)
	b = appendOptInt(b, `,"credit_issued_ns":`, m.CreditIssuedNs)
	b = append(b, `,"worker_id":`...)
	b = appendString(b, m.WorkerID)
	b = append(b, `,"record_processor_id":`...)
	b = appendString(b, m.RecordProcessorID)
	b = append(b, `,"benchmark_phase":`...)
	b = appendString(b, m.BenchmarkPhase)
	b = append(b, `,"was_cancelled":`...)
	b = strconv.AppendBool(b, m.WasCancelled)
	b = appendOptInt(b, `,"cancellation_time_ns":`, m.CancellationTimeNs)
	return append(b, '}')
}

func appendOptInt(b []byte, key string, v *int64) []byte {
	if v == nil {
		return b
	}
	b = append(b, key...)
	return strconv.AppendInt(b, *v, 10)
}

func appendFloat(b []byte, f float64) []byte {
	if !finite(f) {
		return append(b, "null"...)
	}
	return appendPyFloat(b, f)
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
		return appendString(b, x), nil
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

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string. Unlike encoding/json it leaves
// <, > and & alone (AIPerf's writer does too); control characters are
// escaped and invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		// U+2028/U+2029 are valid JSON but break JavaScript line parsing.
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
