package htmlreport

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	plotbuiltin "github.com/aiperf-go/aiperf/plugins/builtin/plot"
	"github.com/aiperf-go/aiperf/plugins/builtin/plot/plotdata"
)

// Chart kinds report.js draws.
const (
	kindRequestScatter  = "request_scatter" // a metric per request, x = request number (AIPerf's "scatter")
	kindLatencyOverTime = "latency_over_time"
	kindThroughput      = "dispersed_throughput"
	kindHistogram       = "histogram"
	kindISLOSL          = "isl_osl"
	kindPoints          = "points" // comparison: precomputed series
	kindTimeslice       = "timeslice_scatter"
	kindLines           = "lines"
	kindThroughputGPU   = "throughput_gpu"
)

// chartSpec is one chart: its container id is "chart-" + ID. Single-run
// charts are computed in the browser from the records; comparison charts
// carry their series.
type chartSpec struct {
	ID     string       `json:"id"`
	Kind   string       `json:"kind"`
	Title  string       `json:"title"`
	XLabel string       `json:"x_label"`
	YLabel string       `json:"y_label"`
	Metric string       `json:"metric,omitempty"`
	Series []seriesSpec `json:"series,omitempty"`
	// YFromZero starts the y axis at zero (load curves); PointLabels
	// writes each point's run label beside it (where x is not the load).
	YFromZero   bool `json:"y_from_zero,omitempty"`
	PointLabels bool `json:"point_labels,omitempty"`
	// Bins is a histogram's bin count; Span the rolling percentile window.
	Bins int `json:"bins,omitempty"`
	Span int `json:"span,omitempty"`

	// Time-series charts (series.go) carry their numbers: a
	// timeslice_scatter its points X, Y with ±Err, the run's average and
	// std, the unit and, when X are window indices, Windows (0..Windows-1)
	// of SliceDuration seconds; lines and throughput_gpu their Lines.
	// Outliers are the indexes of the points beyond the run's band, found
	// as the PNGs find them (plotdata.Outliers, in HigherBetter's direction).
	X             nums       `json:"x,omitempty"`
	Y             nums       `json:"y,omitempty"`
	Err           nums       `json:"err,omitempty"`
	RunAvg        *float64   `json:"run_avg,omitempty"`
	RunStd        *float64   `json:"run_std,omitempty"`
	Unit          string     `json:"unit,omitempty"`
	Windows       int        `json:"windows,omitempty"`
	SliceDuration float64    `json:"slice_duration,omitempty"`
	XMin          *float64   `json:"x_min,omitempty"`
	XMax          *float64   `json:"x_max,omitempty"`
	HigherBetter  bool       `json:"higher_better,omitempty"`
	Outliers      []int      `json:"outliers,omitempty"`
	Lines         []lineSpec `json:"lines,omitempty"`
	// YMax is the least top of the y axis (100 for a percentage).
	YMax     float64 `json:"y_max,omitempty"`
	Subtitle string  `json:"subtitle,omitempty"`
	// Y2Label names throughput_gpu's right axis; OriginMs is the run's
	// time origin (PlotRun.StartNs) in the records' milliseconds.
	Y2Label  string  `json:"y2_label,omitempty"`
	OriginMs float64 `json:"origin_ms,omitempty"`
}

// lineSpec is one line of a time-series chart: its points (X[i], Y[i]).
type lineSpec struct {
	Name string `json:"name"`
	X    nums   `json:"x"`
	Y    nums   `json:"y"`
}

// seriesSpec is one comparison series. Line is "frontier" (a dashed line
// through the Pareto-optimal points), "all" (a line through every point in
// x order) or "" (points only).
type seriesSpec struct {
	Name   string      `json:"name"`
	Line   string      `json:"line"`
	Points []pointSpec `json:"points"`
}

type pointSpec struct {
	X        float64 `json:"x"`
	Y        float64 `json:"y"`
	Label    string  `json:"label"`
	Run      int     `json:"run"`
	Frontier bool    `json:"frontier"`
}

const (
	metricTTFT     = "time_to_first_token"
	metricITL      = "inter_token_latency"
	metricLatency  = "request_latency"
	metricISL      = "input_sequence_length"
	metricOSL      = "output_sequence_length"
	metricTput     = "output_token_throughput"
	metricTputUser = "output_token_throughput_per_user"
	metricReqTput  = "request_throughput"
	histogramBins  = 40 // as the PNG distributions
	rollingSpan    = 10 // as the PNG latency_over_time: AIPerf's rolling window
)

