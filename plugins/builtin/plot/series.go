package plot

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/plot/plotdata"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Registered names of the plots of a run's time series: the timeslice
// export, GPU telemetry and server metrics. The timeslice plots and
// gpu_utilization_and_throughput_over_time are AIPerf 0.13's presets; the
// per-GPU and server-metric plots are ours, drawn in the style AIPerf gives
// a custom plot of that data.
const (
	TimeslicesTTFT             = "timeslices_ttft"
	TimeslicesITL              = "timeslices_itl"
	TimeslicesThroughput       = "timeslices_throughput"
	TimeslicesLatency          = "timeslices_latency"
	GPUUtilizationThroughput   = "gpu_utilization_and_throughput_over_time"
	GPUPowerOverTime           = "gpu_power_usage_over_time"
	GPUUtilizationOverTime     = "gpu_utilization_over_time"
	GPUMemoryUsedOverTime      = "gpu_memory_used_over_time"
	GPUTemperatureOverTime     = "gpu_temperature_over_time"
	ServerKVCacheUsageOverTime = "server_kv_cache_usage_over_time"
	ServerRequestsOverTime     = "server_requests_over_time"
)

// SeriesNames lists the time-series plots in the order the command draws them.
var SeriesNames = []string{TimeslicesTTFT, TimeslicesITL, TimeslicesThroughput, TimeslicesLatency,
	GPUUtilizationThroughput, GPUPowerOverTime, GPUUtilizationOverTime, GPUMemoryUsedOverTime,
	GPUTemperatureOverTime, ServerKVCacheUsageOverTime, ServerRequestsOverTime}

func newSeriesPlot(name string) sdk.Plot {
	switch name {
	case TimeslicesTTFT:
		return timeslicePlot{metric: "Time to First Token", tag: metricTTFT, title: "Time to First Token Across Time Slices"}
	case TimeslicesITL:
		return timeslicePlot{metric: "Inter Token Latency", tag: metricITL, title: "Inter Token Latency Across Time Slices"}
	case TimeslicesThroughput:
		return timeslicePlot{metric: "Request Throughput", tag: metricRequestThroughput, title: "Request Throughput Across Time Slices"}
	case TimeslicesLatency:
		return timeslicePlot{metric: "Request Latency", tag: metricLatency, title: "Request Latency Across Time Slices"}
	case GPUUtilizationThroughput:
		return gpuUtilThroughput{}
	case GPUPowerOverTime:
		return gpuOverTime{fields: plotdata.GPUPowerFields}
	case GPUUtilizationOverTime:
		return gpuOverTime{fields: plotdata.GPUActivityFields}
	case GPUMemoryUsedOverTime:
		return gpuOverTime{fields: plotdata.GPUMemoryUsedFields}
	case GPUTemperatureOverTime:
		return gpuOverTime{fields: plotdata.GPUTemperatureFields}
	case ServerKVCacheUsageOverTime:
		// The first of the KV-cache metrics present is drawn.
		return serverOverTime{metrics: plotdata.KVCacheMetrics, firstOnly: true}
	case ServerRequestsOverTime:
		return serverOverTime{metrics: plotdata.RequestMetrics,
			title: "Server Requests Running and Waiting Over Time", yLabel: "Requests"}
	}
	return nil
}

// Colors AIPerf's timeslice scatter uses besides the theme's.
var (
	outlierRed = color.RGBA{0xE7, 0x4C, 0x3C, 0xff} // OUTLIER_RED
	avgGray    = color.RGBA{0x55, 0x55, 0x55, 0xff}
)

// diamondGlyph is plotly's "diamond" marker, AIPerf's outlier symbol.
type diamondGlyph struct{}

func (diamondGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius * 1.3
	var p vg.Path
	p.Move(vg.Point{X: pt.X, Y: pt.Y + r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y})
	p.Line(vg.Point{X: pt.X, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X - r, Y: pt.Y})
	p.Close()
	c.SetColor(sty.Color)
	c.Fill(p)
}

