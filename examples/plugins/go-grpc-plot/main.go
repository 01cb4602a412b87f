// Command go-grpc-plot is an example aiperf plot plugin, run as a separate
// process over gRPC: "ttft_cdf", the empirical CDF of time to first token
// over a run's successful requests, with percentiles marked, drawn with
// gonum.org/v1/plot as PNG or SVG.
//
// Build it, declare it in a manifest (category plot, kind grpc) and pass the
// manifest to `aiperf plot --plugins`; see README.md. The file it writes is
// named after the manifest entry: ttft_cdf.png.
package main

import (
	"cmp"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/grpcplugin"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// version is the plugin's own version, reported by Describe.
const version = "0.1.0"

const metric = "time_to_first_token" // profile_export.jsonl's tag, in ms

// Settings are the plugin's own (the manifest entry's config:, or
// --plugin-config-style keys), decoded strictly by the SDK.
type Settings struct {
	// Percentiles are marked on the curve, each in (0, 100).
	Percentiles []float64 `json:"percentiles"`
}

// CDF is the plot. It implements sdk.Plot (one run); a plot over several
// runs would implement sdk.ComparisonPlot too.
type CDF struct{ settings Settings }

var (
	_ sdk.Plot         = (*CDF)(nil)
	_ sdk.Configurable = (*CDF)(nil)
	_ sdk.Validator    = (*CDF)(nil)
)

// New returns the plot with its default settings.
func New() *CDF { return &CDF{settings: Settings{Percentiles: []float64{50, 90, 99}}} }

// PluginConfig implements sdk.Configurable.
func (c *CDF) PluginConfig() any { return &c.settings }

// Validate implements sdk.Validator: it runs after the settings arrive.
func (c *CDF) Validate() error {
	for _, p := range c.settings.Percentiles {
		if !(p > 0 && p < 100) {
			return fmt.Errorf("percentiles: %v is not between 0 and 100", p)
		}
	}
	return nil
}

// ttfts are the TTFTs of the successful requests, sorted.
func ttfts(run *sdk.PlotRun) []float64 {
	var out []float64
	for _, r := range run.Requests {
		if v, ok := r.Metrics[metric]; ok && !r.Error && !math.IsNaN(v) && !math.IsInf(v, 0) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// Applies implements sdk.Plot: the run must have streamed (TTFT exists
// only then) and at least one request succeeded.
func (c *CDF) Applies(run *sdk.PlotRun) bool { return len(ttfts(run)) > 0 }

// Render implements sdk.Plot.
func (c *CDF) Render(run *sdk.PlotRun, opts sdk.PlotOptions, w io.Writer) error {
	vs := ttfts(run)
	if len(vs) == 0 {
		return fmt.Errorf("run %s has no successful request with %s", run.Dir, metric)
	}
	th := themeOf(opts.Theme)
	p := gplot.New()
	p.Title.Text = "Time to First Token: Empirical CDF"
	p.X.Label.Text, p.Y.Label.Text = "Time to First Token (ms)", "Fraction of Requests"
	p.BackgroundColor = th.bg
	p.Title.TextStyle.Color = th.fg
	p.Title.TextStyle.Font.Size = vg.Points(16)
	for _, a := range []*gplot.Axis{&p.X, &p.Y} {
		a.Color, a.Label.TextStyle.Color, a.Tick.Color, a.Tick.Label.Color = th.fg, th.fg, th.fg, th.fg
	}
	p.Y.Min, p.Y.Max = 0, 1
	p.Legend.TextStyle.Color = th.fg
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.YOffs = vg.Points(40)
	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = th.grid, th.grid
	p.Add(grid)

	// F(x) = share of requests with TTFT <= x: a step up of 1/n at each value.
	pts := make(plotter.XYs, 0, len(vs)+1)
	pts = append(pts, plotter.XY{X: vs[0], Y: 0})
	for i, v := range vs {
		pts = append(pts, plotter.XY{X: v, Y: float64(i+1) / float64(len(vs))})
	}
	curve, err := plotter.NewLine(pts)
	if err != nil {
		return fmt.Errorf("CDF: %w", err)
	}
	curve.StepStyle = plotter.PostStep
	curve.Color, curve.Width = th.primary, vg.Points(2)
	p.Add(curve)
	p.Legend.Add(fmt.Sprintf("%d requests", len(vs)), curve)

	for i, q := range c.settings.Percentiles {
		x := quantile(vs, q/100)
		mark, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: q / 100}, {X: vs[0], Y: q / 100}})
		if err != nil {
			return fmt.Errorf("p%g: %w", q, err)
		}
		mark.Color = markColors[i%len(markColors)]
		mark.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		mark.Width = vg.Points(1.5)
		p.Add(mark)
		p.Legend.Add(fmt.Sprintf("p%g = %.2f ms", q, x), mark)
	}
	return encode(p, opts, w)
}

// quantile is the linear-interpolation percentile (numpy's default, as
// AIPerf computes its p50/p90/p99) of sorted values.
func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	lo := int(pos)
	if lo+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[lo] + (sorted[lo+1]-sorted[lo])*(pos-float64(lo))
}

var markColors = []color.Color{
	color.RGBA{0x1f, 0x77, 0xb4, 0xff}, color.RGBA{0xff, 0x7f, 0x0e, 0xff}, color.RGBA{0xE7, 0x4C, 0x3C, 0xff},
	color.RGBA{0x94, 0x67, 0xbd, 0xff},
}

type theme struct{ bg, fg, grid, primary color.Color }

// themeOf follows aiperf's built-in plots: NVIDIA green on white or on
// near-black.
func themeOf(name string) theme {
	green := color.RGBA{0x76, 0xB9, 0x00, 0xff}
	if name == "dark" {
		return theme{bg: color.RGBA{0x1a, 0x1a, 0x1a, 0xff}, fg: color.RGBA{0xE0, 0xE0, 0xE0, 0xff},
			grid: color.RGBA{0x33, 0x33, 0x33, 0xff}, primary: green}
	}
	return theme{bg: color.White, fg: color.RGBA{0x0a, 0x0a, 0x0a, 0xff}, grid: color.RGBA{0xCC, 0xCC, 0xCC, 0xff}, primary: green}
}

// encode draws p as opts asks: Width x Height pixels at 100 DPI, rendered
// at DPI (a PNG of 1600x800 at 150 DPI is 2400x1200 pixels), or as SVG.
func encode(p *gplot.Plot, opts sdk.PlotOptions, w io.Writer) error {
	width, height := cmp.Or(opts.Width, 1600), cmp.Or(opts.Height, 800)
	wl, hl := vg.Length(width)*vg.Inch/100, vg.Length(height)*vg.Inch/100
	switch opts.Format {
	case "png", "":
		c := vgimg.NewWith(vgimg.UseWH(wl, hl), vgimg.UseDPI(cmp.Or(opts.DPI, 150)))
		p.Draw(draw.New(c))
		_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
		return err
	case "svg":
		c := vgsvg.New(wl, hl)
		p.Draw(draw.New(c))
		_, err := c.WriteTo(w)
		return err
	}
	return fmt.Errorf("plot format %q: want png or svg", opts.Format)
}

func main() {
	grpcplugin.Serve(New(),
		grpcplugin.WithName("ttft_cdf"),
		grpcplugin.WithVersion(version),
		grpcplugin.WithDescription("Empirical CDF of time to first token with percentiles marked (gonum/plot)"))
}
