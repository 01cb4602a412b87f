// Package timeslices is the "timeslices" data exporter: it writes the
// run's per-window results (Results.Timeslices, which the accumulator
// computes with --slice-duration) as AIPerf 0.13's
// profile_export_aiperf_timeslices.json and .csv.
//
// It only renders: the slices, their bounds and every metric in them come
// from the accumulator (core/metrics, docs/METRICS.md "Timeslices"). As in
// AIPerf, INTERNAL and EXPERIMENTAL metrics are left out, and a run without
// timeslices writes no file.
package timeslices

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/jsonenc"
	"github.com/aiperf-go/aiperf/internal/pyfmt"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/internal/atomicfile"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/jsonexport"
)

// Name is the plugin name of this exporter.
const Name = "timeslices"

// Default file names (AIPerf's, without --profile-export-prefix).
const (
	DefaultJSONName = "profile_export_aiperf_timeslices.json"
	DefaultCSVName  = "profile_export_aiperf_timeslices.csv"
)

// Console footer labels of the written files.
const (
	LabelJSON = "Timeslice JSON Export"
	LabelCSV  = "Timeslice CSV Export"
)

// hiddenFlags are the metric flags AIPerf keeps out of every export
// (_filter_hidden_metrics).
const hiddenFlags = sdk.FlagInternal | sdk.FlagExperimental

// Exporter is the data exporter; it keeps no state.
type Exporter struct{}

var _ sdk.DataExporter = (*Exporter)(nil)

// New returns the exporter.
func New() *Exporter { return &Exporter{} }

// slice is one timeslice with the metrics the files carry.
type slice struct {
	sdk.TimesliceResult
	// metrics are the exported ones, in result order.
	metrics []*sdk.MetricResult
}

// exported drops hidden metrics and repeated tags (the first one stays: a
// duplicate key would make the JSON ambiguous).
func exported(ts []sdk.TimesliceResult) []slice {
	out := make([]slice, len(ts))
	for i := range ts {
		out[i].TimesliceResult = ts[i]
		seen := make(map[string]bool, len(ts[i].Metrics))
		for j := range ts[i].Metrics {
			m := &ts[i].Metrics[j]
			if m.Flags.HasAny(hiddenFlags) || seen[m.Tag] {
				continue
			}
			seen[m.Tag] = true
			out[i].metrics = append(out[i].metrics, m)
		}
	}
	return out
}

// fileNames are AIPerf's names: the summary JSON's stem plus
// "_timeslices.json"/".csv".
func fileNames(files sdk.ArtifactFiles) (string, string) {
	if files.SummaryJSON == "" {
		return DefaultJSONName, DefaultCSVName
	}
	stem := strings.TrimSuffix(files.SummaryJSON, ".json")
	return stem + "_timeslices.json", stem + "_timeslices.csv"
}

// Export writes both files when the results have timeslices.
func (e *Exporter) Export(ctx context.Context, ec *sdk.ExportContext) ([]sdk.ExportedFile, error) {
	if ec == nil {
		return nil, errors.New("timeslices: nil export context")
	}
	if ec.Results == nil || len(ec.Results.Timeslices) == 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("timeslices: %w", err)
	}
	sl := exported(ec.Results.Timeslices)
	jsonName, csvName := fileNames(ec.Files)
	jsonData, err := renderJSON(sl, ec.InputConfig)
	if err != nil {
		return nil, err
	}
	var files []sdk.ExportedFile
	for _, f := range []struct {
		name, label string
		data        []byte
	}{{jsonName, LabelJSON, jsonData}, {csvName, LabelCSV, renderCSV(sl)}} {
		path := filepath.Join(ec.ArtifactDir, f.name)
		if err := atomicfile.WriteFile(path, func(w io.Writer) error {
			_, err := w.Write(f.data)
			return err
		}); err != nil {
			return nil, fmt.Errorf("timeslices: write %s: %w", path, err)
		}
		files = append(files, sdk.ExportedFile{Label: f.label, Path: path})
	}
	return files, nil
}

type stat struct {
	name string
	val  *float64
}