// singleRunCharts are the PNG plots of one run (same names and titles),
// each only when a successful request has its data.
func singleRunCharts(r *sdk.PlotRun) []chartSpec {
	has := func(tags ...string) bool {
		return slices.ContainsFunc(r.Requests, func(q sdk.PlotRequest) bool {
			if q.Error {
				return false
			}
			for _, t := range tags {
				if v, ok := q.Metrics[t]; !ok || math.IsNaN(v) || math.IsInf(v, 0) {
					return false
				}
			}
			return true
		})
	}
	var out []chartSpec
	add := func(ok bool, c chartSpec) {
		if ok {
			out = append(out, c)
		}
	}
	add(has(metricTTFT), chartSpec{ID: plotbuiltin.TTFTOverTime, Kind: kindRequestScatter, Metric: metricTTFT,
		Title: "TTFT Per Request Over Time", XLabel: "Request Number", YLabel: "Time to First Token (ms)"})
	add(has(metricITL), chartSpec{ID: plotbuiltin.ITLOverTime, Kind: kindRequestScatter, Metric: metricITL,
		Title: "Inter-Token Latency Per Request Over Time", XLabel: "Request Number", YLabel: "Inter Token Latency (ms)"})
	add(has(metricLatency), chartSpec{ID: plotbuiltin.LatencyOverTime, Kind: kindLatencyOverTime, Span: rollingSpan, Metric: metricLatency,
		Title: "Request Latency Over Time with Percentiles", XLabel: "Time (s)", YLabel: "Request Latency (ms)"})
	add(hasThroughput(r), chartSpec{ID: plotbuiltin.ThroughputOverTime, Kind: kindThroughput,
		Title: "Dispersed Output Token Throughput Over Time", XLabel: "Time (s)", YLabel: "Output Token Throughput (tokens/s)"})
	add(has(metricTTFT), chartSpec{ID: plotbuiltin.TTFTDistribution, Kind: kindHistogram, Bins: histogramBins, Metric: metricTTFT,
		Title: "Time to First Token Distribution", XLabel: "Time to First Token (ms)", YLabel: "Requests"})
	add(has(metricITL), chartSpec{ID: plotbuiltin.ITLDistribution, Kind: kindHistogram, Bins: histogramBins, Metric: metricITL,
		Title: "Inter Token Latency Distribution", XLabel: "Inter Token Latency (ms)", YLabel: "Requests"})
	add(has(metricLatency), chartSpec{ID: plotbuiltin.LatencyDistribution, Kind: kindHistogram, Bins: histogramBins, Metric: metricLatency,
		Title: "Request Latency Distribution", XLabel: "Request Latency (ms)", YLabel: "Requests"})
	add(has(metricISL, metricOSL), chartSpec{ID: plotbuiltin.ISLvsOSL, Kind: kindISLOSL,
		Title: "Input vs Output Sequence Length", XLabel: "Input Sequence Length (tokens)", YLabel: "Output Sequence Length (tokens)"})
	return out
}

// hasThroughput: a successful request whose output tokens span a positive
// time after its first token (AIPerf's dispersed throughput events).
func hasThroughput(r *sdk.PlotRun) bool {
	return slices.ContainsFunc(r.Requests, func(q sdk.PlotRequest) bool {
		if q.Error || q.StartNs == 0 || q.EndNs == 0 {
			return false
		}
		gen := q.StartNs
		if ttft := q.Metrics[metricTTFT]; ttft > 0 {
			gen += int64(ttft * 1e6)
		}
		return q.Metrics[metricOSL] > 0 && q.EndNs > gen
	})
}

// axis is one summary statistic on a comparison axis.
type axis struct {
	metric, stat, label string
	higherBetter        bool
}

