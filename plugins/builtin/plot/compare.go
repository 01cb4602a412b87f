package plot

import (
	"cmp"
	"fmt"
	"image/color"
	"io"
	"path/filepath"
	"slices"
	"strconv"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/plot/plotdata"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Registered names of the comparison (several-run) plots. AIPerf 0.13's
// multi-run presets divide throughput by the GPU count from telemetry (the
// PerGPU ones, drawn when every run has GPU telemetry); the others use the
// total output token throughput, which every run has.
const (
	ParetoThroughputVsInteractivity       = "pareto_curve_throughput_vs_interactivity"
	ParetoThroughputVsLatency             = "pareto_curve_throughput_vs_latency"
	ParetoThroughputPerGPUVsLatency       = "pareto_curve_throughput_per_gpu_vs_latency"
	ParetoThroughputPerGPUVsInteractivity = "pareto_curve_throughput_per_gpu_vs_interactivity"
	TTFTVsThroughput                      = "ttft_vs_throughput"
	TTFTVsLoad                            = "ttft_vs_load"
	LatencyVsLoad                         = "request_latency_vs_load"
	ThroughputVsLoad                      = "throughput_vs_load"
	metricThroughput                      = "output_token_throughput"
	metricThroughputPerUser               = "output_token_throughput_per_user"
	metricRequestThroughput               = "request_throughput"
)

// ComparisonNames lists the comparison plots every sweep gets, in the order
// the command draws them.
var ComparisonNames = []string{ParetoThroughputVsInteractivity, ParetoThroughputVsLatency,
	TTFTVsThroughput, TTFTVsLoad, LatencyVsLoad, ThroughputVsLoad}

// PerGPUComparisonNames lists AIPerf's per-GPU comparison plots, drawn after
// ComparisonNames when every run has GPU telemetry (PlotRun.GPUCount > 0).
var PerGPUComparisonNames = []string{ParetoThroughputPerGPUVsLatency, ParetoThroughputPerGPUVsInteractivity}

// labelThroughputPerGPU is AIPerf's axis label of the per-GPU throughput: display name (unit).
const labelThroughputPerGPU = "Output Token Throughput Per GPU (" + plotdata.UnitThroughputPerGPU + ")"

// NewComparison returns the built-in comparison plot name; nil for an unknown name.
func NewComparison(name string) sdk.ComparisonPlot {
	switch name {
	case ParetoThroughputVsInteractivity:
		return pareto{title: "Pareto Curve: Output Token Throughput vs Interactivity",
			x: axisStat{metricThroughputPerUser, "avg", "Output Token Throughput Per User (tokens/sec/user)", true},
			y: axisStat{metricThroughput, "avg", "Output Token Throughput (tokens/sec)", true}}
	case ParetoThroughputVsLatency:
		return pareto{title: "Pareto Curve: Output Token Throughput vs Latency",
			x: axisStat{metricLatency, "avg", "Request Latency (ms)", false},
			y: axisStat{metricThroughput, "avg", "Output Token Throughput (tokens/sec)", true}}
	case ParetoThroughputPerGPUVsLatency:
		return pareto{title: "Pareto Curve: Token Throughput per GPU vs Latency",
			x: axisStat{metricLatency, "avg", "Request Latency (ms)", false},
			y: axisStat{plotdata.MetricThroughputPerGPU, "avg", labelThroughputPerGPU, true}}
	case ParetoThroughputPerGPUVsInteractivity:
		return pareto{title: "Pareto Curve: Token Throughput per GPU vs Interactivity",
			x: axisStat{metricThroughputPerUser, "avg", "Output Token Throughput Per User (tokens/sec/user)", true},
			y: axisStat{plotdata.MetricThroughputPerGPU, "avg", labelThroughputPerGPU, true}}
	case TTFTVsThroughput:
		// AIPerf's ttft_vs_throughput: a line per model through the runs in x order.
		return pareto{title: "TTFT vs Throughput", noFrontier: true,
			x: axisStat{metricTTFT, "avg", "Time to First Token (ms)", false},
			y: axisStat{metricRequestThroughput, "avg", "Request Throughput (requests/sec)", true}}
	case TTFTVsLoad:
		return vsLoad{metric: metricTTFT, stats: []string{"p50", "p90", "p99"}, title: "Time to First Token vs Load", yLabel: "Time to First Token (ms)"}
	case LatencyVsLoad:
		return vsLoad{metric: metricLatency, stats: []string{"p50", "p90", "p99"}, title: "Request Latency vs Load", yLabel: "Request Latency (ms)"}
	case ThroughputVsLoad:
		return vsLoad{metric: metricThroughput, stats: []string{"avg"}, title: "Output Token Throughput vs Load", yLabel: "Output Token Throughput (tokens/sec)"}
	}
	return nil
}

// axisStat is one axis of a comparison: a summary metric's statistic and
// whether a higher value is better (AIPerf's PlotMetricDirection).
type axisStat struct {
	metric, stat, label string
	higherBetter        bool
}

// stat is a run's summary statistic, AIPerf's derived per-GPU throughput included.
func stat(run *sdk.PlotRun, metric, name string) (float64, bool) {
	return plotdata.SummaryStat(run, metric, name)
}

func haveStats(runs []*sdk.PlotRun, metric string, names ...string) bool {
	if len(runs) < 2 {
		return false
	}
	for _, r := range runs {
		for _, n := range names {
			if _, ok := stat(r, metric, n); !ok {
				return false
			}
		}
	}
	return true
}

// runLabel names a run at its point: its load, else its directory.
func runLabel(r *sdk.PlotRun) string {
	switch {
	case r.Config.Concurrency > 0:
		return "c=" + strconv.FormatFloat(r.Config.Concurrency, 'f', -1, 64)
	case r.Config.RequestRate > 0:
		return "rate=" + strconv.FormatFloat(r.Config.RequestRate, 'f', -1, 64)
	}
	return filepath.Base(r.Dir)
}

// palette after AIPerf's NVIDIA green first, then distinct hues per series.
var palette = []color.Color{
	color.RGBA{0x76, 0xB9, 0x00, 0xff}, color.RGBA{0x1f, 0x77, 0xb4, 0xff}, color.RGBA{0xff, 0x7f, 0x0e, 0xff},
	color.RGBA{0xd6, 0x27, 0x28, 0xff}, color.RGBA{0x94, 0x67, 0xbd, 0xff}, color.RGBA{0x8c, 0x56, 0x4b, 0xff},
}

func seriesName(model string) string {
	if model == "" {
		return "runs"
	}
	return model
}

// comparisonOnly is the single-run half of sdk.Plot: never applies.
type comparisonOnly struct{}

func (comparisonOnly) Applies(*sdk.PlotRun) bool { return false }
func (comparisonOnly) Render(*sdk.PlotRun, sdk.PlotOptions, io.Writer) error {
	return fmt.Errorf("a comparison plot needs several runs")
}

// pareto plots one summary statistic against another, a series per model,
// each point labelled with its run's load, and the frontier as a line.
type pareto struct {
	comparisonOnly
	title      string
	x, y       axisStat
	noFrontier bool // a plain line through the points in x order
}

func (p pareto) AppliesToRuns(runs []*sdk.PlotRun) bool {
	return haveStats(runs, p.x.metric, p.x.stat) && haveStats(runs, p.y.metric, p.y.stat)
}

func (p pareto) RenderRuns(runs []*sdk.PlotRun, opts sdk.PlotOptions, w io.Writer) error {
	t := themeOf(opts.Theme)
	pl := newPlot(t, p.title, p.x.label, p.y.label)
	for i, s := range p.series(runs) {
		c := palette[i%len(palette)]
		pts, labels := s.pts, s.labels
		line := linePoints(pts, p, c)
		if line != nil {
			pl.Add(line)
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return fmt.Errorf("%s: %w", p.title, err)
		}
		sc.Color, sc.Shape, sc.Radius = c, draw.CircleGlyph{}, vg.Points(5)
		pl.Add(sc)
		pl.Legend.Add(seriesName(s.model), sc)
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: pts, Labels: labels})
		if err != nil {
			return fmt.Errorf("%s: %w", p.title, err)
		}
		for j := range lb.TextStyle {
			lb.TextStyle[j].Color = t.fg
			lb.TextStyle[j].Font.Size = vg.Points(10)
		}
		lb.Offset = vg.Point{X: vg.Points(6), Y: vg.Points(4)}
		pl.Add(lb)
	}
	padRanges(pl)
	return encode(pl, opts, w)
}

