package htmlreport

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/gputelemetry/gpufields"
	plotbuiltin "github.com/aiperf-go/aiperf/plugins/builtin/plot"
)

// The charts of a run's time series mirror the PNGs of
// plugins/builtin/plot/series.go: same names, titles, axes, units and
// series, each present exactly when its PNG's Applies says the run has
// the data. The choices below (which field, which server series) repeat
// that file's, which keeps them unexported.

// maxWindows bounds the windows drawn as a category axis (a label per
// window); a timeslice index past it (a broken CSV) is drawn on a value
// axis instead, so it cannot make the browser build millions of labels.
const maxWindows = 100_000

// gpuActivityFields are AIPerf's GPU_ACTIVITY_COLUMN_PRIORITY, as the PNGs.
var gpuActivityFields = []string{gpufields.GPUUtilization, "amd_gfx_activity"}

// gpuFieldsOf are the fields each per-GPU chart draws, the first present.
var gpuFieldsOf = map[string][]string{
	plotbuiltin.GPUPowerOverTime:       {gpufields.PowerUsage, gpufields.AMDPower},
	plotbuiltin.GPUUtilizationOverTime: gpuActivityFields,
	plotbuiltin.GPUMemoryUsedOverTime:  {gpufields.MemoryUsed, "amd_memory_used"},
	plotbuiltin.GPUTemperatureOverTime: {gpufields.Temperature, "amd_temperature"},
}

// timesliceOf are the timeslice charts: the CSV's metric name, the
// summary tag of the run's average and the title.
var timesliceOf = map[string]struct{ metric, tag, title string }{
	plotbuiltin.TimeslicesTTFT:       {"Time to First Token", metricTTFT, "Time to First Token Across Time Slices"},
	plotbuiltin.TimeslicesITL:        {"Inter Token Latency", metricITL, "Inter Token Latency Across Time Slices"},
	plotbuiltin.TimeslicesThroughput: {"Request Throughput", metricReqTput, "Request Throughput Across Time Slices"},
	plotbuiltin.TimeslicesLatency:    {"Request Latency", metricLatency, "Request Latency Across Time Slices"},
}

// seriesCharts are the run's time-series charts in the PNGs' order.
func seriesCharts(r *sdk.PlotRun) []chartSpec {
	var out []chartSpec
	for _, name := range plotbuiltin.SeriesNames {
		if p := plotbuiltin.New(name); p == nil || !p.Applies(r) {
			continue
		}
		if c, ok := seriesChart(r, name); ok {
			out = append(out, c)
		}
	}
	return out
}

