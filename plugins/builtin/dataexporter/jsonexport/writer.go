package jsonexport

import (
	"bytes"
	"encoding/json"
	"strconv"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/internal/pyfmt"
)

const indent = "  "

// objectWriter writes the members of the top-level object with 2-space
// indentation and "key": value spacing, the layout of AIPerf's file.
type objectWriter struct {
	buf     *bytes.Buffer
	members int
}

func (w *objectWriter) key(k string) {
	if w.members > 0 {
		w.buf.WriteByte(',')
	}
	w.members++
	w.buf.WriteString("\n" + indent)
	w.str(k)
	w.buf.WriteString(": ")
}

func (w *objectWriter) str(s string) {
	b, _ := json.Marshal(s) // marshalling a string cannot fail
	w.buf.Write(b)
}

// value writes an arbitrary JSON value nested one level deep.
func (w *objectWriter) value(v any) error {
	var tmp bytes.Buffer
	enc := json.NewEncoder(&tmp)
	enc.SetEscapeHTML(false)
	enc.SetIndent(indent, indent)
	if err := enc.Encode(v); err != nil {
		return err
	}
	w.buf.Write(bytes.TrimRight(tmp.Bytes(), "\n"))
	return nil
}

// stat is one statistic of a metric block, in AIPerf's JsonMetricResult order.
type stat struct {
	name string
	val  *float64
	// whole marks stats that are ints in Python when the metric's values are
	// (min, max and sum of token counts); means and percentiles are floats.
	whole bool
}

// metric writes one metric block. Absent and non-finite stats are omitted.
func (w *objectWriter) metric(m *sdk.MetricResult) {
	stats := [...]stat{
		{"avg", m.Avg, false},
		{"p1", m.P1, false}, {"p5", m.P5, false}, {"p10", m.P10, false},
		{"p25", m.P25, false}, {"p50", m.P50, false}, {"p75", m.P75, false},
		{"p90", m.P90, false}, {"p95", m.P95, false}, {"p99", m.P99, false},
		{"min", m.Min, m.Integer}, {"max", m.Max, m.Integer},
		{"std", m.Std, false},
	}
	b := w.buf.AvailableBuffer()
	b = append(b, "{\n"+indent+indent+`"unit": `...)
	ub, _ := json.Marshal(m.Unit)
	b = append(b, ub...)
	for _, s := range stats {
		if s.val == nil || !finite(*s.val) {
			continue
		}
		b = appendMember(b, s.name)
		if s.whole {
			b = appendInt(b, *s.val)
		} else {
			b = pyfmt.AppendFloat(b, *s.val)
		}
	}
	if m.Count != nil {
		b = appendMember(b, "count")
		b = strconv.AppendInt(b, *m.Count, 10)
	}
	if m.Sum != nil && finite(*m.Sum) {
		b = appendMember(b, "sum")
		if m.Integer {
			b = appendInt(b, *m.Sum)
		} else {
			b = pyfmt.AppendFloat(b, *m.Sum)
		}
	}
	b = append(b, "\n"+indent+"}"...)
	w.buf.Write(b)
}

func appendMember(b []byte, name string) []byte {
	b = append(b, ",\n"+indent+indent+`"`...)
	b = append(b, name...)
	return append(b, `": `...)
}
