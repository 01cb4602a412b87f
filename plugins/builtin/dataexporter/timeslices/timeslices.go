// Package timeslices is the "timeslices" data exporter: with
// --slice-duration (its slice_duration setting) it writes AIPerf 0.13's
// profile_export_aiperf_timeslices.json and .csv, the run's metrics computed
// separately for fixed-length windows of the benchmark.
//
// It is a record sink: it keeps each profiling record's start and end time
// and its metric values (display units) in memory, grouped at Export into
// AIPerf's grid. The grid starts at the first request_start_ns (a float64,
// as AIPerf's numpy arrays), steps by the slice duration and spans to the
// last request_end_ns; each record belongs to the slice in which it starts;
// slices without records are dropped and the last one ends at the run end.
// Per slice, every record metric gets the summary's statistics; the run
// level metrics it can compute from the records (counts, totals,
// throughputs over the slice bounds, benchmark_duration) are added as
// scalars. docs/METRICS.md lists the tags not produced per slice.
package timeslices

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/aiperf-go/aiperf/core/metrics"
	"github.com/aiperf-go/aiperf/internal/jsonenc"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/internal/atomicfile"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/jsonexport"
	"github.com/aiperf-go/aiperf/plugins/builtin/internal/pyfmt"
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

// excluded are the tags AIPerf leaves out of every slice.
var excluded = map[string]bool{"credit_to_start_latency": true, "effective_latency": true}

// Settings are the exporter's configuration.
type Settings struct {
	// SliceDuration is the slice width in seconds (--slice-duration);
	// 0 disables the exporter.
	SliceDuration float64 `json:"slice_duration"`
}

// Exporter is the record sink and data exporter. WriteRecord is safe for
// concurrent use.
type Exporter struct {
	settings Settings

	mu      sync.Mutex
	records []record
}

type record struct {
	start, end int64
	failed     bool
	values     map[string][]float64
	units      map[string]string
}

var (
	_ sdk.RecordSink   = (*Exporter)(nil)
	_ sdk.DataExporter = (*Exporter)(nil)
	_ sdk.Configurable = (*Exporter)(nil)
)

// New returns the exporter (inactive until slice_duration is set).
func New() *Exporter { return &Exporter{} }

// PluginConfig exposes the settings for decoding.
func (e *Exporter) PluginConfig() any { return &e.settings }

// Open validates the settings.
func (e *Exporter) Open(ec *sdk.ExportContext) error {
	if ec == nil {
		return errors.New("timeslices: nil export context")
	}
	d := e.settings.SliceDuration
	if d < 0 || math.IsNaN(d) || math.IsInf(d, 0) {
		return fmt.Errorf("timeslices: slice_duration must be > 0, got %v", d)
	}
	return nil
}

// Close does nothing: the slices are written by Export.
func (e *Exporter) Close() error { return nil }

// WriteRecord keeps rec's times and metric values when slicing is on.
func (e *Exporter) WriteRecord(rec *sdk.RecordInfo) error {
	if rec == nil {
		return errors.New("timeslices: nil record")
	}
	// Slices cut the profiling phase only.
	if e.settings.SliceDuration <= 0 || rec.Metadata.BenchmarkPhase == sdk.PhaseWarmup {
		return nil
	}
	r := record{
		start:  rec.Metadata.RequestStartNs,
		end:    rec.Metadata.RequestEndNs,
		failed: rec.Error != nil,
		values: make(map[string][]float64, len(rec.Metrics)),
		units:  make(map[string]string, len(rec.Metrics)),
	}
	for tag, m := range rec.Metrics {
		if excluded[tag] {
			continue
		}
		if vs, ok := numbers(m.Value); ok {
			r.values[tag] = vs
			r.units[tag] = m.Unit
		}
	}
	e.mu.Lock()
	e.records = append(e.records, r)
	e.mu.Unlock()
	return nil
}

// numbers flattens a metric value (a number or a list of numbers).
func numbers(v any) ([]float64, bool) {
	switch x := v.(type) {
	case float64:
		return []float64{x}, true
	case float32:
		return []float64{float64(x)}, true
	case int:
		return []float64{float64(x)}, true
	case int64:
		return []float64{float64(x)}, true
	case []float64:
		return x, true
	case []int:
		out := make([]float64, len(x))
		for i, n := range x {
			out[i] = float64(n)
		}
		return out, true
	case []any:
		out := make([]float64, 0, len(x))
		for _, it := range x {
			f, ok := numbers(it)
			if !ok || len(f) != 1 {
				return nil, false
			}
			out = append(out, f[0])
		}
		return out, true
	}
	return nil, false
}