func seriesChart(r *sdk.PlotRun, name string) (chartSpec, bool) {
	if ts, ok := timesliceOf[name]; ok {
		return timesliceChart(r, name, ts.metric, ts.tag, ts.title)
	}
	if fields, ok := gpuFieldsOf[name]; ok {
		return gpuChart(r, name, fields)
	}
	switch name {
	case plotbuiltin.GPUUtilizationThroughput:
		return throughputGPUChart(r)
	case plotbuiltin.ServerKVCacheUsageOverTime:
		// vLLM renamed gpu_cache_usage_perc to kv_cache_usage_perc; the first present is drawn.
		return serverChart(r, name, []string{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"}, true, "", "")
	case plotbuiltin.ServerRequestsOverTime:
		return serverChart(r, name, []string{"vllm:num_requests_running", "vllm:num_requests_waiting"}, false,
			"Server Requests Running and Waiting Over Time", "Requests")
	}
	return chartSpec{}, false
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func ptr(v float64) *float64 { return &v }

// runAverage is the summary's avg and std of tag as AIPerf's
// _get_average_for_timeslice_metric: none for a single-stat metric (a
// throughput, whose avg is total over duration, not a mean of samples).
func runAverage(r *sdk.PlotRun, tag string) (avg, std *float64) {
	m, ok := r.Summary[tag]
	if !ok {
		return nil, nil
	}
	single := true
	for k := range m.Stats {
		if k != "avg" && k != "count" && k != "sum" {
			single = false
		}
	}
	if single {
		return nil, nil
	}
	if v, ok := m.Stats["avg"]; ok && finite(v) {
		avg = ptr(v)
		if v, ok := m.Stats["std"]; ok && finite(v) {
			std = ptr(v)
		}
	}
	return avg, std
}

// timesliceChart is AIPerf's timeslice scatter: the metric's avg per
// window with its ±std, the run's average and std band, by window.
func timesliceChart(r *sdk.PlotRun, id, metric, tag, title string) (chartSpec, bool) {
	c := chartSpec{ID: id, Kind: kindTimeslice, Title: title, XLabel: "Timeslice (s)",
		HigherBetter: strings.Contains(strings.ToLower(metric), "throughput")}
	hasStd := true
	var idx []int
	for _, ts := range r.Timeslices {
		m, ok := ts.Metrics[metric]
		avg, okAvg := m.Stats["avg"]
		if !ok || !okAvg {
			continue
		}
		if c.Unit == "" {
			c.Unit = m.Unit
		}
		std, okStd := m.Stats["std"]
		hasStd = hasStd && okStd
		idx = append(idx, ts.Index)
		c.Y = append(c.Y, avg)
		c.Err = append(c.Err, std)
	}
	if len(idx) == 0 {
		return c, false
	}
	if !hasStd {
		c.Err = nil
	}
	c.YLabel = metric
	if c.Unit != "" {
		c.YLabel += " (" + c.Unit + ")"
	}
	c.RunAvg, c.RunStd = runAverage(r, tag)
	d := r.SliceDuration
	if d <= 0 {
		c.XLabel = "Timeslice"
	}
	first, last := slices.Min(idx), slices.Max(idx)
	if first >= 0 && last < maxWindows {
		// A category per window 0..last, labelled "start-end" (AIPerf's ticktext).
		c.Windows, c.SliceDuration = last+1, max(d, 0)
		for _, i := range idx {
			c.X = append(c.X, float64(i))
		}
		return c, true
	}
	for _, i := range idx {
		x := float64(i)
		if d > 0 {
			x = x*d + d/2
		}
		c.X = append(c.X, x)
	}
	c.XMin, c.XMax = ptr(c.X[slices.Index(idx, first)]-0.5), ptr(c.X[slices.Index(idx, last)]+0.5)
	return c, true
}

// gpuField is the first of fields any GPU of the run has a value of.
func gpuField(r *sdk.PlotRun, fields []string) (string, bool) {
	for _, f := range fields {
		for _, g := range r.GPUs {
			if slices.ContainsFunc(g.Metrics[f], finite) {
				return f, true
			}
		}
	}
	return "", false
}

// fieldLabel is a telemetry field's display name, axis label and unit.
func fieldLabel(field string) (display, axis, unit string) {
	f, ok := gpufields.Lookup(field)
	if !ok {
		return field, field, ""
	}
	if f.Unit == "" {
		return f.Display, f.Display, ""
	}
	return f.Display, f.Display + " (" + f.Unit + ")", f.Unit
}

// gpuName labels a GPU's line "GPU 0", with its source when the run
// scraped several.
func gpuName(r *sdk.PlotRun, g sdk.PlotGPU) string {
	name := "GPU " + strconv.Itoa(g.Index)
	if slices.ContainsFunc(r.GPUs, func(o sdk.PlotGPU) bool { return o.Source != g.Source }) {
		return name + " (" + g.Source + ")"
	}
	return name
}

// finiteLine is the points (xs[i], ys[i]) with a finite y (a sample
// without the field has NaN).
func finiteLine(name string, xs, ys []float64) lineSpec {
	l := lineSpec{Name: name}
	for i := range min(len(xs), len(ys)) {
		if finite(ys[i]) && finite(xs[i]) {
			l.X, l.Y = append(l.X, xs[i]), append(l.Y, ys[i])
		}
	}
	return l
}

// gpuChart is one telemetry field over the run, a line per GPU.
func gpuChart(r *sdk.PlotRun, id string, fields []string) (chartSpec, bool) {
	field, ok := gpuField(r, fields)
	if !ok {
		return chartSpec{}, false
	}
	display, axis, unit := fieldLabel(field)
	c := chartSpec{ID: id, Kind: kindLines, Title: display + " Over Time", XLabel: "Time (s)", YLabel: axis,
		Unit: unit}
	if unit == "%" {
		c.YMax = 100 // a percentage reads against its full scale
	}
	for _, g := range r.GPUs {
		if l := finiteLine(gpuName(r, g), g.Times, g.Metrics[field]); len(l.X) > 0 {
			c.Lines = append(c.Lines, l)
		}
	}
	return c, len(c.Lines) > 0
}

// meanAcrossGPUs averages field over the GPUs sampled at the same time,
// as AIPerf's aggregate_gpu_telemetry groups by timestamp.
func meanAcrossGPUs(r *sdk.PlotRun, field, name string) lineSpec {
	sum, n := map[float64]float64{}, map[float64]int{}
	for _, g := range r.GPUs {
		l := finiteLine("", g.Times, g.Metrics[field])
		for i, x := range l.X {
			sum[x] += l.Y[i]
			n[x]++
		}
	}
	xs := make([]float64, 0, len(sum))
	for x := range sum {
		xs = append(xs, x)
	}
	slices.SortFunc(xs, cmp.Compare)
	l := lineSpec{Name: name, X: xs, Y: make(nums, len(xs))}
	for i, x := range xs {
		l.Y[i] = sum[x] / float64(n[x])
	}
	return l
}

// throughputGPUChart is AIPerf's gpu_utilization_and_throughput_over_time:
// the dispersed output token throughput (drawn by report.js from the
// records, left axis) with the GPUs' mean activity (right axis), both from
// the run's origin.
func throughputGPUChart(r *sdk.PlotRun) (chartSpec, bool) {
	field, ok := gpuField(r, gpuActivityFields)
	t0, okT0 := recordsOrigin(r)
	if !ok || !okT0 || !hasThroughput(r) {
		return chartSpec{}, false
	}
	_, y2, unit := fieldLabel(field)
	c := chartSpec{ID: plotbuiltin.GPUUtilizationThroughput, Kind: kindThroughputGPU,
		Title:    "Output Token Throughput with GPU Utilization",
		Subtitle: "GPU activity semantics are vendor-specific and not comparable across vendors.",
		XLabel:   "Time (s)", YLabel: "Output Token Throughput (tokens/s)", Y2Label: y2, Unit: unit}
	if r.StartNs > 0 {
		c.OriginMs = float64(r.StartNs-t0) / 1e6
	}
	c.Lines = []lineSpec{meanAcrossGPUs(r, field, y2)}
	return c, len(c.Lines[0].X) > 0
}

// serverSeries are the run's series of the first of metrics present (or of
// all of them) with a finite value, in the run's order.
func serverSeries(r *sdk.PlotRun, metrics []string, firstOnly bool) []sdk.PlotServerSeries {
	var out []sdk.PlotServerSeries
	for _, m := range metrics {
		for _, s := range r.ServerMetrics {
			if s.Metric == m && len(finiteLine("", s.Times, s.Values).X) > 0 {
				out = append(out, s)
			}
		}
		if firstOnly && len(out) > 0 {
			break
		}
	}
	return out
}

// seriesLabel names a series by its metric and the labels that tell it
// from the others, as the PNG legend.
func seriesLabel(s sdk.PlotServerSeries, all []sdk.PlotServerSeries) string {
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

// serverChart is server metrics per timeslice over the run: one series as
// AIPerf's timeslice scatter with the run's average and std, several as
// lines.
func serverChart(r *sdk.PlotRun, id string, metrics []string, firstOnly bool, title, yLabel string) (chartSpec, bool) {
	series := serverSeries(r, metrics, firstOnly)
	if len(series) == 0 {
		return chartSpec{}, false
	}
	if title == "" {
		title = series[0].Metric + " Over Time"
	}
	if yLabel == "" {
		yLabel = series[0].Metric
		if series[0].Unit != "" {
			yLabel += " (" + series[0].Unit + ")"
		}
	}
	c := chartSpec{ID: id, Title: title, XLabel: "Time (s)", YLabel: yLabel, Unit: series[0].Unit}
	if len(series) == 1 {
		one := series[0]
		l := finiteLine(one.Metric, one.Times, one.Values)
		c.Kind, c.X, c.Y = kindTimeslice, l.X, l.Y
		if v, ok := one.Stats["avg"]; ok && finite(v) {
			c.RunAvg = ptr(v)
			if sd, ok := one.Stats["std"]; ok && finite(sd) {
				c.RunStd = ptr(sd)
			}
		}
		c.XMin, c.XMax = ptr(l.X[0]-0.5), ptr(l.X[len(l.X)-1]+0.5) // AIPerf's range without windows
		c.HigherBetter = strings.Contains(strings.ToLower(one.Metric), "throughput")
		return c, true
	}
	c.Kind = kindLines
	if slices.ContainsFunc(series, func(s sdk.PlotServerSeries) bool { return s.Unit != c.Unit }) {
		c.Unit = "" // the tooltip's unit only when every series has it
	}
	for _, s := range series {
		c.Lines = append(c.Lines, finiteLine(seriesLabel(s, series), s.Times, s.Values))
	}
	return c, true
}
