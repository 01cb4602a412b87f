package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/aiperf-go/aiperf/core/app"
	"github.com/aiperf-go/aiperf/core/artifacts"
	"github.com/aiperf-go/aiperf/core/metrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/plot/htmlreport"
	"github.com/aiperf-go/aiperf/registry"
	"github.com/spf13/cobra"
)

type plotOptions struct {
	paths     []string
	output    string
	theme     string
	format    string
	dashboard bool
	host      string
	port      int
	// plugins are extra plugin manifests (--plugins), after the discovered
	// ones: vendors' plot types join the built-ins.
	plugins []string
	// config is AIPerf's plot configuration file (--config): which plots.
	config  string
	verbose bool
}

// reportFile is the one-file HTML report `--dashboard` writes and serves.
const reportFile = "report.html"

// newPlotCmd is AIPerf 0.13's `aiperf plot [PATHS...]`: for one run every
// single-run plot plugin, for several runs (paths, or a parent of run
// directories) every comparison plot, draws one file into --output (default
// <first path>/plots), plus AIPerf's summary.txt. --format svg is ours
// (AIPerf renders PNG only). --dashboard writes the interactive report.html
// there instead of images and serves that directory over HTTP until Ctrl-C
// (AIPerf runs a Dash server; ours is one offline file any browser opens).
func newPlotCmd() *cobra.Command {
	var o plotOptions
	cmd := &cobra.Command{
		Use:   "plot [PATHS...]",
		Short: "Generate plots from AIPerf profiling data",
		Long: "Generate plots (PNG or SVG, no browser needed) from a run's artifact directory:\n" +
			"profile_export_aiperf.json and profile_export.jsonl as `aiperf profile` writes them.\n" +
			"Several runs (several paths, or a directory whose subdirectories are runs) get comparison plots:\n" +
			"Pareto curves and latency/throughput against the swept concurrency or request rate.\n" +
			"Plot plugins from manifests (--plugins, ~/.config/aiperf/plugins.d, ./aiperf-plugins.yaml,\n" +
			"AIPERF_PLUGIN_PATH) are drawn beside the built-ins, each into <name>.<format>.\n" +
			"--dashboard writes an interactive, self-contained report.html (charts, summary, configuration,\n" +
			"per-request drill-down; it opens offline) into the output directory and serves it over HTTP.",
		RunE: func(cmd *cobra.Command, args []string) error {
			var runs []string
			o.plugins, runs = splitPluginPaths(o.plugins)
			o.paths = append(append(o.paths, args...), runs...)
			return runPlot(cmd, o)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.paths, "paths", nil, "Paths to profiling run directories. Defaults to ./artifacts if not specified.")
	f.StringVar(&o.output, "output", "", "Directory to save generated plots. Defaults to <first_path>/plots if not specified.")
	f.StringVar(&o.theme, "theme", "light", "Plot theme to use: 'light' (white background) or 'dark' (dark background).")
	f.StringVar(&o.format, "format", "png", "Image format: png or svg.")
	f.BoolVar(&o.dashboard, "dashboard", false, "Launch interactive dashboard server instead of generating static PNGs "+
		"(writes report.html, one self-contained file, into the output directory and serves it).")
	// AIPerf's negative form; pflag applies flags in command-line order, so the last one wins.
	f.Var(negatedBool{&o.dashboard}, "no-dashboard", "Generate static images (the default).")
	f.Lookup("no-dashboard").NoOptDefVal = "true"
	f.StringVar(&o.host, "host", "127.0.0.1", "Host for dashboard server (only used with --dashboard). Defaults to 127.0.0.1.")
	f.IntVar(&o.port, "port", 8050, "Port for dashboard server (only used with --dashboard). Defaults to 8050; 0 picks a free port.")
	f.StringVar(&o.config, "config", "", "Path to a plot configuration YAML file in AIPerf's format: visualization.single_run_defaults and "+
		"multi_run_defaults name the plots to draw (AIPerf's custom presets are skipped, saying so). Without it every plot type is drawn "+
		"(no ~/.aiperf/plot_config.yaml is created).")
	f.BoolVar(&o.verbose, "verbose", false, "Accepted for AIPerf compatibility: errors are always printed in full, naming the plot, plugin, file and line.")
	f.StringSliceVar(&o.plugins, "plugins", nil, "Extra plugin manifest(s) (YAML) declaring gRPC plot plugins; repeatable. "+
		"Also discovered: ~/.config/aiperf/plugins.d/*.yaml, ./aiperf-plugins.yaml and AIPERF_PLUGIN_PATH. "+
		"It takes every following word; a run directory among them is a path to plot.")
	return cmd
}

// splitPluginPaths takes the run directories out of the --plugins values:
// like every list option, --plugins takes each following word (AIPerf's
// multi-value form), so `aiperf plot --plugins m.yaml RUN` hands it RUN. A
// directory with runs below it and no manifest in it is a path to plot.
func splitPluginPaths(values []string) (manifests, runs []string) {
	for _, v := range values {
		if st, err := os.Stat(v); err == nil && st.IsDir() && !hasManifests(v) && len(runsUnder(v)) > 0 {
			runs = append(runs, v)
			continue
		}
		manifests = append(manifests, v)
	}
	return manifests, runs
}

// hasManifests reports whether dir holds a *.yaml or *.yml file, which
// --plugins DIR would read.
func hasManifests(dir string) bool {
	for _, pat := range []string{"*.yaml", "*.yml"} {
		if m, _ := filepath.Glob(filepath.Join(dir, pat)); len(m) > 0 {
			return true
		}
	}
	return false
}

// negatedBool is a --no-X flag that sets X to the opposite of its value.
type negatedBool struct{ target *bool }

func (n negatedBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	*n.target = !v
	return nil
}

func (n negatedBool) String() string { return "false" }
func (n negatedBool) Type() string   { return "bool" }

func runPlot(cmd *cobra.Command, o plotOptions) error {
	if err := checkPlotFlags(o.format, o.theme); err != nil {
		return err
	}
	if o.dashboard && (o.port < 0 || o.port > 65535) {
		return fmt.Errorf("--port %d: want 0 to 65535 (0 picks a free port)", o.port)
	}
	if o.dashboard && o.host == "" {
		return errors.New("--host is empty: give an address to listen on, such as 127.0.0.1")
	}
	sel, err := loadPlotSelection(o.config)
	if err != nil {
		return err
	}
	if len(o.paths) == 0 {
		o.paths = []string{"artifacts"}
	}
	dirs := findRunDirs(o.paths)
	runs, err := loadPlotRuns(dirs)
	if err != nil {
		return err
	}
	out := o.output
	if out == "" {
		out = filepath.Join(o.paths[0], "plots")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("--output %s: %w", out, err)
	}
	reg, err := plotRegistry(cmd.ErrOrStderr(), o.plugins)
	if err != nil {
		return err
	}
	defer closeRegistry(cmd.ErrOrStderr(), reg)
	stdout := cmd.OutOrStdout()
	if o.dashboard {
		path, err := writeHTMLReport(reg, runs, out, o.theme)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\nReport: %s\n", path)
		ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return serveDashboard(ctx, stdout, out, o.host, o.port)
	}
	written, drawErr := drawPlots(cmd.Context(), cmd.ErrOrStderr(), reg, sel, runs, dirs, out, o.format, o.theme)
	if err := writePlotSummary(out, written); err != nil {
		return errors.Join(drawErr, err)
	}
	fmt.Fprintf(stdout, "\nSaved %d %s to: %s\n", len(written), plural(len(written), "plot"), out)
	return drawErr
}

// plotRegistry is the registry plots are drawn with: the built-ins plus
// every manifest discovered or given (--plugins), as `aiperf profile` reads
// them, with the loaders of external plugins. Close it after use: that
// stops the plugin processes.
func plotRegistry(stderr io.Writer, manifests []string) (*registry.Registry, error) {
	opts := registryOptions(manifests...)
	opts.Loaders = app.ExternalLoaders(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo})))
	reg, warnings, err := app.LoadRegistry(opts)
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		fmt.Fprintln(stderr, "Warning:", w)
	}
	return reg, nil
}

