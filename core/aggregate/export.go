package aggregate

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/core/version"
	"github.com/aiperf-go/aiperf/internal/jsonenc"
	"github.com/aiperf-go/aiperf/internal/pyfmt"
)

// SchemaVersion is the aggregate file's own schema version (AIPerf's
// AggregateConfidenceJsonExporter.SCHEMA_VERSION).
const SchemaVersion = "1.0"

// Export writes the aggregate's JSON and CSV files into dir (created if
// needed) and returns their paths.
func Export(dir string, r *Result) (jsonPath, csvPath string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", fmt.Errorf("create aggregate directory: %w", err)
	}
	jsonPath, csvPath = filepath.Join(dir, JSONFile), filepath.Join(dir, CSVFile)
	if err := os.WriteFile(jsonPath, r.JSON(version.Version), 0o644); err != nil {
		return "", "", fmt.Errorf("write aggregate JSON: %w", err)
	}
	b, err := r.CSV()
	if err != nil {
		return "", "", err
	}
	if err := os.WriteFile(csvPath, b, 0o644); err != nil {
		return "", "", fmt.Errorf("write aggregate CSV: %w", err)
	}
	return jsonPath, csvPath, nil
}

// JSON renders profile_export_aiperf_aggregate.json as AIPerf 0.13 writes
// it (orjson, 2-space indent): schema_version, aiperf_version, metadata and
// one object per statistic with mean, std, min, max, cv, se, ci_low,
// ci_high, t_critical and unit. Non-finite numbers are written as null, as
// AIPerf's scrub_non_finite does (cv of a zero mean, t_critical of a single
// run).
func (r *Result) JSON(aiperfVersion string) []byte {
	var b []byte
	b = append(b, "{\n  \"schema_version\": "...)
	b = jsonenc.AppendString(b, SchemaVersion)
	b = append(b, ",\n  \"aiperf_version\": "...)
	b = jsonenc.AppendString(b, aiperfVersion)
	b = append(b, ",\n  \"metadata\": {\n    \"aggregation_type\": "...)
	b = jsonenc.AppendString(b, AggregationType)
	b = fmt.Appendf(b, ",\n    \"num_profile_runs\": %d,\n    \"num_successful_runs\": %d,\n    \"failed_runs\": ", r.NumRuns, r.NumSuccessfulRuns)
	b = appendIndented(b, "[]", "\n    ]", len(r.FailedRuns), func(b []byte, i int) []byte {
		b = append(b, "\n      {\n        \"label\": "...)
		b = jsonenc.AppendString(b, r.FailedRuns[i].Label)
		b = append(b, ",\n        \"error\": "...)
		b = jsonenc.AppendString(b, r.FailedRuns[i].Error)
		return append(b, "\n      }"...)
	})
	b = append(b, ",\n    \"confidence_level\": "...)
	b = appendNumber(b, r.ConfidenceLevel)
	b = append(b, ",\n    \"run_labels\": "...)
	b = appendIndented(b, "[]", "\n    ]", len(r.RunLabels), func(b []byte, i int) []byte {
		return jsonenc.AppendString(append(b, "\n      "...), r.RunLabels[i])
	})
	if r.SingleRun {
		b = append(b, ",\n    \"single_run\": true"...)
	}
	b = append(b, ",\n    \"cooldown_seconds\": "...)
	b = appendNumber(b, r.CooldownSeconds)
	if r.WasCancelled {
		// Ours: AIPerf has no partial aggregate to mark.
		b = append(b, ",\n    \"was_cancelled\": true"...)
	}
	b = append(b, "\n  },\n  \"metrics\": "...)
	b = appendIndented(b, "{}", "\n  }", len(r.Metrics), func(b []byte, i int) []byte {
		m := &r.Metrics[i]
		b = append(b, "\n    "...)
		b = jsonenc.AppendString(b, m.Name)
		b = append(b, ": {"...)
		for j, f := range []struct {
			k string
			v float64
		}{{"mean", m.Mean}, {"std", m.Std}, {"min", m.Min}, {"max", m.Max}, {"cv", m.CV}, {"se", m.SE},
			{"ci_low", m.CILow}, {"ci_high", m.CIHigh}, {"t_critical", m.TCritical}} {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n      \""...)
			b = append(b, f.k...)
			b = append(b, "\": "...)
			b = appendNumber(b, f.v)
		}
		b = append(b, ",\n      \"unit\": "...)
		b = jsonenc.AppendString(b, m.Unit)
		return append(b, "\n    }"...)
	})
	return append(b, "\n}"...)
}

// appendIndented writes a JSON array or object of n elements as Python's
// json.dumps(indent=2) does: empty as "[]" or "{}", else the opening
// bracket, the elements (each written with its own leading newline and
// indent) separated by commas, and closing (newline, indent, bracket).
func appendIndented(b []byte, empty, closing string, n int, elem func([]byte, int) []byte) []byte {
	if n == 0 {
		return append(b, empty...)
	}
	b = append(b, empty[0])
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(b, i)
	}
	return append(b, closing...)
}

// appendNumber writes a float as AIPerf's JSON does (Python's spelling,
// 0.0 not 0) and NaN or ±Inf as null.
func appendNumber(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	return pyfmt.AppendFloat(b, f)
}

// CSV renders profile_export_aiperf_aggregate.csv as AIPerf 0.13 writes it
// (Python's csv module: CRLF line ends): the metrics table, a blank row,
// then the metadata as "Title Case Key,value" rows.
func (r *Result) CSV() ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.UseCRLF = true
	rows := [][]string{{"metric", "mean", "std", "min", "max", "cv", "se", "ci_low", "ci_high", "t_critical", "unit"}}
	for _, m := range r.Metrics {
		rows = append(rows, []string{m.Name, csvNumber(m.Mean, 2), csvNumber(m.Std, 2), csvNumber(m.Min, 2), csvNumber(m.Max, 2),
			csvNumber(m.CV, 4), csvNumber(m.SE, 4), csvNumber(m.CILow, 2), csvNumber(m.CIHigh, 2), csvNumber(m.TCritical, 4), m.Unit})
	}
	rows = append(rows, []string{},
		[]string{"Aggregation Type", AggregationType},
		[]string{"Total Runs", strconv.Itoa(r.NumRuns)},
		[]string{"Successful Runs", strconv.Itoa(r.NumSuccessfulRuns)},
		[]string{"Confidence Level", pyfmt.Float(r.ConfidenceLevel)},
		[]string{"Run Labels", pyList(r.RunLabels)})
	if r.SingleRun {
		rows = append(rows, []string{"Single Run", "True"})
	}
	rows = append(rows, []string{"Cooldown Seconds", pyfmt.Float(r.CooldownSeconds)})
	if r.WasCancelled {
		rows = append(rows, []string{"Was Cancelled", "True"})
	}
	if err := w.WriteAll(rows); err != nil {
		return nil, fmt.Errorf("write aggregate CSV: %w", err)
	}
	return buf.Bytes(), nil
}

// csvNumber is AIPerf's _format_number: fixed decimals, "inf"/"-inf", and
// an empty cell for NaN.
func csvNumber(f float64, decimals int) string {
	switch {
	case math.IsNaN(f):
		return ""
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'f', decimals, 64)
}

// pyList is Python's str() of a list of strings: ['a', 'b'].
func pyList(items []string) string {
	parts := make([]string, len(items))
	for i, s := range items {
		parts[i] = string(pyfmt.AppendStr(nil, s))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
