// Package gputelemetry turns the run's GPU telemetry samples
// (sdk.ExportContext.GPUTelemetry) into AIPerf 0.13's exports: the
// per-GPU summary behind telemetry_data in profile_export_aiperf.json, the
// CSV GPU section and the console tables (Summarize), and the
// gpu_telemetry_export.jsonl file (the "gpu_telemetry_jsonl" exporter).
package gputelemetry

import (
	"math"
	"net/url"
	"slices"
	"strings"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/gputelemetry/gpufields"
)

// FinalScrapeGrace widens the window's end past the last request, so the
// scrape that closes the phase counts (AIPerf's
// AIPERF_GPU_FINAL_SCRAPE_GRACE_NS default, 2x the 333 ms interval).
const FinalScrapeGrace = 666 * time.Millisecond

// Summary is AIPerf's TelemetryExportData.
type Summary struct {
	Configured, Successful []string
	// Start and End bound the profiling window the stats cover.
	Start, End time.Time
	Endpoints  []Endpoint
}

// Endpoint is one source's GPUs; Display is the URL without scheme and
// /metrics (AIPerf's normalize_endpoint_display).
type Endpoint struct {
	Display string
	GPUs    []GPU
}

// GPU is AIPerf's GpuSummary: identity and one result per field it
// reported, in gpufields.Fields order.
type GPU struct {
	Index                      int
	Name, UUID, Platform, Host string
	Metrics                    []Metric
	series                     []point
}

// Metric is one field's result: a distribution for a gauge, the delta
// (Avg only) for a counter.
type Metric struct {
	Field  gpufields.Field
	Result sdk.MetricResult
}

type point struct {
	ts int64
	m  map[string]float64
}

// Summarize computes the summary over the profiling window of ec
// (Results.StartTime to Results.EndTime + FinalScrapeGrace, both ends
// included; the counters' baseline is the last sample before the start).
// Nil when no GPU source gave a sample.
func Summarize(ec *sdk.ExportContext) *Summary {
	if ec == nil || ec.GPUTelemetry == nil {
		return nil
	}
	var startNs, endNs int64 = math.MinInt64, math.MaxInt64
	s := &Summary{Configured: []string{}, Successful: []string{}}
	if ec.Results != nil && !ec.Results.StartTime.IsZero() {
		s.Start = ec.Results.StartTime
		startNs = s.Start.UnixNano()
	}
	if ec.Results != nil && !ec.Results.EndTime.IsZero() {
		s.End = ec.Results.EndTime.Add(FinalScrapeGrace)
		endNs = s.End.UnixNano()
	}
	for _, series := range ec.GPUTelemetry {
		// AIPerf lists the sources that gave data as both configured and
		// successful; one that never answered is left out (the sampler
		// warned about it).
		if len(series.Samples) == 0 {
			continue
		}
		s.Configured = append(s.Configured, series.Source)
		s.Successful = append(s.Successful, series.Source)
		ep := Endpoint{Display: DisplayEndpoint(series.Source)}
		byUUID := map[string]int{}
		for _, smp := range series.Samples {
			for _, r := range smp.GPUs {
				i, ok := byUUID[r.UUID]
				if !ok {
					i = len(ep.GPUs)
					byUUID[r.UUID] = i
					ep.GPUs = append(ep.GPUs, GPU{Index: r.Index, Name: r.Name, UUID: r.UUID,
						Platform: gpufields.Platform(r.Metrics), Host: r.Hostname})
				}
				ep.GPUs[i].series = append(ep.GPUs[i].series, point{smp.TimestampNs, r.Metrics})
			}
		}
		for i := range ep.GPUs {
			g := &ep.GPUs[i]
			slices.SortStableFunc(g.series, func(a, b point) int { return cmpInt(a.ts, b.ts) })
			for _, f := range gpufields.Fields {
				if r, ok := fieldResult(g.series, f, startNs, endNs); ok {
					g.Metrics = append(g.Metrics, Metric{Field: f, Result: r})
				}
			}
			g.series = nil
		}
		s.Endpoints = append(s.Endpoints, ep)
	}
	if len(s.Endpoints) == 0 {
		return nil // AIPerf's empty telemetry_data, as without telemetry
	}
	return s
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// fieldResult is AIPerf's to_metric_result_filtered for one field.
func fieldResult(series []point, f gpufields.Field, startNs, endNs int64) (sdk.MetricResult, bool) {
	var in []float64
	baseline, haveBase := 0.0, false
	for _, p := range series {
		v, ok := p.m[f.Name]
		if !ok || math.IsNaN(v) {
			continue
		}
		switch {
		case p.ts < startNs:
			baseline, haveBase = v, true
		case p.ts <= endNs:
			in = append(in, v)
		}
	}
	if len(in) == 0 {
		return sdk.MetricResult{}, false
	}
	res := sdk.MetricResult{Tag: f.Name, Header: f.Display, Unit: f.Unit}
	if f.Counter {
		if !haveBase {
			baseline = in[0]
		}
		d := max(in[len(in)-1]-baseline, 0) // a reset (exporter restart) is not negative work
		res.Avg = &d
		return res, true
	}
	sorted := slices.Clone(in)
	slices.Sort(sorted)
	n := len(sorted)
	sum := 0.0
	for _, v := range sorted {
		sum += v
	}
	mean := sum / float64(n)
	std := 0.0
	if n > 1 { // sample std (ddof=1), as AIPerf's telemetry stats
		sq := 0.0
		for _, v := range sorted {
			sq += (v - mean) * (v - mean)
		}
		std = math.Sqrt(sq / float64(n-1))
	}
	p := func(q float64) *float64 {
		idx := q / 100 * float64(n-1)
		lo := int(idx)
		hi := min(lo+1, n-1)
		v := sorted[lo] + (idx-float64(lo))*(sorted[hi]-sorted[lo])
		return &v
	}
	cnt := int64(n)
	lo, hi := sorted[0], sorted[n-1]
	res.Avg, res.Min, res.Max, res.Sum, res.Std, res.Count = &mean, &lo, &hi, &sum, &std, &cnt
	res.P1, res.P5, res.P10, res.P25, res.P50 = p(1), p(5), p(10), p(25), p(50)
	res.P75, res.P90, res.P95, res.P99 = p(75), p(90), p(95), p(99)
	return res, true
}

// DisplayEndpoint is AIPerf's normalize_endpoint_display: host:port and
// the path without a trailing /metrics ("pynvml://localhost" -> "localhost").
func DisplayEndpoint(source string) string {
	u, err := url.Parse(source)
	if err != nil || u.Host == "" {
		return source
	}
	return u.Host + strings.TrimSuffix(u.Path, "/metrics")
}