func closeRegistry(stderr io.Writer, reg *registry.Registry) {
	if err := reg.Close(); err != nil {
		fmt.Fprintln(stderr, "Warning:", err)
	}
}

// generatedPlots is --generate-plots (GenAI-Perf's): what `aiperf plot
// --dashboard` gives for the run in runDir, PNGs in the light theme and
// the HTML report.
func generatedPlots(ctx context.Context, w io.Writer, runDir string, manifests []string) error {
	return generatePlots(ctx, w, runDir, "", "png", "light", true, manifests...)
}

// generatePlots draws one run's plots (and summary.txt) into outDir
// (<runDir>/plots when empty) and, with html, its report.html, without
// serving anything: what `aiperf profile --generate-plots` calls at the end
// of a run. Notes and the saved line go to w. Plot plugins come from the
// discovered manifests and the given ones (the run's --plugins).
func generatePlots(ctx context.Context, w io.Writer, runDir, outDir, format, theme string, html bool, manifests ...string) error {
	if err := checkPlotFlags(format, theme); err != nil {
		return err
	}
	if outDir == "" {
		outDir = filepath.Join(runDir, "plots")
	}
	runs, err := loadPlotRuns([]string{runDir})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return fmt.Errorf("plots directory %s: %w", outDir, err)
	}
	reg, err := plotRegistry(w, manifests)
	if err != nil {
		return err
	}
	defer closeRegistry(w, reg)
	written, drawErr := drawPlots(ctx, w, reg, nil, runs, []string{runDir}, outDir, format, theme)
	if err := writePlotSummary(outDir, written); err != nil {
		return errors.Join(drawErr, err)
	}
	fmt.Fprintf(w, "\nSaved %d %s to: %s\n", len(written), plural(len(written), "plot"), outDir)
	if html {
		path, err := writeHTMLReport(reg, runs, outDir, theme)
		if err != nil {
			return errors.Join(drawErr, err)
		}
		fmt.Fprintf(w, "Report: %s\n", path)
	}
	return drawErr
}

