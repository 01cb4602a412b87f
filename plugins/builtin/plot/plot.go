// Package plot holds the built-in plot types of `aiperf plot` for one run,
// drawn with gonum.org/v1/plot (pure Go: PNG and SVG without a browser).
// Names mirror AIPerf 0.13's single-run plot presets (default_plot_config.yaml)
// where AIPerf has one; the distributions and ISL/OSL scatter are ours.
package plot

import (
	"cmp"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Registered names: each is the output file's stem.
const (
	TTFTOverTime          = "ttft_over_time"
	ITLOverTime           = "itl_over_time"
	LatencyOverTime       = "latency_over_time"
	ThroughputOverTime    = "dispersed_throughput_over_time"
	TTFTDistribution      = "ttft_distribution"
	ITLDistribution       = "itl_distribution"
	LatencyDistribution   = "request_latency_distribution"
	ISLvsOSL              = "isl_vs_osl"
	metricTTFT            = "time_to_first_token"
	metricITL             = "inter_token_latency"
	metricLatency         = "request_latency"
	metricISL             = "input_sequence_length"
	metricOSL             = "output_sequence_length"
	histogramBins         = 40
	rollingPercentileSpan = 10 // AIPerf's calculate_rolling_percentiles default: min(10, n)
)

// Names lists the built-in per-request plot types in the order the command
// draws them; SeriesNames (series.go) are those of the run's time series.
var Names = []string{TTFTOverTime, ITLOverTime, LatencyOverTime, ThroughputOverTime,
	TTFTDistribution, ITLDistribution, LatencyDistribution, ISLvsOSL}

// New returns the built-in plot type name; nil for an unknown name.
func New(name string) sdk.Plot {
	switch name {
	case TTFTOverTime:
		return perRequest{metric: metricTTFT, title: "TTFT Per Request Over Time", yLabel: "Time to First Token (ms)"}
	case ITLOverTime:
		return perRequest{metric: metricITL, title: "Inter-Token Latency Per Request Over Time", yLabel: "Inter Token Latency (ms)"}
	case LatencyOverTime:
		return latencyOverTime{}
	case ThroughputOverTime:
		return dispersedThroughput{}
	case TTFTDistribution:
		return distribution{metric: metricTTFT, title: "Time to First Token Distribution", xLabel: "Time to First Token (ms)"}
	case ITLDistribution:
		return distribution{metric: metricITL, title: "Inter Token Latency Distribution", xLabel: "Inter Token Latency (ms)"}
	case LatencyDistribution:
		return distribution{metric: metricLatency, title: "Request Latency Distribution", xLabel: "Request Latency (ms)"}
	case ISLvsOSL:
		return islOSL{}
	}
	return newSeriesPlot(name)
}

type theme struct{ bg, fg, grid, primary, secondary color.Color }

func themeOf(name string) theme {
	green := color.RGBA{0x76, 0xB9, 0x00, 0xff} // NVIDIA_GREEN, AIPerf's primary
	if name == "dark" {
		return theme{bg: color.RGBA{0x1a, 0x1a, 0x1a, 0xff}, fg: color.RGBA{0xE0, 0xE0, 0xE0, 0xff},
			grid: color.RGBA{0x33, 0x33, 0x33, 0xff}, primary: green, secondary: color.RGBA{0xF4, 0xE5, 0xC3, 0xff}}
	}
	return theme{bg: color.White, fg: color.RGBA{0x0a, 0x0a, 0x0a, 0xff},
		grid: color.RGBA{0xCC, 0xCC, 0xCC, 0xff}, primary: green, secondary: color.RGBA{0x99, 0x99, 0x99, 0xff}}
}

// newPlot is a themed empty figure with a grid.
func newPlot(t theme, title, x, y string) *gplot.Plot {
	p := gplot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	p.BackgroundColor = t.bg
	p.Title.TextStyle.Color = t.fg
	p.Title.TextStyle.Font.Size = vg.Points(16)
	for _, a := range []*gplot.Axis{&p.X, &p.Y} {
		a.Color, a.Label.TextStyle.Color, a.Tick.Color, a.Tick.Label.Color = t.fg, t.fg, t.fg, t.fg
	}
	p.Legend.TextStyle.Color = t.fg
	p.Legend.Top = true
	g := plotter.NewGrid()
	g.Vertical.Color, g.Horizontal.Color = t.grid, t.grid
	p.Add(g)
	return p
}

func styleScatter(s *plotter.Scatter, t theme) {
	s.Color = t.primary
	s.Shape = draw.CircleGlyph{}
	s.Radius = vg.Points(3)
}

// encode renders p in opts' format and size.
func encode(p *gplot.Plot, opts sdk.PlotOptions, w io.Writer) error {
	return encodeWith(p.Draw, opts, w)
}

// encodeWith renders what paint draws on the whole canvas in opts' format
// and size.
func encodeWith(paint func(draw.Canvas), opts sdk.PlotOptions, w io.Writer) error {
	width, height := opts.Width, opts.Height
	if width <= 0 || height <= 0 {
		width, height = 1600, 800
	}
	// Sizes are pixels at 100 DPI, as plotly's width/height with a scale.
	wl, hl := vg.Length(width)*vg.Inch/100, vg.Length(height)*vg.Inch/100
	switch opts.Format {
	case "png", "":
		dpi := opts.DPI
		if dpi <= 0 {
			dpi = 150
		}
		c := vgimg.NewWith(vgimg.UseWH(wl, hl), vgimg.UseDPI(dpi))
		paint(draw.New(c))
		_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
		return err
	case "svg":
		c := vgsvg.New(wl, hl)
		paint(draw.New(c))
		_, err := c.WriteTo(w)
		return err
	}
	return fmt.Errorf("plot format %q: want png or svg", opts.Format)
}

// values are the metric's values over successful requests, in file order.
func values(run *sdk.PlotRun, metric string) []float64 {
	var out []float64
	for _, r := range run.Requests {
		if v, ok := r.Metrics[metric]; ok && !r.Error && !math.IsNaN(v) && !math.IsInf(v, 0) {
			out = append(out, v)
		}
	}
	return out
}

// perRequest is AIPerf's "scatter" preset: x = request_number (0-based, file order).
type perRequest struct{ metric, title, yLabel string }

func (pr perRequest) Applies(run *sdk.PlotRun) bool { return len(values(run, pr.metric)) > 0 }

func (pr perRequest) Render(run *sdk.PlotRun, opts sdk.PlotOptions, w io.Writer) error {
	t := themeOf(opts.Theme)
	p := newPlot(t, pr.title, "Request Number", pr.yLabel)
	var pts plotter.XYs
	for i, r := range run.Requests {
		if v, ok := r.Metrics[pr.metric]; ok && !r.Error {
			pts = append(pts, plotter.XY{X: float64(i), Y: v})
		}
	}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return fmt.Errorf("%s: %w", pr.metric, err)
	}
	styleScatter(s, t)
	p.Add(s)
	return encode(p, opts, w)
}