// Slice is one window's results.
type Slice struct {
	StartNs, EndNs int64
	Metrics        []sdk.MetricResult // sorted by tag
}

// Compute groups records into AIPerf's grid (sliceNs wide) and summarises
// each non-empty slice. headers maps tags to display headers.
func compute(recs []record, sliceNs float64) []Slice {
	if len(recs) == 0 || sliceNs <= 0 {
		return nil
	}
	minTs := math.Inf(1)
	maxTs := math.Inf(-1)
	for _, r := range recs {
		minTs = math.Min(minTs, float64(r.start))
		maxTs = math.Max(maxTs, math.Max(float64(r.start), float64(r.end)))
	}
	n := int((maxTs-minTs)/sliceNs) + 1
	edges := make([]float64, n+1)
	for i := range edges {
		edges[i] = minTs + float64(i)*sliceNs
	}
	bins := make([][]record, n)
	for _, r := range recs {
		// np.digitize: the index i with edges[i] <= ts < edges[i+1].
		ts := float64(r.start)
		i := sort.Search(len(edges), func(k int) bool { return edges[k] > ts }) - 1
		if i >= 0 && i < n {
			bins[i] = append(bins[i], r)
		}
	}
	var out []Slice
	for i, b := range bins {
		if len(b) == 0 {
			continue
		}
		start, end := edges[i], edges[i+1]
		if end > maxTs {
			end = maxTs
		}
		s := Slice{StartNs: int64(start), EndNs: int64(end)}
		s.Metrics = summarize(b, float64(s.EndNs-s.StartNs)/1e9)
		out = append(out, s)
	}
	return out
}

func ptr(f float64) *float64 { return &f }

func scalar(tag, unit string, v float64) sdk.MetricResult {
	return sdk.MetricResult{Tag: tag, Unit: unit, Avg: ptr(v)}
}

