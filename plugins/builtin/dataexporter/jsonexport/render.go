package jsonexport

import (
	"bytes"
	"fmt"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// hiddenFlags are the metric flags AIPerf keeps out of every summary export.
const hiddenFlags = sdk.FlagInternal | sdk.FlagExperimental

// Render returns the summary document. Keys are written in a fixed order
// (provenance, metrics in result order, then run facts) rather than through
// a map, so the file is byte-for-byte reproducible.
func Render(ec *sdk.ExportContext) ([]byte, error) {
	res := ec.Results
	if res == nil {
		res = &sdk.Results{}
	}
	w := objectWriter{buf: bytes.NewBuffer(make([]byte, 0, 4096))}
	w.buf.WriteByte('{')

	w.key("schema_version")
	w.str(SchemaVersion)
	if ec.AIPerfVersion != "" {
		w.key("aiperf_version")
		w.str(ec.AIPerfVersion)
	}
	if ec.BenchmarkID != "" {
		w.key("benchmark_id")
		w.str(ec.BenchmarkID)
	}

	seen := make(map[string]struct{}, len(res.Metrics))
	for i := range res.Metrics {
		m := &res.Metrics[i]
		if m.Tag == "" {
			return nil, fmt.Errorf("jsonexport: metric #%d (%q) has an empty tag", i, m.Header)
		}
		if m.Flags.HasAny(hiddenFlags) {
			continue
		}
		if _, dup := seen[m.Tag]; dup {
			continue // a duplicate key would make the document ambiguous
		}
		seen[m.Tag] = struct{}{}
		w.key(m.Tag)
		w.metric(m)
	}

	if !res.StartTime.IsZero() {
		w.key("start_time")
		w.str(isoTime(res.StartTime))
	}
	if !res.EndTime.IsZero() {
		w.key("end_time")
		w.str(isoTime(res.EndTime))
	}
	w.key("was_cancelled")
	if res.WasCancelled {
		w.buf.WriteString("true")
	} else {
		w.buf.WriteString("false")
	}
	if ec.InputConfig != nil {
		w.key("input_config")
		if err := w.value(ec.InputConfig); err != nil {
			return nil, fmt.Errorf("jsonexport: encode input_config: %w", err)
		}
	}
	w.key("error_summary")
	errs := res.ErrorSummary
	if errs == nil {
		errs = []sdk.ErrorCount{} // AIPerf writes an empty list, not null
	}
	if err := w.value(errs); err != nil {
		return nil, fmt.Errorf("jsonexport: encode error_summary: %w", err)
	}

	w.buf.WriteString("\n}\n")
	return w.buf.Bytes(), nil
}

// isoTime formats t like Python's naive datetime.isoformat(), which is what
// AIPerf writes: microseconds only when non-zero, no zone suffix.
func isoTime(t time.Time) string {
	if t.Nanosecond()/1000 == 0 {
		return t.Format("2006-01-02T15:04:05")
	}
	return t.Format("2006-01-02T15:04:05.000000")
}