// latencyOverTime is AIPerf's "scatter_with_percentiles": request latency by
// end time (s from the first end) with rolling p50/p95/p99 over 10 requests.
type latencyOverTime struct{}

func (latencyOverTime) Applies(run *sdk.PlotRun) bool { return len(values(run, metricLatency)) > 0 }

func (latencyOverTime) Render(run *sdk.PlotRun, opts sdk.PlotOptions, w io.Writer) error {
	t := themeOf(opts.Theme)
	p := newPlot(t, "Request Latency Over Time with Percentiles", "Time (s)", "Request Latency (ms)")
	var pts plotter.XYs
	var first int64 = math.MaxInt64
	for _, r := range run.Requests {
		if _, ok := r.Metrics[metricLatency]; ok && !r.Error && r.EndNs < first {
			first = r.EndNs
		}
	}
	for _, r := range run.Requests {
		if v, ok := r.Metrics[metricLatency]; ok && !r.Error {
			pts = append(pts, plotter.XY{X: float64(r.EndNs-first) / 1e9, Y: v})
		}
	}
	slices.SortStableFunc(pts, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return fmt.Errorf("%s: %w", metricLatency, err)
	}
	styleScatter(s, t)
	p.Add(s)
	p.Legend.Add("request_latency", s)
	colors := []color.Color{color.RGBA{0x1f, 0x77, 0xb4, 0xff}, color.RGBA{0xff, 0x7f, 0x0e, 0xff}, color.RGBA{0xE7, 0x4C, 0x3C, 0xff}}
	for i, q := range []float64{0.50, 0.95, 0.99} {
		line := make(plotter.XYs, len(pts))
		for j := range pts {
			lo := max(0, j-rollingPercentileSpan+1)
			line[j] = plotter.XY{X: pts[j].X, Y: quantile(pts[lo:j+1], q)}
		}
		l, err := plotter.NewLine(line)
		if err != nil {
			return fmt.Errorf("%s rolling p%.0f: %w", metricLatency, q*100, err)
		}
		l.Color = colors[i]
		l.Width = vg.Points(2)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("p%.0f (rolling %d)", q*100, rollingPercentileSpan), l)
	}
	return encode(p, opts, w)
}

