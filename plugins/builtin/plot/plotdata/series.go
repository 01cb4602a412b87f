// Package plotdata is the data selection the PNG plots (package plot) and
// the HTML report (package htmlreport) share, so the two draw the same
// points: which telemetry field and server series a plot shows, which
// samples are finite, the run's reference line, AIPerf's outlier and Pareto
// rules and the sweep's load axis. It draws nothing.
package plotdata

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/gputelemetry/gpufields"
)

// The telemetry fields of each GPU plot and the server metrics of each
// server plot; a plot draws the first of its list a run has.
var (
	// GPUActivityFields is AIPerf's GPU_ACTIVITY_COLUMN_PRIORITY (legacy
	// gpu_utilization is read as nvidia_gpu_utilization by core/artifacts).
	GPUActivityFields    = []string{gpufields.GPUUtilization, "amd_gfx_activity"}
	GPUPowerFields       = []string{gpufields.PowerUsage, gpufields.AMDPower}
	GPUMemoryUsedFields  = []string{gpufields.MemoryUsed, "amd_memory_used"}
	GPUTemperatureFields = []string{gpufields.Temperature, "amd_temperature"}
	// KVCacheMetrics: vLLM renamed gpu_cache_usage_perc to kv_cache_usage_perc.
	KVCacheMetrics = []string{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"}
	// RequestMetrics are drawn together, a line each.
	RequestMetrics = []string{"vllm:num_requests_running", "vllm:num_requests_waiting"}
)

// Finite reports whether v is a number a chart can place (not NaN or ±Inf).
func Finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// FinitePoints are the points (xs[i], ys[i]) with both finite, in order (a
// sample without the field has NaN); nil when there are none.
func FinitePoints(xs, ys []float64) (fx, fy []float64) {
	for i := range min(len(xs), len(ys)) {
		if Finite(ys[i]) && Finite(xs[i]) {
			fx, fy = append(fx, xs[i]), append(fy, ys[i])
		}
	}
	return fx, fy
}

func hasFinitePoint(xs, ys []float64) bool {
	for i := range min(len(xs), len(ys)) {
		if Finite(ys[i]) && Finite(xs[i]) {
			return true
		}
	}
	return false
}

// AxisLabel is name with its unit in parentheses, when it has one.
func AxisLabel(name, unit string) string {
	if unit == "" {
		return name
	}
	return name + " (" + unit + ")"
}

// HigherIsBetter is AIPerf's metric direction for outliers: a throughput
// is bad when low, anything else (a latency) when high.
func HigherIsBetter(metric string) bool {
	return strings.Contains(strings.ToLower(metric), "throughput")
}

// Windows are a timeslice metric's per-window values, in the export's order.
type Windows struct {
	Index []int     // the windows that have the metric's avg
	Avg   []float64 // the avg of each
	Std   []float64 // the std of each; nil when a window lacks it
	Unit  string    // the first window's unit
}

// TimesliceWindows are the windows of the timeslice export with metric's avg.
func TimesliceWindows(run *sdk.PlotRun, metric string) Windows {
	var w Windows
	hasStd := true
	for _, ts := range run.Timeslices {
		m, ok := ts.Metrics[metric]
		avg, okAvg := m.Stats["avg"]
		if !ok || !okAvg {
			continue
		}
		if w.Unit == "" {
			w.Unit = m.Unit
		}
		std, okStd := m.Stats["std"]
		hasStd = hasStd && okStd
		w.Index = append(w.Index, ts.Index)
		w.Avg = append(w.Avg, avg)
		w.Std = append(w.Std, std)
	}
	if !hasStd {
		w.Std = nil
	}
	return w
}

// RunAverage is the summary's avg and std of tag as AIPerf's
// _get_average_for_timeslice_metric, NaN where there is none: none for a
// single-stat metric (a throughput, whose avg is total over duration, not a
// mean of samples), and no std without an avg.
func RunAverage(run *sdk.PlotRun, tag string) (avg, std float64) {
	m, ok := run.Summary[tag]
	if !ok {
		return math.NaN(), math.NaN()
	}
	single := true
	for k := range m.Stats {
		if k != "avg" && k != "count" && k != "sum" {
			single = false
		}
	}
	if single {
		return math.NaN(), math.NaN()
	}
	return average(m.Stats)
}

// SeriesAverage is a server series' avg and std over the run, NaN where
// there is none (no std without an avg).
func SeriesAverage(s sdk.PlotServerSeries) (avg, std float64) { return average(s.Stats) }

func average(stats map[string]float64) (avg, std float64) {
	v, ok := stats["avg"]
	if !ok {
		return math.NaN(), math.NaN()
	}
	if sd, ok := stats["std"]; ok {
		return v, sd
	}
	return v, math.NaN()
}

// Outliers is AIPerf's detect_directional_outliers: the windows beyond the
// run's avg ± (run std + the window's std), below it when higherIsBetter,
// above it otherwise; none without a finite run avg and std. stds may be
// nil; a window's std that is not finite counts as 0.
func Outliers(ys, stds []float64, avg, std float64, higherIsBetter bool) []bool {
	out := make([]bool, len(ys))
	if !Finite(avg) || !Finite(std) {
		return out
	}
	for i, y := range ys {
		s := 0.0
		if i < len(stds) && Finite(stds[i]) {
			s = stds[i]
		}
		if higherIsBetter {
			out[i] = y < avg-std-s
		} else {
			out[i] = y > avg+std+s
		}
	}
	return out
}

// GPUField is the first of fields any GPU of the run has a finite value of.
func GPUField(run *sdk.PlotRun, fields []string) (string, bool) {
	for _, f := range fields {
		for _, g := range run.GPUs {
			if slices.ContainsFunc(g.Metrics[f], Finite) {
				return f, true
			}
		}
	}
	return "", false
}

// FieldLabel is a telemetry field's display name, its axis label (with the
// unit) and its unit; an unknown field is shown by its name.
func FieldLabel(field string) (display, axis, unit string) {
	f, ok := gpufields.Lookup(field)
	if !ok {
		return field, field, ""
	}
	return f.Display, AxisLabel(f.Display, f.Unit), f.Unit
}

// GPUName labels a GPU's line "GPU 0", with its source when the run
// scraped several.
func GPUName(run *sdk.PlotRun, g sdk.PlotGPU) string {
	name := "GPU " + strconv.Itoa(g.Index)
	if slices.ContainsFunc(run.GPUs, func(o sdk.PlotGPU) bool { return o.Source != g.Source }) {
		return name + " (" + g.Source + ")"
	}
	return name
}

// MeanAcrossGPUs averages field over the GPUs sampled at the same time, as
// AIPerf's aggregate_gpu_telemetry groups by timestamp: a GPU without a
// finite value at a time is left out of that mean. xs are ascending.
func MeanAcrossGPUs(run *sdk.PlotRun, field string) (xs, ys []float64) {
	sum, n := map[float64]float64{}, map[float64]int{}
	for _, g := range run.GPUs {
		gx, gy := FinitePoints(g.Times, g.Metrics[field])
		for i, x := range gx {
			sum[x] += gy[i]
			n[x]++
		}
	}
	xs = make([]float64, 0, len(sum))
	for x := range sum {
		xs = append(xs, x)
	}
	slices.SortFunc(xs, cmp.Compare)
	ys = make([]float64, len(xs))
	for i, x := range xs {
		ys[i] = sum[x] / float64(n[x])
	}
	return xs, ys
}

// ServerSeries are the run's series with a finite point of the first of
// metrics present (firstOnly) or of all of them, in the run's order.
func ServerSeries(run *sdk.PlotRun, metrics []string, firstOnly bool) []sdk.PlotServerSeries {
	var out []sdk.PlotServerSeries
	for _, m := range metrics {
		for _, s := range run.ServerMetrics {
			if s.Metric == m && hasFinitePoint(s.Times, s.Values) {
				out = append(out, s)
			}
		}
		if firstOnly && len(out) > 0 {
			break
		}
	}
	return out
}

// SeriesLabel names a series by its metric and the labels that tell it
// from the other series of that metric in all (AIPerf's
// create_series_legend_label, simplified).
func SeriesLabel(s sdk.PlotServerSeries, all []sdk.PlotServerSeries) string {
	var keys []string
	for k, v := range s.Labels {
		if slices.ContainsFunc(all, func(o sdk.PlotServerSeries) bool { return o.Metric == s.Metric && o.Labels[k] != v }) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	name := s.Metric
	for i, k := range keys {
		sep := ", "
		if i == 0 {
			sep = " "
		}
		name += sep + k + "=" + s.Labels[k]
	}
	return name
}