// jsonStats is AIPerf's JsonMetricResult order; csvStats its CSV order
// (STAT_KEYS).
func jsonStats(m *sdk.MetricResult) []stat {
	return []stat{{"avg", m.Avg}, {"p1", m.P1}, {"p5", m.P5}, {"p10", m.P10}, {"p25", m.P25},
		{"p50", m.P50}, {"p75", m.P75}, {"p90", m.P90}, {"p95", m.P95}, {"p99", m.P99},
		{"min", m.Min}, {"max", m.Max}, {"std", m.Std}}
}

func csvStats(m *sdk.MetricResult) []stat {
	return []stat{{"avg", m.Avg}, {"min", m.Min}, {"max", m.Max}, {"sum", m.Sum},
		{"p1", m.P1}, {"p5", m.P5}, {"p10", m.P10}, {"p25", m.P25}, {"p50", m.P50},
		{"p75", m.P75}, {"p90", m.P90}, {"p95", m.P95}, {"p99", m.P99}, {"std", m.Std}}
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// renderJSON writes {"timeslices":[...],"input_config":{...}} with 2-space
// indentation, as AIPerf: each slice's start_ns and end_ns, is_complete
// false on a partial slice only, then its metrics in result order.
func renderJSON(sl []slice, inputConfig map[string]any) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{\n  \"timeslices\": [")
	for i := range sl {
		if i > 0 {
			b.WriteByte(',')
		}
		s := &sl[i]
		fmt.Fprintf(&b, "\n    {\n      \"start_ns\": %d,\n      \"end_ns\": %d", s.StartNs, s.EndNs)
		if s.Partial {
			b.WriteString(",\n      \"is_complete\": false")
		}
		for _, m := range s.metrics {
			b.WriteString(",\n      ")
			b.Write(jsonenc.AppendString(nil, m.Tag))
			b.WriteString(": ")
			b.Write(appendMetric(nil, m))
		}
		b.WriteString("\n    }")
	}
	if len(sl) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteByte(']')
	if inputConfig != nil {
		ic, err := jsonexport.AppendValue(nil, inputConfig, 1, "input_config")
		if err != nil {
			return nil, fmt.Errorf("timeslices: encode input_config: %w", err)
		}
		b.WriteString(",\n  \"input_config\": ")
		b.Write(ic)
	}
	b.WriteString("\n}\n")
	return b.Bytes(), nil
}

// appendMetric appends one metric block nested in a slice: unit, the
// finite stats, count, sum.
func appendMetric(b []byte, m *sdk.MetricResult) []byte {
	b = append(b, "{\n        \"unit\": "...)
	b = jsonenc.AppendString(b, m.Unit)
	for _, st := range jsonStats(m) {
		if st.val == nil || !finite(*st.val) {
			continue
		}
		b = append(b, ",\n        \""+st.name+"\": "...)
		b = pyfmt.AppendFloat(b, *st.val)
	}
	if m.Count != nil {
		b = append(b, ",\n        \"count\": "...)
		b = strconv.AppendInt(b, *m.Count, 10)
	}
	if m.Sum != nil && finite(*m.Sum) {
		b = append(b, ",\n        \"sum\": "...)
		b = pyfmt.AppendFloat(b, *m.Sum)
	}
	return append(b, "\n      }"...)
}

// renderCSV writes the long format Timeslice,Start_NS,End_NS,Metric,Unit,
// Stat,Value with CRLF line endings (Python's csv.writer), each slice's
// metrics sorted by tag and named by header, as AIPerf.
func renderCSV(sl []slice) []byte {
	var b bytes.Buffer
	b.WriteString("Timeslice,Start_NS,End_NS,Metric,Unit,Stat,Value\r\n")
	for i := range sl {
		s := &sl[i]
		byTag := slices.Clone(s.metrics)
		slices.SortStableFunc(byTag, func(x, y *sdk.MetricResult) int { return strings.Compare(x.Tag, y.Tag) })
		for _, m := range byTag {
			name := m.Header
			if name == "" {
				name = m.Tag
			}
			for _, st := range csvStats(m) {
				if st.val == nil || !finite(*st.val) {
					continue
				}
				fmt.Fprintf(&b, "%d,%d,%d,%s,%s,%s,%.2f\r\n", i, s.StartNs, s.EndNs,
					csvField(name), csvField(m.Unit), st.name, *st.val)
			}
		}
	}
	return b.Bytes()
}

func csvField(s string) string {
	if strings.ContainsAny(s, ",\"\r\n") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}