// comparisonCharts are the PNG comparison plots of a sweep (same names,
// titles and Pareto frontier), plus inter-token latency against load; each
// only when every run has its statistics.
func comparisonCharts(runs []*sdk.PlotRun) []chartSpec {
	var out []chartSpec
	pareto := func(id, title string, x, y axis, frontier bool) {
		if !haveStats(runs, x.metric, x.stat) || !haveStats(runs, y.metric, y.stat) {
			return
		}
		c := chartSpec{ID: id, Kind: kindPoints, Title: title, XLabel: x.label, YLabel: y.label, PointLabels: true}
		models, groups := plotdata.ByModel(runs)
		for _, m := range models {
			s := seriesSpec{Name: or(m, "runs"), Line: "all"}
			if frontier {
				s.Line = "frontier"
			}
			var xs, ys []float64
			for _, i := range groups[m] {
				px, _ := stat(runs[i], x.metric, x.stat)
				py, _ := stat(runs[i], y.metric, y.stat)
				xs, ys = append(xs, px), append(ys, py)
				s.Points = append(s.Points, pointSpec{X: px, Y: py, Label: runLabel(runs[i], i), Run: i})
			}
			for j, on := range plotdata.ParetoFrontier(xs, ys, x.higherBetter, y.higherBetter) {
				s.Points[j].Frontier = on && frontier
			}
			slices.SortStableFunc(s.Points, func(a, b pointSpec) int { return cmp.Compare(a.X, b.X) })
			c.Series = append(c.Series, s)
		}
		out = append(out, c)
	}
	latencyAxis := axis{metricLatency, "avg", "Request Latency (ms)", false}
	tputAxis := axis{metricTput, "avg", "Output Token Throughput (tokens/sec)", true}
	userAxis := axis{metricTputUser, "avg", "Output Token Throughput Per User (tokens/sec/user)", true}
	pareto(plotbuiltin.ParetoThroughputVsInteractivity, "Pareto Curve: Output Token Throughput vs Interactivity", userAxis, tputAxis, true)
	pareto(plotbuiltin.ParetoThroughputVsLatency, "Pareto Curve: Output Token Throughput vs Latency", latencyAxis, tputAxis, true)
	// AIPerf's per-GPU presets: only when every run has GPU telemetry.
	perGPUAxis := axis{plotdata.MetricThroughputPerGPU, "avg", "Output Token Throughput Per GPU (" + plotdata.UnitThroughputPerGPU + ")", true}
	pareto(plotbuiltin.ParetoThroughputPerGPUVsLatency, "Pareto Curve: Token Throughput per GPU vs Latency", latencyAxis, perGPUAxis, true)
	pareto(plotbuiltin.ParetoThroughputPerGPUVsInteractivity, "Pareto Curve: Token Throughput per GPU vs Interactivity", userAxis, perGPUAxis, true)
	pareto(plotbuiltin.TTFTVsThroughput, "TTFT vs Throughput",
		axis{metricTTFT, "avg", "Time to First Token (ms)", false},
		axis{metricReqTput, "avg", "Request Throughput (requests/sec)", true}, false)

	xLabel, load, ok := plotdata.LoadAxis(runs)
	vsLoad := func(id, title, metric, yLabel string, stats ...string) {
		if !ok || !haveStats(runs, metric, stats...) {
			return
		}
		c := chartSpec{ID: id, Kind: kindPoints, Title: title, XLabel: xLabel, YLabel: yLabel, YFromZero: true}
		models, groups := plotdata.ByModel(runs)
		for _, m := range models {
			idx := slices.Clone(groups[m])
			slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(load(runs[a]), load(runs[b])) })
			for _, st := range stats {
				name := st
				if len(models) > 1 {
					name = or(m, "runs") + " " + st
				}
				s := seriesSpec{Name: name, Line: "all"}
				for _, i := range idx {
					v, _ := stat(runs[i], metric, st)
					s.Points = append(s.Points, pointSpec{X: load(runs[i]), Y: v, Label: runLabel(runs[i], i), Run: i})
				}
				c.Series = append(c.Series, s)
			}
		}
		out = append(out, c)
	}
	vsLoad(plotbuiltin.TTFTVsLoad, "Time to First Token vs Load", metricTTFT, "Time to First Token (ms)", "p50", "p90", "p99")
	vsLoad("inter_token_latency_vs_load", "Inter Token Latency vs Load", metricITL, "Inter Token Latency (ms)", "p50", "p90", "p99")
	vsLoad(plotbuiltin.LatencyVsLoad, "Request Latency vs Load", metricLatency, "Request Latency (ms)", "p50", "p90", "p99")
	vsLoad(plotbuiltin.ThroughputVsLoad, "Output Token Throughput vs Load", metricTput, "Output Token Throughput (tokens/sec)", "avg")
	return out
}

func haveStats(runs []*sdk.PlotRun, metric string, names ...string) bool {
	for _, r := range runs {
		for _, n := range names {
			if _, ok := stat(r, metric, n); !ok {
				return false
			}
		}
	}
	return len(runs) > 1
}

// runLabel names a run at its point as the PNGs: its load, else its directory.
func runLabel(r *sdk.PlotRun, i int) string {
	switch {
	case r.Config.Concurrency > 0:
		return "c=" + strconv.FormatFloat(r.Config.Concurrency, 'f', -1, 64)
	case r.Config.RequestRate > 0:
		return "rate=" + strconv.FormatFloat(r.Config.RequestRate, 'f', -1, 64)
	}
	return runName(r, i)
}