// errPoints are points with symmetric ±std bars.
type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

// scatterSpec is one AIPerf create_timeslice_scatter figure: a point per
// window with its ±std bar, points beyond the run's average ± (run std +
// the window's std) in red (below it for a throughput), and the run's
// average as a line inside a ±std band.
type scatterSpec struct {
	metric, unit          string
	xs, ys, stds          []float64 // stds nil when the windows have none
	avg, std              float64   // NaN when the summary has none
	xMin, xMax            float64
	ticks                 gplot.Ticker // nil: numeric ticks
	higherIsBetter        bool
	title, xLabel, yLabel string
}

// withUnit formats a legend value as AIPerf's {:.2f}, with three
// significant digits where that would print 0.00 (a ratio such as KV-cache
// usage).
func withUnit(v float64, unit string) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	if v != 0 && math.Abs(v) < 0.005 {
		s = strconv.FormatFloat(v, 'g', 3, 64)
	}
	if unit != "" {
		s += " " + unit
	}
	return s
}

func (s scatterSpec) render(opts sdk.PlotOptions, w io.Writer) error {
	t := themeOf(opts.Theme)
	p := newPlot(t, s.title, s.xLabel, s.yLabel)
	p.Legend.Top = false // AIPerf's legend sits bottom right
	if s.ticks != nil {
		p.X.Tick.Marker = s.ticks
		p.X.Tick.Label.Rotation = math.Pi / 4
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = text.XRight, text.YCenter
	}
	out := plotdata.Outliers(s.ys, s.stds, s.avg, s.std, s.higherIsBetter)
	// Legend entries in AIPerf's legendrank order.
	var legend [5]struct {
		name string
		th   []gplot.Thumbnailer
	}
	if !math.IsNaN(s.avg) {
		if !math.IsNaN(s.std) {
			band, err := plotter.NewPolygon(plotter.XYs{{X: s.xMin, Y: s.avg - s.std}, {X: s.xMax, Y: s.avg - s.std},
				{X: s.xMax, Y: s.avg + s.std}, {X: s.xMin, Y: s.avg + s.std}})
			if err != nil {
				return fmt.Errorf("%s run std band: %w", s.metric, err)
			}
			band.Color = color.NRGBA{0xE8, 0xE8, 0xE8, 0x80}
			if opts.Theme == "dark" {
				band.Color = color.NRGBA{0xFF, 0xB8, 0x1C, 0x26}
			}
			band.LineStyle.Width = 0
			p.Add(band)
			legend[2].name, legend[2].th = "Run Std: "+withUnit(s.std, s.unit), []gplot.Thumbnailer{band}
		}
		l, err := plotter.NewLine(plotter.XYs{{X: s.xMin, Y: s.avg}, {X: s.xMax, Y: s.avg}})
		if err != nil {
			return fmt.Errorf("%s run average: %w", s.metric, err)
		}
		l.Color, l.Width = avgGray, vg.Points(2)
		if opts.Theme == "dark" {
			l.Color = t.secondary
		}
		p.Add(l)
		legend[3].name, legend[3].th = "Run Average: "+withUnit(s.avg, s.unit), []gplot.Thumbnailer{l}
	}
	for _, bad := range []bool{false, true} {
		var pts errPoints
		for i := range s.ys {
			// A window without a finite average is not drawn; a non-finite
			// std draws no bar (the outlier rule reads it as 0 too).
			if out[i] != bad || !plotdata.Finite(s.ys[i]) {
				continue
			}
			pts.XYs = append(pts.XYs, plotter.XY{X: s.xs[i], Y: s.ys[i]})
			e := 0.0
			if s.stds != nil && plotdata.Finite(s.stds[i]) {
				e = s.stds[i]
			}
			pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{e, e})
		}
		if len(pts.XYs) == 0 {
			continue
		}
		c, rank, name := t.primary, 0, "Timeslice Average"
		if bad {
			c, rank, name = outlierRed, 4, "Outliers"
		}
		if s.stds != nil {
			eb, err := plotter.NewYErrorBars(pts)
			if err != nil {
				return fmt.Errorf("%s std bars: %w", s.metric, err)
			}
			eb.Color, eb.Width, eb.CapWidth = c, vg.Points(1.5), vg.Points(6)
			p.Add(eb)
		}
		sc, err := plotter.NewScatter(pts.XYs)
		if err != nil {
			return fmt.Errorf("%s: %w", s.metric, err)
		}
		sc.Color, sc.Shape, sc.Radius = c, draw.CircleGlyph{}, vg.Points(3.5)
		if bad {
			sc.Shape = diamondGlyph{}
		}
		p.Add(sc)
		legend[rank].name, legend[rank].th = name, []gplot.Thumbnailer{sc}
		if !bad && s.stds != nil {
			std, _ := plotter.NewLine(plotter.XYs{{}, {}}) // legend entry only
			std.Color, std.Width = c, vg.Points(3)
			legend[1].name, legend[1].th = "±1 Timeslice Std", []gplot.Thumbnailer{std}
		}
	}
	for _, e := range legend {
		if e.name != "" {
			p.Legend.Add(e.name, e.th...)
		}
	}
	p.X.Min, p.X.Max = s.xMin, s.xMax
	p.Y.Min = min(p.Y.Min, 0) // rangemode tozero
	return encode(p, opts, w)
}

