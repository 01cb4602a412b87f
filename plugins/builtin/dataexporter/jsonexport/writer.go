package jsonexport

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/jsonenc"
	"github.com/aiperf-go/aiperf/internal/pyfmt"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
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
	w.buf.Write(jsonenc.AppendString(w.buf.AvailableBuffer(), s))
}

func (w *objectWriter) boolean(v bool) {
	w.buf.WriteString(strconv.FormatBool(v))
}

// value writes the value of top-level member name, nested one level deep
// (see appendValue for the layout and the key order of objects).
func (w *objectWriter) value(name string, v any) error {
	b, err := appendValue(w.buf.AvailableBuffer(), v, 1, name)
	if err != nil {
		return err
	}
	w.buf.Write(b)
	return nil
}

// metric writes one metric block as a top-level member's value.
func (w *objectWriter) metric(m *sdk.MetricResult) {
	w.buf.Write(appendMetric(w.buf.AvailableBuffer(), m, 1))
}

// metrics writes an object of metric blocks keyed by tag (warmup_metrics)
// as a top-level member's value.
func (w *objectWriter) metrics(ms []*sdk.MetricResult) {
	b := w.buf.AvailableBuffer()
	if len(ms) == 0 {
		w.buf.Write(append(b, "{}"...))
		return
	}
	b = append(b, '{')
	for i, m := range ms {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n"+indent+indent...)
		b = jsonenc.AppendString(b, m.Tag)
		b = append(b, ": "...)
		b = appendMetric(b, m, 2)
	}
	w.buf.Write(append(b, "\n"+indent+"}"...))
}

// appendMetric appends one metric block whose closing brace sits at depth
// (its members one deeper): unit, then the stats in AIPerf's
// JsonMetricResult order (avg, p1..p99, min, max, std, count, sum). Every
// stat is a float, integer-valued metrics included (AIPerf's are Python
// floats: "min": 64.0); count is an int. Absent and non-finite stats are
// omitted.
func appendMetric(b []byte, m *sdk.MetricResult, depth int) []byte {
	stats := [...]struct {
		name string
		val  *float64
	}{
		{"avg", m.Avg},
		{"p1", m.P1}, {"p5", m.P5}, {"p10", m.P10},
		{"p25", m.P25}, {"p50", m.P50}, {"p75", m.P75},
		{"p90", m.P90}, {"p95", m.P95}, {"p99", m.P99},
		{"min", m.Min}, {"max", m.Max},
		{"std", m.Std},
	}
	outer := strings.Repeat(indent, depth)
	inner := outer + indent
	b = append(b, "{\n"+inner+`"unit": `...)
	b = jsonenc.AppendString(b, m.Unit)
	for _, s := range stats {
		if s.val == nil || !finite(*s.val) {
			continue
		}
		b = appendMember(b, inner, s.name)
		b = pyfmt.AppendFloat(b, *s.val)
	}
	if m.Count != nil {
		b = appendMember(b, inner, "count")
		b = strconv.AppendInt(b, *m.Count, 10)
	}
	if m.Sum != nil && finite(*m.Sum) {
		b = appendMember(b, inner, "sum")
		b = pyfmt.AppendFloat(b, *m.Sum)
	}
	return append(b, "\n"+outer+"}"...)
}

func appendMember(b []byte, prefix, name string) []byte {
	b = append(b, ",\n"+prefix+`"`...)
	b = append(b, name...)
	return append(b, `": `...)
}