// summarize computes one slice's metrics: record metrics of successful
// records with full statistics, then the run-level scalars.
func summarize(recs []record, durSec float64) []sdk.MetricResult {
	values := map[string][]float64{}
	units := map[string]string{}
	ok, failed := 0, 0
	minStart, maxEnd := int64(math.MaxInt64), int64(math.MinInt64)
	for _, r := range recs {
		if r.failed {
			failed++
			continue
		}
		ok++
		minStart, maxEnd = min(minStart, r.start), max(maxEnd, r.end)
		for tag, vs := range r.values {
			values[tag] = append(values[tag], vs...)
			units[tag] = r.units[tag]
		}
	}
	var out []sdk.MetricResult
	for tag, vs := range values {
		st := metrics.ComputeStats(vs)
		c := st.Count
		out = append(out, sdk.MetricResult{Tag: tag, Unit: units[tag],
			Avg: ptr(st.Avg), Min: ptr(st.Min), Max: ptr(st.Max),
			P1: ptr(st.P1), P5: ptr(st.P5), P10: ptr(st.P10), P25: ptr(st.P25),
			P50: ptr(st.P50), P75: ptr(st.P75), P90: ptr(st.P90), P95: ptr(st.P95), P99: ptr(st.P99),
			Std: ptr(st.Std), Count: &c, Sum: ptr(st.Sum)})
	}
	sum := func(tag string) (float64, bool) {
		vs, has := values[tag]
		t := 0.0
		for _, v := range vs {
			t += v
		}
		return t, has
	}
	out = append(out,
		scalar("request_count", "requests", float64(ok)),
		scalar("completed_request_count", "requests", float64(ok+failed)),
		scalar("request_error_rate", "ratio", float64(failed)/float64(ok+failed)))
	if failed > 0 {
		out = append(out, scalar("error_request_count", "requests", float64(failed)))
	}
	if durSec > 0 {
		out = append(out, scalar("request_throughput", "requests/sec", float64(ok)/durSec))
	}
	if ok > 0 {
		out = append(out, scalar("benchmark_duration", "sec", float64(maxEnd-minStart)/1e9))
	}
	osl, hasOSL := sum("output_sequence_length")
	isl, hasISL := sum("input_sequence_length")
	if hasOSL {
		out = append(out, scalar("total_osl", "tokens", osl))
	}
	if t, has := sum("output_token_count"); has {
		out = append(out, scalar("total_output_tokens", "tokens", t))
		if durSec > 0 {
			out = append(out, scalar("output_token_throughput", "tokens/sec", t/durSec))
		}
	}
	if hasISL {
		out = append(out, scalar("total_isl", "tokens", isl))
		if durSec > 0 {
			out = append(out, scalar("input_token_throughput", "tokens/sec", isl/durSec))
			if hasOSL {
				out = append(out, scalar("total_token_throughput", "tokens/sec", (isl+osl)/durSec))
			}
		}
	}
	for _, tag := range []string{"usage_prompt_tokens", "usage_completion_tokens", "usage_total_tokens", "usage_reasoning_tokens"} {
		if t, has := sum(tag); has {
			out = append(out, scalar("total_"+tag, "tokens", t))
		}
	}
	if g, has := sum("good_request_count"); has {
		out = append(out, scalar("good_request_count", "requests", g))
		if durSec > 0 {
			out = append(out, scalar("goodput", "requests/sec", g/durSec))
		}
		if ok > 0 {
			out = append(out, scalar("good_request_fraction", "ratio", g/float64(ok)))
		}
	}
	// A per-record value of a tag that is also a scalar (good_request_count)
	// yields to the scalar, as in AIPerf.
	seen := map[string]int{}
	dedup := out[:0]
	for _, m := range out {
		if i, dup := seen[m.Tag]; dup {
			dedup[i] = m
			continue
		}
		seen[m.Tag] = len(dedup)
		dedup = append(dedup, m)
	}
	sort.Slice(dedup, func(i, j int) bool { return dedup[i].Tag < dedup[j].Tag })
	return dedup
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

// Export writes both files when slicing is on and records were seen.
func (e *Exporter) Export(ctx context.Context, ec *sdk.ExportContext) ([]sdk.ExportedFile, error) {
	if ec == nil {
		return nil, errors.New("timeslices: nil export context")
	}
	if e.settings.SliceDuration <= 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("timeslices: %w", err)
	}
	e.mu.Lock()
	slices := compute(e.records, float64(int64(e.settings.SliceDuration*1e9)))
	e.mu.Unlock()
	headers := map[string]string{}
	if ec.Results != nil {
		for _, m := range ec.Results.Metrics {
			headers[m.Tag] = m.Header
		}
	}
	jsonName, csvName := fileNames(ec.Files)
	jsonData, err := renderJSON(slices, ec.InputConfig)
	if err != nil {
		return nil, err
	}
	var files []sdk.ExportedFile
	for _, f := range []struct {
		name, label string
		data        []byte
	}{{jsonName, LabelJSON, jsonData}, {csvName, LabelCSV, renderCSV(slices, headers)}} {
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

// jsonStats is AIPerf's JsonMetricResult order; csvStats its CSV order.
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
// indentation, as AIPerf.
func renderJSON(slices []Slice, inputConfig map[string]any) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{\n  \"timeslices\": [")
	for i, s := range slices {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "\n    {\n      \"start_ns\": %d,\n      \"end_ns\": %d", s.StartNs, s.EndNs)
		for j := range s.Metrics {
			m := &s.Metrics[j]
			b.WriteString(",\n      ")
			b.Write(jsonenc.AppendString(nil, m.Tag))
			b.WriteString(": {\n        \"unit\": ")
			b.Write(jsonenc.AppendString(nil, m.Unit))
			for _, st := range jsonStats(m) {
				if st.val == nil || !finite(*st.val) {
					continue
				}
				b.WriteString(",\n        \"" + st.name + "\": ")
				b.Write(pyfmt.AppendFloat(nil, *st.val))
			}
			if m.Count != nil {
				b.WriteString(",\n        \"count\": " + strconv.FormatInt(*m.Count, 10))
			}
			if m.Sum != nil && finite(*m.Sum) {
				b.WriteString(",\n        \"sum\": ")
				b.Write(pyfmt.AppendFloat(nil, *m.Sum))
			}
			b.WriteString("\n      }")
		}
		b.WriteString("\n    }")
	}
	if len(slices) > 0 {
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

// renderCSV writes the long format Timeslice,Start_NS,End_NS,Metric,Unit,
// Stat,Value with CRLF line endings (Python's csv.writer).
func renderCSV(slices []Slice, headers map[string]string) []byte {
	var b bytes.Buffer
	b.WriteString("Timeslice,Start_NS,End_NS,Metric,Unit,Stat,Value\r\n")
	for i, s := range slices {
		for j := range s.Metrics {
			m := &s.Metrics[j]
			name := headers[m.Tag]
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