func checkPlotFlags(format, theme string) error {
	if format != "png" && format != "svg" {
		return fmt.Errorf("--format %q: want png or svg", format)
	}
	if theme != "light" && theme != "dark" {
		return fmt.Errorf("--theme %q: want light or dark", theme)
	}
	return nil
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// loadPlotRuns reads each run directory and its input_config, and refuses
// runs that cannot be compared.
func loadPlotRuns(dirs []string) ([]*sdk.PlotRun, error) {
	runs := make([]*sdk.PlotRun, len(dirs))
	var err error
	for i, d := range dirs {
		if runs[i], err = artifacts.ReadRun(d); err != nil {
			return nil, err
		}
		if runs[i].Config, err = artifacts.ReadRunConfig(d); err != nil {
			return nil, err
		}
	}
	if err := checkComparable(runs); err != nil {
		return nil, err
	}
	return runs, nil
}

// drawPlots renders every applicable plot plugin into out: for one run the
// single-run plots, for several only the comparisons, as AIPerf's modes. It
// returns the file names written. Plugins get the plugin lifecycle (the
// manifest's config, Validate, Close) as in a run. A plot that fails loses
// only its own file: the others are still drawn, and every failure is
// returned, naming its plugin.
func drawPlots(ctx context.Context, notes io.Writer, reg *registry.Registry, sel *plotSelection, runs []*sdk.PlotRun, dirs []string, out, format, theme string) ([]string, error) {
	host := app.NewPluginHost(reg, &app.Settings{})
	defer func() {
		if err := host.Close(); err != nil {
			fmt.Fprintln(notes, "Warning:", err)
		}
	}()
	plots, err := app.UseAll(ctx, host, sdk.Plots)
	if err != nil {
		return nil, err
	}
	opts := sdk.PlotOptions{Format: format, Width: 1600, Height: 800, DPI: 150, Theme: theme}
	several := len(runs) > 1
	var known []string
	for _, p := range plots {
		if _, compare := p.Plugin.(sdk.ComparisonPlot); compare == several {
			known = append(known, p.Name)
		}
	}
	for _, line := range sel.skipped(known, several) {
		fmt.Fprintln(notes, line)
	}
	var written []string
	var failed []error
	for _, p := range plots {
		if err := ctx.Err(); err != nil {
			return written, errors.Join(append(failed, err)...)
		}
		cp, compare := p.Plugin.(sdk.ComparisonPlot)
		if compare != several || !sel.wants(p.Name, compare) {
			continue
		}
		var buf bytes.Buffer
		switch {
		case compare && !cp.AppliesToRuns(runs):
			fmt.Fprintf(notes, "Skipping plot '%s': required data not available in every run\n", p.Name)
			continue
		case compare:
			err = cp.RenderRuns(runs, opts, &buf)
		case !p.Plugin.Applies(runs[0]):
			fmt.Fprintf(notes, "Skipping plot '%s': required data not available in %s\n", p.Name, dirs[0])
			continue
		default:
			err = p.Plugin.Render(runs[0], opts, &buf)
		}
		if err != nil {
			if !strings.Contains(err.Error(), "plugin "+p.ID()) {
				err = fmt.Errorf("plot %s: %w", p.Name, err)
			}
			failed = append(failed, err)
			continue
		}
		name := p.Name + "." + format
		if err := os.WriteFile(filepath.Join(out, name), buf.Bytes(), 0o644); err != nil {
			return written, errors.Join(append(failed, fmt.Errorf("write plot %s: %w", name, err))...)
		}
		written = append(written, name)
	}
	return written, errors.Join(failed...)
}

// writePlotSummary writes AIPerf's summary.txt listing the plots.
func writePlotSummary(out string, written []string) error {
	var s strings.Builder
	s.WriteString("AIPerf Plot Export Summary\n" + strings.Repeat("=", 50) + "\n\n")
	fmt.Fprintf(&s, "Generated %d plots:\n\n", len(written))
	for _, n := range written {
		fmt.Fprintf(&s, "  - %s\n", n)
	}
	fmt.Fprintf(&s, "\nOutput directory: %s\n", out)
	path := filepath.Join(out, "summary.txt")
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// writeHTMLReport writes out/report.html for runs, its summary tables laid
// out by the built-in metrics' console headers and order.
func writeHTMLReport(reg *registry.Registry, runs []*sdk.PlotRun, out, theme string) (string, error) {
	specs, title := reportMetricSpecs(reg, runs[0].Config.EndpointType, runs[0].Config.Streaming)
	var buf bytes.Buffer
	if err := htmlreport.Write(&buf, runs, htmlreport.Options{Theme: theme, Metrics: specs, MetricsTitle: title}); err != nil {
		return "", err
	}
	path := filepath.Join(out, reportFile)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}

// reportMetricSpecs are the built-in record processors' metrics and the
// core's run-level ones (headers, display order, console groups), and the
// endpoint type's console title. An unknown endpoint gets the generic title;
// a metric no built-in declares shows under its tag. A plugin endpoint's
// title comes from its manifest's plugin, when one is given.
func reportMetricSpecs(reg *registry.Registry, endpointType string, streaming bool) ([]sdk.MetricSpec, string) {
	info := sdk.RunInfo{Streaming: streaming}
	if x, err := reg.Instantiate(sdk.CategoryEndpoint, endpointType); err == nil {
		if ep, ok := x.(sdk.Endpoint); ok {
			info.Endpoint = ep.Metadata()
		}
	}
	cat, err := metrics.NewCatalog(pluginsView{reg: reg}.builtinMetrics(), info)
	if err != nil {
		return nil, info.Endpoint.MetricsTitle
	}
	return cat.Specs(), info.Endpoint.MetricsTitle
}

// serveDashboard serves dir over HTTP at host:port until ctx ends, printing
// the report's URL (with the real port when port is 0).
func serveDashboard(ctx context.Context, w io.Writer, dir, host string, port int) error {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("dashboard: --host %s --port %d: %w", host, port, err)
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(dir)), ReadHeaderTimeout: 10 * time.Second}
	addr, _ := ln.Addr().(*net.TCPAddr)
	if addr != nil {
		port = addr.Port
	}
	fmt.Fprintf(w, "Dashboard: http://%s/%s\nPress Ctrl+C to stop\n", net.JoinHostPort(host, strconv.Itoa(port)), reportFile)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			return fmt.Errorf("dashboard: shut down: %w", err)
		}
		return nil
	case err := <-served:
		return fmt.Errorf("dashboard: serve %s: %w", dir, err)
	}
}