// paretoSeries is one model's points, in run order, with their run labels.
type paretoSeries struct {
	model  string
	pts    plotter.XYs
	labels []string
}

// series are the plotted points, a series per model in first-seen order.
func (p pareto) series(runs []*sdk.PlotRun) []paretoSeries {
	models, groups := plotdata.ByModel(runs)
	out := make([]paretoSeries, len(models))
	for i, m := range models {
		out[i].model = m
		for _, k := range groups[m] {
			r := runs[k]
			x, _ := stat(r, p.x.metric, p.x.stat)
			y, _ := stat(r, p.y.metric, p.y.stat)
			out[i].pts = append(out[i].pts, plotter.XY{X: x, Y: y})
			out[i].labels = append(out[i].labels, runLabel(r))
		}
	}
	return out
}

// linePoints is the frontier (or every point) in x order as a line.
func linePoints(pts plotter.XYs, p pareto, c color.Color) *plotter.Line {
	xs, ys := make([]float64, len(pts)), make([]float64, len(pts))
	for i, q := range pts {
		xs[i], ys[i] = q.X, q.Y
	}
	keep := plotdata.ParetoFrontier(xs, ys, p.x.higherBetter, p.y.higherBetter)
	var line plotter.XYs
	for i, q := range pts {
		if p.noFrontier || keep[i] {
			line = append(line, q)
		}
	}
	if len(line) < 2 {
		return nil
	}
	slices.SortFunc(line, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
	l, err := plotter.NewLine(line)
	if err != nil {
		return nil
	}
	l.Color, l.Width = c, vg.Points(2)
	if !p.noFrontier {
		l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	}
	return l
}

// padRanges widens the axes by 10% so point labels stay inside the frame.
func padRanges(pl *gplot.Plot) {
	for _, a := range []*gplot.Axis{&pl.X, &pl.Y} {
		d := (a.Max - a.Min) * 0.1
		if d == 0 {
			d = max(1, a.Max*0.1)
		}
		a.Min, a.Max = a.Min-d, a.Max+d
	}
}

// vsLoad plots statistics of one metric against the runs' load, a line per
// statistic and model.
type vsLoad struct {
	comparisonOnly
	metric        string
	stats         []string
	title, yLabel string
}

func (v vsLoad) AppliesToRuns(runs []*sdk.PlotRun) bool {
	_, _, ok := plotdata.LoadAxis(runs)
	return ok && haveStats(runs, v.metric, v.stats...)
}

func (v vsLoad) RenderRuns(runs []*sdk.PlotRun, opts sdk.PlotOptions, w io.Writer) error {
	xLabel, load, ok := plotdata.LoadAxis(runs)
	if !ok {
		return fmt.Errorf("%s: the runs do not all set a concurrency or all a request rate", v.title)
	}
	t := themeOf(opts.Theme)
	pl := newPlot(t, v.title, xLabel, v.yLabel)
	models, groups := plotdata.ByModel(runs)
	k := 0
	for _, m := range models {
		rs := make([]*sdk.PlotRun, len(groups[m]))
		for i, j := range groups[m] {
			rs[i] = runs[j]
		}
		slices.SortStableFunc(rs, func(a, b *sdk.PlotRun) int { return cmp.Compare(load(a), load(b)) })
		for _, s := range v.stats {
			pts := make(plotter.XYs, len(rs))
			for i, r := range rs {
				pts[i].X = load(r)
				pts[i].Y, _ = stat(r, v.metric, s)
			}
			name := s
			if len(models) > 1 {
				name = seriesName(m) + " " + s
			}
			if err := addLine(pl, pts, palette[k%len(palette)], vg.Points(4), name); err != nil {
				return fmt.Errorf("%s: %w", v.title, err)
			}
			k++
		}
	}
	padRanges(pl)
	pl.Y.Min = 0 // load curves read from zero
	return encode(pl, opts, w)
}
