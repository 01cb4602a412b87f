package servermetricsexport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/internal/atomicfile"
)

// PhaseFileName is the per-phase server metrics file (AIPerf 0.13's
// phases/<phase>/server_metrics.json) and PhaseManifestKey its key in
// phase_manifest.json.
const (
	PhaseFileName    = "server_metrics.json"
	PhaseManifestKey = "server_metrics_json"
)

var _ sdk.PhaseExporter = (*Exporter)(nil)

// ExportPhase writes phases/<phase>/server_metrics.json: the phase's
// window of every endpoint (the warmup window for the warmup phase), in
// AIPerf's _write_phase_observability_export shape. Nothing is written
// without server metrics or when no endpoint answered in the phase.
func (e *Exporter) ExportPhase(ctx context.Context, ec *sdk.ExportContext) ([]sdk.ExportedFile, error) {
	if ec.ServerMetrics == nil || ec.Phase == nil {
		return nil, nil
	}
	data, ok, err := RenderPhaseJSON(ec.BenchmarkID, ec.ServerMetrics, *ec.Phase)
	if err != nil || !ok {
		return nil, err
	}
	path := filepath.Join(ec.ArtifactDir, PhaseFileName)
	if err := atomicfile.WriteFile(path, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return []sdk.ExportedFile{{Label: "Server Metrics Phase Export", Path: path, Key: PhaseManifestKey}}, nil
}

// RenderPhaseJSON renders one phase's file; ok is false when no endpoint
// has a fetch inside the phase (AIPerf then writes no file).
func RenderPhaseJSON(benchmarkID string, sm *sdk.ServerMetricsResults, ph sdk.PhaseInfo) ([]byte, bool, error) {
	warm := ph.Kind == sdk.PhaseWarmup
	summaries := obj{}
	var start, end int64
	for _, ep := range sm.Endpoints {
		info, ms := ep.ProfilingInfo, ep.Metrics
		if warm {
			info, ms = ep.WarmupInfo, ep.WarmupMetrics
		}
		if info.TotalFetches == 0 {
			continue
		}
		if start == 0 || info.FirstFetchNs < start {
			start = info.FirstFetchNs
		}
		end = max(end, info.LastFetchNs)
		summaries = append(summaries, kv{EndpointDisplay(ep.URL), obj{
			{"endpoint_url", ep.URL}, {"info", infoObj(info)}, {"metrics", phaseMetricsObj(ms)}}})
	}
	if len(summaries) == 0 {
		return nil, false, nil
	}
	var profilingIndex any
	if ph.ProfilingIndex >= 0 {
		profilingIndex = ph.ProfilingIndex
	}
	data := obj{{"benchmark_id", benchmarkID}, {"endpoint_summaries", summaries},
		{"endpoints_configured", nonNil(sm.EndpointsConfigured)}, {"endpoints_successful", nonNil(sm.EndpointsSuccessful)},
		{"error_summary", []any{}}, {"phase", ph.Kind}, {"phase_index", ph.Index}, {"phase_kind", ph.Kind},
		{"phase_name", ph.Name}, {"phase_results", []any{}}, {"start_ns", start}, {"end_ns", end}}
	if profilingIndex != nil { // exclude_none drops it for warmup
		data = append(data, kv{"profiling_index", profilingIndex})
	}
	doc := obj{{"schema_version", 1},
		{"phase", obj{{"phase_index", ph.Index}, {"profiling_index", profilingIndex}, {"phase_name", ph.Name},
			{"phase_kind", ph.Kind}, {"start_ns", ph.StartNs}, {"end_ns", ph.EndNs}, {"was_cancelled", ph.WasCancelled}}},
		{"data", data}, {"warnings", []any{}}}
	out, err := sortedIndent(doc)
	if err != nil {
		return nil, false, fmt.Errorf("render %s for the %s phase: %w", PhaseFileName, ph.Name, err)
	}
	return out, true, nil
}

func infoObj(i sdk.ServerMetricsEndpointInfo) obj {
	return obj{{"total_fetches", i.TotalFetches}, {"first_fetch_ns", i.FirstFetchNs},
		{"last_fetch_ns", i.LastFetchNs}, {"avg_fetch_latency_ms", pyf(i.AvgFetchLatencyMs)},
		{"unique_updates", i.UniqueUpdates}, {"first_update_ns", i.FirstUpdateNs}, {"last_update_ns", i.LastUpdateNs},
		{"duration_seconds", pyf(i.DurationSeconds)}, {"avg_update_interval_ms", pyf(i.AvgUpdateIntervalMs)},
		{"median_update_interval_ms", pyf(i.MedianUpdateIntervalMs)}}
}

// phaseMetricsObj is one endpoint's metrics as ServerMetricsEndpointSummary
// dumps them: {type, description, series: [{labels?, stats, buckets?, timeslices?}]}
// (no unit, no endpoint_url).
func phaseMetricsObj(ms []sdk.ServerMetric) obj {
	out := make(obj, 0, len(ms))
	for _, m := range ms {
		series := make([]obj, 0, len(m.Series))
		for _, s := range m.Series {
			so := obj{}
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
			series = append(series, so)
		}
		out = append(out, kv{m.Name, obj{{"type", m.Type}, {"description", m.Description}, {"series", series}}})
	}
	return out
}

// sortedIndent writes v with every object's keys sorted and 2-space
// indentation, as orjson's OPT_SORT_KEYS | OPT_INDENT_2 does; numbers keep
// their Python spelling (json.Number carries the text through).
func sortedIndent(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	out, err := json.MarshalIndent(tree, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}