// timeslicePlot is AIPerf's "timeslice" preset: a metric's per-window avg
// (with its std) from the timeslice export, by window.
type timeslicePlot struct{ metric, tag, title string }

func (tp timeslicePlot) Applies(run *sdk.PlotRun) bool {
	return len(plotdata.TimesliceWindows(run, tp.metric).Index) > 0
}

// sliceLabel formats a window bound as AIPerf's int() does for whole
// seconds, keeping the fraction of a fractional --slice-duration.
func sliceLabel(v float64) string {
	if v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// maxSliceLabels bounds the labelled window ticks; beyond it every k-th is
// labelled. Past maxMinorTicks windows the others get no tick at all, so a
// huge slice index cannot make a huge tick list.
const (
	maxSliceLabels = 30
	maxMinorTicks  = 1000
)

// sliceTicks are a tick at the middle of each window 0..last labelled
// "start-end" (AIPerf's tickvals and ticktext), every k-th labelled past
// maxSliceLabels windows so the labels stay legible.
func sliceTicks(last int, d float64) []gplot.Tick {
	every := (last + maxSliceLabels) / maxSliceLabels
	var ticks []gplot.Tick
	for i := 0; i <= last; i++ {
		switch {
		case i%every == 0:
			ticks = append(ticks, gplot.Tick{Value: float64(i)*d + d/2,
				Label: sliceLabel(float64(i)*d) + "-" + sliceLabel(float64(i+1)*d)})
		case last < maxMinorTicks:
			ticks = append(ticks, gplot.Tick{Value: float64(i)*d + d/2})
		default:
			i += every - i%every - 1 // no minor ticks: skip to the next label
		}
	}
	return ticks
}

func (tp timeslicePlot) Render(run *sdk.PlotRun, opts sdk.PlotOptions, w io.Writer) error {
	win := plotdata.TimesliceWindows(run, tp.metric)
	idx := win.Index
	if len(idx) == 0 {
		return fmt.Errorf("%s: no timeslice has its avg", tp.metric)
	}
	s := scatterSpec{metric: tp.metric, unit: win.Unit, ys: win.Avg, stds: win.Std, title: tp.title,
		xLabel: "Timeslice (s)", yLabel: plotdata.AxisLabel(tp.metric, win.Unit),
		higherIsBetter: plotdata.HigherIsBetter(tp.metric)}
	s.avg, s.std = plotdata.RunAverage(run, tp.tag)
	last := slices.Max(idx)
	if d := run.SliceDuration; d > 0 {
		// AIPerf: a window's point at its middle, labelled "start-end".
		for _, i := range idx {
			s.xs = append(s.xs, float64(i)*d+d/2)
		}
		s.xMin, s.xMax = 0, float64(last+1)*d
		ticks := sliceTicks(last, d)
		s.ticks = gplot.TickerFunc(func(_, _ float64) []gplot.Tick { return ticks })
	} else {
		s.xLabel = "Timeslice"
		for _, i := range idx {
			s.xs = append(s.xs, float64(i))
		}
		s.xMin, s.xMax = float64(slices.Min(idx))-0.5, float64(last)+0.5
	}
	return s.render(opts, w)
}

// finitePoints are the finite points (xs[i], ys[i]) as gonum points.
func finitePoints(xs, ys []float64) plotter.XYs {
	fx, fy := plotdata.FinitePoints(xs, ys)
	return xyPoints(fx, fy)
}

func xyPoints(xs, ys []float64) plotter.XYs {
	pts := make(plotter.XYs, len(xs))
	for i := range pts {
		pts[i] = plotter.XY{X: xs[i], Y: ys[i]}
	}
	return pts
}

// addLine draws pts as a line through round points of color c and names
// it in the legend.
func addLine(p *gplot.Plot, pts plotter.XYs, c color.Color, radius vg.Length, name string) error {
	l, sc, err := plotter.NewLinePoints(pts)
	if err != nil {
		return err
	}
	l.Color, l.Width = c, vg.Points(2)
	sc.Color, sc.Shape, sc.Radius = c, draw.CircleGlyph{}, radius
	p.Add(l, sc)
	p.Legend.Add(name, l, sc)
	return nil
}

// gpuOverTime draws one telemetry field over the run, a line per GPU
// (ours: AIPerf draws GPU fields only through a custom plot config).
type gpuOverTime struct{ fields []string }

func (g gpuOverTime) Applies(run *sdk.PlotRun) bool {
	_, ok := plotdata.GPUField(run, g.fields)
	return ok
}

func (g gpuOverTime) Render(run *sdk.PlotRun, opts sdk.PlotOptions, w io.Writer) error {
	field, ok := plotdata.GPUField(run, g.fields)
	if !ok {
		return fmt.Errorf("no GPU telemetry of %s", strings.Join(g.fields, " or "))
	}
	t := themeOf(opts.Theme)
	display, axis, unit := plotdata.FieldLabel(field)
	p := newPlot(t, display+" Over Time", "Time (s)", axis)
	for i, gpu := range run.GPUs {
		pts := finitePoints(gpu.Times, gpu.Metrics[field])
		if len(pts) == 0 {
			continue
		}
		if err := addLine(p, pts, palette[i%len(palette)], vg.Points(2.5), plotdata.GPUName(run, gpu)); err != nil {
			return fmt.Errorf("%s of GPU %d: %w", field, gpu.Index, err)
		}
	}
	p.Y.Min = min(p.Y.Min, 0)
	if unit == "%" {
		p.Y.Max = max(p.Y.Max, 100) // a percentage reads against its full scale
	}
	return encode(p, opts, w)
}

// gpuUtilThroughput is AIPerf's dual_axis preset
// gpu_utilization_and_throughput_over_time: the dispersed output token
// throughput (a step line, left axis) with the GPUs' mean activity at each
// sample (filled, right axis).
type gpuUtilThroughput struct{}

func (gpuUtilThroughput) Applies(run *sdk.PlotRun) bool {
	_, ok := plotdata.GPUField(run, plotdata.GPUActivityFields)
	return ok && len(throughputEvents(run)) > 0
}

func (gpuUtilThroughput) Render(run *sdk.PlotRun, opts sdk.PlotOptions, w io.Writer) error {
	field, ok := plotdata.GPUField(run, plotdata.GPUActivityFields)
	ev := throughputEvents(run)
	if !ok || len(ev) == 0 {
		return fmt.Errorf("needs GPU utilization and requests with output tokens")
	}
	t := themeOf(opts.Theme)
	_, y2Label, _ := plotdata.FieldLabel(field)
	p := newPlot(t, "Output Token Throughput with GPU Utilization\n"+
		"GPU activity semantics are vendor-specific and not comparable across vendors.",
		"Time (s)", "Output Token Throughput (tokens/s)")
	p.Legend.Top = false
	// Both series share the run's origin so a throughput dip lines up
	// with the utilization it caused.
	pts := make(plotter.XYs, 0, 2*len(ev))
	sum := 0.0
	for i, e := range ev {
		x := float64(e.ns-run.StartNs) / 1e9
		if i > 0 {
			pts = append(pts, plotter.XY{X: x, Y: max(sum, 0)}) // hv step
		}
		sum += e.delta
		pts = append(pts, plotter.XY{X: x, Y: max(sum, 0)})
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return fmt.Errorf("throughput: %w", err)
	}
	l.Color, l.Width = t.primary, vg.Points(2)
	util := xyPoints(plotdata.MeanAcrossGPUs(run, field))
	y2 := &rightAxis{pts: util, label: y2Label, color: palette[1], fill: color.NRGBA{0x1f, 0x77, 0xb4, 0x40}, t: t}
	y2.max = 0
	for _, q := range util {
		y2.max = max(y2.max, q.Y)
	}
	if y2.max == 0 {
		y2.max = 100
	}
	y2.max *= 1.05
	area, err := plotter.NewLine(plotter.XYs{{}, {}}) // legend entry only
	if err != nil {
		return err
	}
	area.Color, area.Width, area.FillColor = y2.color, vg.Points(2), y2.fill
	p.Add(y2, l)
	p.Legend.Add("Output Token Throughput (tokens/s)", l)
	p.Legend.Add(y2Label, area)
	p.X.Min, p.X.Max = min(pts[0].X, util[0].X), max(pts[len(pts)-1].X, util[len(util)-1].X)
	p.Y.Min = 0
	margin := y2.width(p)
	return encodeWith(func(c draw.Canvas) {
		c.SetColor(t.bg)
		c.Fill(c.Rectangle.Path())
		p.Draw(draw.Crop(c, 0, -margin, 0, 0))
	}, opts, w)
}

// rightAxis is a series on its own scale from 0 to max, drawn as a filled
// line in the data area with its axis right of it (gonum/plot has one
// y axis; the figure is drawn narrower by width to make room).
type rightAxis struct {
	pts         plotter.XYs
	max         float64
	label       string
	color, fill color.Color
	t           theme
}

func (r *rightAxis) ticks() []gplot.Tick { return gplot.DefaultTicks{}.Ticks(0, r.max) }

// width is the room the axis takes right of the data area.
func (r *rightAxis) width(p *gplot.Plot) vg.Length {
	var labels vg.Length
	for _, tk := range r.ticks() {
		if tk.Label != "" {
			labels = max(labels, p.Y.Tick.Label.Width(tk.Label))
		}
	}
	return p.Y.Tick.Length + vg.Points(4) + labels + vg.Points(8) + p.Y.Label.TextStyle.Height(r.label) + vg.Points(8)
}

func (r *rightAxis) Plot(c draw.Canvas, plt *gplot.Plot) {
	y := func(v float64) vg.Length { return c.Min.Y + vg.Length(v/r.max)*(c.Max.Y-c.Min.Y) }
	line := make([]vg.Point, len(r.pts))
	for i, q := range r.pts {
		line[i] = vg.Point{X: c.X(plt.X.Norm(q.X)), Y: y(q.Y)}
	}
	if len(line) > 0 {
		poly := append([]vg.Point{{X: line[0].X, Y: c.Min.Y}}, line...)
		poly = append(poly, vg.Point{X: line[len(line)-1].X, Y: c.Min.Y})
		c.FillPolygon(r.fill, c.ClipPolygonXY(poly))
		c.StrokeLines(draw.LineStyle{Color: r.color, Width: vg.Points(2)}, c.ClipLinesXY(line)...)
	}
	// The axis: a line on the data area's right edge, ticks and labels.
	axis := draw.LineStyle{Color: r.t.fg, Width: plt.Y.LineStyle.Width}
	c.StrokeLine2(axis, c.Max.X, c.Min.Y, c.Max.X, c.Max.Y)
	lbl := plt.Y.Tick.Label
	lbl.XAlign, lbl.YAlign = text.XLeft, text.YCenter
	var widest vg.Length
	for _, tk := range r.ticks() {
		ty := y(tk.Value)
		if tk.Label == "" {
			c.StrokeLine2(axis, c.Max.X, ty, c.Max.X+plt.Y.Tick.Length/2, ty)
			continue
		}
		c.StrokeLine2(axis, c.Max.X, ty, c.Max.X+plt.Y.Tick.Length, ty)
		c.FillText(lbl, vg.Point{X: c.Max.X + plt.Y.Tick.Length + vg.Points(4), Y: ty}, tk.Label)
		widest = max(widest, lbl.Width(tk.Label))
	}
	title := plt.Y.Label.TextStyle
	title.Rotation, title.XAlign, title.YAlign = math.Pi/2, text.XCenter, text.YTop
	// Turned a quarter left, the label's top faces the axis.
	at := c.Max.X + plt.Y.Tick.Length + vg.Points(4) + widest + vg.Points(8)
	c.FillText(title, vg.Point{X: at, Y: (c.Min.Y + c.Max.Y) / 2}, r.label)
}

// serverOverTime draws server metrics over the run from the per-timeslice
// values of server_metrics_export.json. One series is AIPerf's single
// server-metric timeslice scatter (title "<metric> Over Time", the run's
// average and std); several are its multi-series lines.
type serverOverTime struct {
	metrics       []string
	firstOnly     bool
	title, yLabel string
}

func (s serverOverTime) Applies(run *sdk.PlotRun) bool {
	return len(plotdata.ServerSeries(run, s.metrics, s.firstOnly)) > 0
}

func (s serverOverTime) Render(run *sdk.PlotRun, opts sdk.PlotOptions, w io.Writer) error {
	series := plotdata.ServerSeries(run, s.metrics, s.firstOnly)
	if len(series) == 0 {
		return fmt.Errorf("no server metric %s with timeslices", strings.Join(s.metrics, " or "))
	}
	title, yLabel := s.title, s.yLabel
	if title == "" {
		title = series[0].Metric + " Over Time"
	}
	if yLabel == "" {
		yLabel = plotdata.AxisLabel(series[0].Metric, series[0].Unit)
	}
	if len(series) == 1 {
		one := series[0]
		xs, ys := plotdata.FinitePoints(one.Times, one.Values)
		sp := scatterSpec{metric: one.Metric, unit: one.Unit, xs: xs, ys: ys, title: title, xLabel: "Time (s)", yLabel: yLabel,
			xMin: xs[0] - 0.5, xMax: xs[len(xs)-1] + 0.5, // AIPerf's range without windows
			higherIsBetter: plotdata.HigherIsBetter(one.Metric)}
		sp.avg, sp.std = plotdata.SeriesAverage(one)
		return sp.render(opts, w)
	}
	t := themeOf(opts.Theme)
	p := newPlot(t, title, "Time (s)", yLabel)
	for i, se := range series {
		pts := finitePoints(se.Times, se.Values)
		if err := addLine(p, pts, palette[i%len(palette)], vg.Points(3.5), plotdata.SeriesLabel(se, series)); err != nil {
			return fmt.Errorf("%s: %w", se.Metric, err)
		}
	}
	p.Y.Min = min(p.Y.Min, 0)
	return encode(p, opts, w)
}
