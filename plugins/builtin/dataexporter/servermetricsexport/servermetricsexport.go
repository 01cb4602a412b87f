// Package servermetricsexport is the "server_metrics" data exporter: it
// writes the run's server metrics (ExportContext.ServerMetrics, computed by
// core/telemetry/servermetrics) as AIPerf 0.13's server_metrics_export.json
// and .csv (the default --server-metrics-formats) and, when chosen,
// server_metrics_export.jsonl. It only renders.
package servermetricsexport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/pyfmt"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/internal/atomicfile"
)

// Name is the plugin name.
const Name = "server_metrics"

// SchemaVersion is AIPerf 0.13's server-metrics JSON schema_version.
const SchemaVersion = "1.1"

// Default file names (config/artifacts.py).
const (
	DefaultJSONName  = "server_metrics_export.json"
	DefaultCSVName   = "server_metrics_export.csv"
	DefaultJSONLName = "server_metrics_export.jsonl"
)

// Exporter is the data exporter; it keeps no state.
type Exporter struct{}

var _ sdk.DataExporter = (*Exporter)(nil)

// New returns the exporter.
func New() *Exporter { return &Exporter{} }

// FileNames are AIPerf's names: with --profile-export-prefix foo they are
// foo_server_metrics.json/.csv/.jsonl.
func FileNames(files sdk.ArtifactFiles) (jsonName, csvName, jsonlName string) {
	stem := strings.TrimSuffix(files.SummaryJSON, ".json")
	if stem == "" || stem == "profile_export_aiperf" {
		return DefaultJSONName, DefaultCSVName, DefaultJSONLName
	}
	return stem + "_server_metrics.json", stem + "_server_metrics.csv", stem + "_server_metrics.jsonl"
}

// Export writes the chosen formats when there are server metrics.
func (e *Exporter) Export(ctx context.Context, ec *sdk.ExportContext) ([]sdk.ExportedFile, error) {
	if ec == nil {
		return nil, errors.New("server_metrics: nil export context")
	}
	sm := ec.ServerMetrics
	if sm == nil || len(sm.Endpoints) == 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("server_metrics: %w", err)
	}
	jn, cn, ln := FileNames(ec.Files)
	var out []sdk.ExportedFile
	type file struct {
		format, name, label string
		render              func() ([]byte, error)
	}
	for _, f := range []file{
		{"json", jn, "Server Metrics JSON Export", func() ([]byte, error) { return RenderJSON(ec) }},
		{"csv", cn, "Server Metrics CSV Export", func() ([]byte, error) { return RenderCSV(ec), nil }},
		{"jsonl", ln, "Server Metrics JSONL Export", func() ([]byte, error) { return RenderJSONL(sm) }},
	} {
		if !sm.HasFormat(f.format) {
			continue
		}
		data, err := f.render()
		if err != nil {
			return out, fmt.Errorf("server_metrics: render %s: %w", f.name, err)
		}
		path := filepath.Join(ec.ArtifactDir, f.name)
		if err := atomicfile.WriteFile(path, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
			return out, fmt.Errorf("server_metrics: write %s: %w", path, err)
		}
		out = append(out, sdk.ExportedFile{Label: f.label, Path: path})
	}
	return out, nil
}

// obj is a JSON object that keeps its key order.
type obj []kv

type kv struct {
	k string
	v any
}

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(p.k)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(p.v)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// pyf is a float written as Python does (24.0, not 24); non-finite is null.
type pyf float64

func (f pyf) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return []byte("null"), nil
	}
	return pyfmt.AppendFloat(nil, float64(f)), nil
}

// isoLocal is Python's datetime.fromtimestamp(...).isoformat(): local time,
// no zone, microseconds unless zero.
func isoLocal(ns int64) string {
	t := time.Unix(0, ns).Local()
	if t.Nanosecond()/1000 == 0 {
		return t.Format("2006-01-02T15:04:05")
	}
	return t.Format("2006-01-02T15:04:05.000000")
}