// findRunDirs resolves the paths as AIPerf's ModeDetector: a path holding a
// run's files is a run; any other directory is searched recursively for runs
// (a sweep's parent). A path with no run anywhere below is read as a run so
// the error names the files expected.
func findRunDirs(paths []string) []string {
	var dirs []string
	seen := map[string]bool{}
	for _, p := range paths {
		found := runsUnder(p)
		if len(found) == 0 {
			found = []string{p}
		}
		for _, d := range found {
			if abs, err := filepath.Abs(d); err == nil && !seen[abs] {
				seen[abs] = true
				dirs = append(dirs, d)
			}
		}
	}
	return dirs
}

func runsUnder(dir string) []string {
	if isRunDir(dir) {
		return []string{dir}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // not a readable directory: ReadRun reports it
	}
	var out []string
	for _, e := range entries { // ReadDir sorts by name
		if !e.IsDir() {
			continue
		}
		out = append(out, runsUnder(filepath.Join(dir, e.Name()))...)
	}
	return out
}

func isRunDir(dir string) bool {
	for _, f := range []string{artifacts.SummaryFile, artifacts.RecordsFile} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.IsDir() {
			return false
		}
	}
	return true
}

// checkComparable refuses runs whose metrics do not mean the same thing: a
// different endpoint type, or streaming against non-streaming (TTFT and ITL
// exist only when streaming). Different models are compared, a series each.
func checkComparable(runs []*sdk.PlotRun) error {
	for _, f := range []struct {
		what string
		of   func(*sdk.PlotRun) string
	}{
		{"endpoint types", func(r *sdk.PlotRun) string { return r.Config.EndpointType }},
		{"streaming settings", func(r *sdk.PlotRun) string { return fmt.Sprintf("streaming=%t", r.Config.Streaming) }},
	} {
		byValue := map[string][]string{}
		var order []string
		for _, r := range runs {
			v := f.of(r)
			if _, ok := byValue[v]; !ok {
				order = append(order, v)
			}
			byValue[v] = append(byValue[v], r.Dir)
		}
		if len(order) > 1 {
			parts := make([]string, len(order))
			for i, v := range order {
				parts[i] = fmt.Sprintf("%q: %s", v, strings.Join(byValue[v], ", "))
			}
			return fmt.Errorf("plot: runs with different %s cannot be compared: %s", f.what, strings.Join(parts, "; "))
		}
	}
	return nil
}