// quantile interpolates linearly between order statistics, as pandas'
// rolling().quantile does by default.
func quantile(pts plotter.XYs, q float64) float64 {
	v := make([]float64, len(pts))
	for i, p := range pts {
		v[i] = p.Y
	}
	slices.Sort(v)
	pos := q * float64(len(v)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(v)-1)
	return v[lo] + (v[hi]-v[lo])*(pos-float64(lo))
}

// dispersedThroughput is AIPerf's calculate_throughput_events: each request's
// output tokens spread evenly from its first token to its end, summed.
type dispersedThroughput struct{}

type rateEvent struct {
	ns    int64
	delta float64
}

func throughputEvents(run *sdk.PlotRun) []rateEvent {
	var ev []rateEvent
	for _, r := range run.Requests {
		if r.StartNs == 0 || r.EndNs == 0 || r.Error {
			continue
		}
		gen := r.StartNs
		if ttft := r.Metrics[metricTTFT]; ttft > 0 {
			gen += int64(ttft * 1e6)
		}
		osl, dur := r.Metrics[metricOSL], r.EndNs-gen
		if dur > 0 && osl > 0 {
			rate := osl / (float64(dur) / 1e9)
			ev = append(ev, rateEvent{gen, rate}, rateEvent{r.EndNs, -rate})
		}
	}
	slices.SortStableFunc(ev, func(a, b rateEvent) int { return cmp.Compare(a.ns, b.ns) })
	return ev
}

func (dispersedThroughput) Applies(run *sdk.PlotRun) bool { return len(throughputEvents(run)) > 0 }

func (dispersedThroughput) Render(run *sdk.PlotRun, opts sdk.PlotOptions, w io.Writer) error {
	t := themeOf(opts.Theme)
	p := newPlot(t, "Dispersed Output Token Throughput Over Time", "Time (s)", "Output Token Throughput (tokens/s)")
	ev := throughputEvents(run)
	pts := make(plotter.XYs, 0, 2*len(ev))
	sum := 0.0
	for i, e := range ev {
		x := float64(e.ns-ev[0].ns) / 1e9
		if i > 0 {
			pts = append(pts, plotter.XY{X: x, Y: sum}) // step: hold the rate until the event
		}
		sum += e.delta
		pts = append(pts, plotter.XY{X: x, Y: max(sum, 0)})
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return fmt.Errorf("throughput: %w", err)
	}
	l.Color = t.primary
	l.Width = vg.Points(2)
	fill := color.NRGBA{0x76, 0xB9, 0x00, 0x55} // non-premultiplied: RGBA would need premultiplied channels
	l.FillColor = fill
	p.Add(l)
	return encode(p, opts, w)
}

// distribution is a histogram of one per-request metric.
type distribution struct{ metric, title, xLabel string }

func (d distribution) Applies(run *sdk.PlotRun) bool { return len(values(run, d.metric)) > 0 }

func (d distribution) Render(run *sdk.PlotRun, opts sdk.PlotOptions, w io.Writer) error {
	t := themeOf(opts.Theme)
	p := newPlot(t, d.title, d.xLabel, "Requests")
	v := values(run, d.metric)
	if len(v) == 0 {
		return fmt.Errorf("%s: no values in the run", d.metric)
	}
	bins := min(histogramBins, max(1, len(v)))
	if slices.Min(v) == slices.Max(v) {
		bins = 1 // gonum needs a non-empty range to split
	}
	h, err := plotter.NewHist(plotter.Values(v), bins)
	if err != nil {
		return fmt.Errorf("%s: %w", d.metric, err)
	}
	h.FillColor = t.primary
	h.Color = t.bg
	p.Add(h)
	return encode(p, opts, w)
}

// islOSL scatters input against output sequence length per request.
type islOSL struct{}

func (islOSL) Applies(run *sdk.PlotRun) bool {
	for _, r := range run.Requests {
		_, i := r.Metrics[metricISL]
		_, o := r.Metrics[metricOSL]
		if i && o && !r.Error {
			return true
		}
	}
	return false
}

func (islOSL) Render(run *sdk.PlotRun, opts sdk.PlotOptions, w io.Writer) error {
	t := themeOf(opts.Theme)
	p := newPlot(t, "Input vs Output Sequence Length", "Input Sequence Length (tokens)", "Output Sequence Length (tokens)")
	var pts plotter.XYs
	for _, r := range run.Requests {
		i, okI := r.Metrics[metricISL]
		o, okO := r.Metrics[metricOSL]
		if okI && okO && !r.Error {
			pts = append(pts, plotter.XY{X: i, Y: o})
		}
	}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return fmt.Errorf("isl/osl: %w", err)
	}
	styleScatter(s, t)
	p.Add(s)
	return encode(p, opts, w)
}