func labelsObj(l map[string]string) obj {
	keys := make([]string, 0, len(l))
	for k := range l {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	o := make(obj, 0, len(keys))
	for _, k := range keys {
		o = append(o, kv{k, l[k]})
	}
	return o
}

func optF(o obj, k string, v *float64) obj {
	if v != nil && !math.IsNaN(*v) && !math.IsInf(*v, 0) {
		o = append(o, kv{k, pyf(*v)})
	}
	return o
}

func statsObj(s sdk.ServerMetricSeries) obj {
	switch {
	case s.Gauge != nil:
		g := s.Gauge
		return obj{{"avg", pyf(g.Avg)}, {"min", pyf(g.Min)}, {"max", pyf(g.Max)}, {"std", pyf(g.Std)},
			{"p1", pyf(g.P1)}, {"p5", pyf(g.P5)}, {"p10", pyf(g.P10)}, {"p25", pyf(g.P25)}, {"p50", pyf(g.P50)},
			{"p75", pyf(g.P75)}, {"p90", pyf(g.P90)}, {"p95", pyf(g.P95)}, {"p99", pyf(g.P99)}}
	case s.Counter != nil:
		c := s.Counter
		o := obj{{"total", pyf(c.Total)}, {"rate", pyf(c.Rate)}}
		o = optF(o, "rate_avg", c.RateAvg)
		o = optF(o, "rate_min", c.RateMin)
		o = optF(o, "rate_max", c.RateMax)
		return optF(o, "rate_std", c.RateStd)
	case s.Histogram != nil:
		h := s.Histogram
		o := obj{{"count", h.Count}}
		for _, p := range []struct {
			k string
			v *float64
		}{{"sum", h.Sum}, {"avg", h.Avg}, {"count_rate", h.CountRate}, {"sum_rate", h.SumRate},
			{"p1_estimate", h.P1}, {"p5_estimate", h.P5}, {"p10_estimate", h.P10}, {"p25_estimate", h.P25},
			{"p50_estimate", h.P50}, {"p75_estimate", h.P75}, {"p90_estimate", h.P90}, {"p95_estimate", h.P95},
			{"p99_estimate", h.P99}} {
			o = optF(o, p.k, p.v)
		}
		return o
	}
	return obj{}
}

// timeslicesArr is a series' timeslices as AIPerf's *Timeslice models
// dump them (is_complete only when false); nil when there are none.
func timeslicesArr(s sdk.ServerMetricSeries) []obj {
	if len(s.Timeslices) == 0 {
		return nil
	}
	out := make([]obj, 0, len(s.Timeslices))
	for _, t := range s.Timeslices {
		o := obj{{"start_ns", t.StartNs}, {"end_ns", t.EndNs}}
		if t.Partial {
			o = append(o, kv{"is_complete", false})
		}
		switch {
		case s.Counter != nil:
			o = append(o, kv{"total", pyf(t.Total)}, kv{"rate", pyf(t.Rate)})
		case s.Histogram != nil:
			o = append(o, kv{"count", t.Count}, kv{"sum", pyf(t.Sum)}, kv{"avg", pyf(t.Avg)})
			if t.Buckets != nil {
				b := make(obj, 0, len(t.Buckets))
				for _, bk := range t.Buckets {
					b = append(b, kv{bk.Le, int64(bk.Count)})
				}
				o = append(o, kv{"buckets", b})
			}
		default:
			o = append(o, kv{"avg", pyf(t.Avg)}, kv{"min", pyf(t.Min)}, kv{"max", pyf(t.Max)})
		}
		out = append(out, o)
	}
	return out
}

// metricsObj merges every endpoint's metrics keyed by name (sorted), each
// series tagged with its endpoint_url (json_exporter._build_hybrid_metrics).
func metricsObj(eps []sdk.ServerMetricsEndpoint, warmup bool) obj {
	type entry struct {
		m      sdk.ServerMetric
		series []obj
	}
	byName := map[string]*entry{}
	for _, ep := range eps {
		ms := ep.Metrics
		if warmup {
			ms = ep.WarmupMetrics
		}
		for _, m := range ms {
			e := byName[m.Name]
			if e == nil {
				e = &entry{m: m}
				byName[m.Name] = e
			}
			for _, s := range m.Series {
				so := obj{{"endpoint_url", ep.URL}}
				if len(s.Labels) > 0 {
					so = append(so, kv{"labels", labelsObj(s.Labels)})
				}
				so = append(so, kv{"stats", statsObj(s)})
				if s.Histogram != nil && s.Buckets != nil {
					b := make(obj, 0, len(s.Buckets))
					for _, bk := range s.Buckets {
						b = append(b, kv{bk.Le, int64(bk.Count)})
					}
					so = append(so, kv{"buckets", b})
				}
				if ts := timeslicesArr(s); ts != nil {
					so = append(so, kv{"timeslices", ts})
				}
				e.series = append(e.series, so)
			}
		}
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make(obj, 0, len(names))
	for _, n := range names {
		e := byName[n]
		mo := obj{{"type", e.m.Type}, {"description", e.m.Description}}
		if e.m.Unit != "" {
			mo = append(mo, kv{"unit", e.m.Unit})
		}
		mo = append(mo, kv{"series", e.series})
		out = append(out, kv{n, mo})
	}
	return out
}

// RenderJSON is server_metrics_export.json (json_exporter.py).
func RenderJSON(ec *sdk.ExportContext) ([]byte, error) {
	sm := ec.ServerMetrics
	info := obj{}
	for _, ep := range sm.Endpoints {
		i := ep.Info
		info = append(info, kv{ep.URL, obj{{"total_fetches", i.TotalFetches}, {"first_fetch_ns", i.FirstFetchNs},
			{"last_fetch_ns", i.LastFetchNs}, {"avg_fetch_latency_ms", pyf(i.AvgFetchLatencyMs)},
			{"unique_updates", i.UniqueUpdates}, {"first_update_ns", i.FirstUpdateNs}, {"last_update_ns", i.LastUpdateNs},
			{"duration_seconds", pyf(i.DurationSeconds)}, {"avg_update_interval_ms", pyf(i.AvgUpdateIntervalMs)},
			{"median_update_interval_ms", pyf(i.MedianUpdateIntervalMs)}}})
	}
	ranges := obj{}
	if sm.StartNs < sm.EndNs {
		ranges = append(ranges, kv{"profiling", obj{{"start_ns", sm.StartNs}, {"end_ns", sm.EndNs}}})
	}
	if sm.WarmupStartNs != 0 && sm.WarmupStartNs < sm.WarmupEndNs {
		ranges = append(ranges, kv{"warmup", obj{{"start_ns", sm.WarmupStartNs}, {"end_ns", sm.WarmupEndNs}}})
	}
	summary := obj{{"endpoints_configured", nonNil(sm.EndpointsConfigured)}, {"endpoints_successful", nonNil(sm.EndpointsSuccessful)},
		{"start_time", isoLocal(sm.StartNs)}, {"end_time", isoLocal(sm.EndNs)}}
	if len(info) > 0 {
		summary = append(summary, kv{"endpoint_info", info})
	}
	summary = append(summary, kv{"phase_time_ranges", ranges})
	doc := obj{{"schema_version", SchemaVersion}, {"aiperf_version", ec.AIPerfVersion}, {"benchmark_id", ec.BenchmarkID},
		{"summary", summary}, {"metrics_phase", sdk.PhaseProfiling}, {"metrics", metricsObj(sm.Endpoints, false)}}
	if w := metricsObj(sm.Endpoints, true); len(w) > 0 {
		doc = append(doc, kv{"warmup_metrics", w})
	}
	if ec.InputConfig != nil {
		doc = append(doc, kv{"input_config", ec.InputConfig})
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// RenderJSONL is server_metrics_export.jsonl: one line per scrape whose
// content changed (jsonl_writer.py), endpoints in URL order.
func RenderJSONL(sm *sdk.ServerMetricsResults) ([]byte, error) {
	var b bytes.Buffer
	for _, ep := range sm.Endpoints {
		for _, r := range ep.Scrapes {
			names := make([]string, 0, len(r.Metrics))
			for n := range r.Metrics {
				names = append(names, n)
			}
			sort.Strings(names)
			metrics := make(obj, 0, len(names))
			for _, n := range names {
				var samples []obj
				for _, s := range r.Metrics[n] {
					o := obj{}
					if len(s.Labels) > 0 {
						o = append(o, kv{"labels", labelsObj(s.Labels)})
					}
					if s.Value != nil {
						o = append(o, kv{"value", pyf(*s.Value)})
					}
					if s.Buckets != nil {
						bo := make(obj, 0, len(s.Buckets))
						for _, bk := range s.Buckets {
							bo = append(bo, kv{bk.Le, pyf(bk.Count)})
						}
						o = append(o, kv{"buckets", bo})
						o = optF(o, "sum", s.Sum)
						o = optF(o, "count", s.Count)
					}
					samples = append(samples, o)
				}
				metrics = append(metrics, kv{n, samples})
			}
			line, err := json.Marshal(obj{{"endpoint_url", ep.URL}, {"timestamp_ns", r.TimestampNs},
				{"endpoint_latency_ns", r.EndpointLatencyNs}, {"metrics", metrics}, {"request_sent_ns", r.RequestSentNs},
				{"first_byte_ns", r.TimestampNs}})
			if err != nil {
				return nil, err
			}
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	return b.Bytes(), nil
}
