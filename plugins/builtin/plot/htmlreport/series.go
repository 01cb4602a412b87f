package htmlreport

import (
	"slices"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	plotbuiltin "github.com/aiperf-go/aiperf/plugins/builtin/plot"
	"github.com/aiperf-go/aiperf/plugins/builtin/plot/plotdata"
)

// The charts of a run's time series mirror the PNGs of
// plugins/builtin/plot/series.go: same names, titles, axes, units and
// series, each present exactly when its PNG's Applies says the run has
// the data. Both take their data (which field, which server series, which
// points, which windows are outliers) from package plotdata.

// maxWindows bounds the windows drawn as a category axis (a label per
// window); a timeslice index past it (a broken CSV) is drawn on a value
// axis instead, so it cannot make the browser build millions of labels.
const maxWindows = 100_000

// gpuFieldsOf are the fields each per-GPU chart draws, the first present.
var gpuFieldsOf = map[string][]string{
	plotbuiltin.GPUPowerOverTime:       plotdata.GPUPowerFields,
	plotbuiltin.GPUUtilizationOverTime: plotdata.GPUActivityFields,
	plotbuiltin.GPUMemoryUsedOverTime:  plotdata.GPUMemoryUsedFields,
	plotbuiltin.GPUTemperatureOverTime: plotdata.GPUTemperatureFields,
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
		// The first of the KV-cache metrics present is drawn.
		return serverChart(r, name, plotdata.KVCacheMetrics, true, "", "")
	case plotbuiltin.ServerRequestsOverTime:
		return serverChart(r, name, plotdata.RequestMetrics, false,
			"Server Requests Running and Waiting Over Time", "Requests")
	}
	return chartSpec{}, false
}

// timesliceChart is AIPerf's timeslice scatter: the metric's avg per
// window with its ±std, the run's average and std band, by window.
func timesliceChart(r *sdk.PlotRun, id, metric, tag, title string) (chartSpec, bool) {
	win := plotdata.TimesliceWindows(r, metric)
	idx := win.Index
	if len(idx) == 0 {
		return chartSpec{}, false
	}
	c := chartSpec{ID: id, Kind: kindTimeslice, Title: title, XLabel: "Timeslice (s)",
		YLabel: plotdata.AxisLabel(metric, win.Unit), Unit: win.Unit, Y: win.Avg, Err: win.Std,
		HigherBetter: plotdata.HigherIsBetter(metric)}
	c.setRunAverage(plotdata.RunAverage(r, tag))
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

// setRunAverage sets the run's reference line where avg (and std) are
// finite, and the windows beyond it (AIPerf's outliers).
func (c *chartSpec) setRunAverage(avg, std float64) {
	if !plotdata.Finite(avg) {
		return
	}
	c.RunAvg = &avg
	if plotdata.Finite(std) {
		c.RunStd = &std
	}
	for i, out := range plotdata.Outliers(c.Y, c.Err, avg, std, c.HigherBetter) {
		if out {
			c.Outliers = append(c.Outliers, i)
		}
	}
}

// finiteLine is the line of the finite points (xs[i], ys[i]).
func finiteLine(name string, xs, ys []float64) lineSpec {
	fx, fy := plotdata.FinitePoints(xs, ys)
	return lineSpec{Name: name, X: fx, Y: fy}
}

// gpuChart is one telemetry field over the run, a line per GPU.
func gpuChart(r *sdk.PlotRun, id string, fields []string) (chartSpec, bool) {
	field, ok := plotdata.GPUField(r, fields)
	if !ok {
		return chartSpec{}, false
	}
	display, axis, unit := plotdata.FieldLabel(field)
	c := chartSpec{ID: id, Kind: kindLines, Title: display + " Over Time", XLabel: "Time (s)", YLabel: axis,
		Unit: unit}
	if unit == "%" {
		c.YMax = 100 // a percentage reads against its full scale
	}
	for _, g := range r.GPUs {
		if l := finiteLine(plotdata.GPUName(r, g), g.Times, g.Metrics[field]); len(l.X) > 0 {
			c.Lines = append(c.Lines, l)
		}
	}
	return c, len(c.Lines) > 0
}

// throughputGPUChart is AIPerf's gpu_utilization_and_throughput_over_time:
// the dispersed output token throughput (drawn by report.js from the
// records, left axis) with the GPUs' mean activity (right axis), both from
// the run's origin.
func throughputGPUChart(r *sdk.PlotRun) (chartSpec, bool) {
	field, ok := plotdata.GPUField(r, plotdata.GPUActivityFields)
	t0, okT0 := recordsOrigin(r)
	if !ok || !okT0 || !hasThroughput(r) {
		return chartSpec{}, false
	}
	_, y2, unit := plotdata.FieldLabel(field)
	c := chartSpec{ID: plotbuiltin.GPUUtilizationThroughput, Kind: kindThroughputGPU,
		Title:    "Output Token Throughput with GPU Utilization",
		Subtitle: "GPU activity semantics are vendor-specific and not comparable across vendors.",
		XLabel:   "Time (s)", YLabel: "Output Token Throughput (tokens/s)", Y2Label: y2, Unit: unit}
	if r.StartNs > 0 {
		c.OriginMs = float64(r.StartNs-t0) / 1e6
	}
	xs, ys := plotdata.MeanAcrossGPUs(r, field)
	c.Lines = []lineSpec{{Name: y2, X: xs, Y: ys}}
	return c, len(c.Lines[0].X) > 0
}

// serverChart is server metrics per timeslice over the run: one series as
// AIPerf's timeslice scatter with the run's average and std, several as
// lines.
func serverChart(r *sdk.PlotRun, id string, metrics []string, firstOnly bool, title, yLabel string) (chartSpec, bool) {
	series := plotdata.ServerSeries(r, metrics, firstOnly)
	if len(series) == 0 {
		return chartSpec{}, false
	}
	if title == "" {
		title = series[0].Metric + " Over Time"
	}
	if yLabel == "" {
		yLabel = plotdata.AxisLabel(series[0].Metric, series[0].Unit)
	}
	c := chartSpec{ID: id, Title: title, XLabel: "Time (s)", YLabel: yLabel, Unit: series[0].Unit}
	if len(series) == 1 {
		one := series[0]
		l := finiteLine(one.Metric, one.Times, one.Values)
		c.Kind, c.X, c.Y = kindTimeslice, l.X, l.Y
		c.XMin, c.XMax = ptr(l.X[0]-0.5), ptr(l.X[len(l.X)-1]+0.5) // AIPerf's range without windows
		c.HigherBetter = plotdata.HigherIsBetter(one.Metric)
		c.setRunAverage(plotdata.SeriesAverage(one))
		return c, true
	}
	c.Kind = kindLines
	if slices.ContainsFunc(series, func(s sdk.PlotServerSeries) bool { return s.Unit != c.Unit }) {
		c.Unit = "" // the tooltip's unit only when every series has it
	}
	for _, s := range series {
		c.Lines = append(c.Lines, finiteLine(plotdata.SeriesLabel(s, series), s.Times, s.Values))
	}
	return c, true
}

func ptr(v float64) *float64 { return &v }
