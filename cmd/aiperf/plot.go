package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/aiperf-go/aiperf/core/artifacts"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/registry"
	"github.com/spf13/cobra"
)

type plotOptions struct {
	paths  []string
	output string
	theme  string
	format string
}

// newPlotCmd is AIPerf 0.13's `aiperf plot [PATHS...]`: for one run every
// single-run plot plugin, for several runs (paths, or a parent of run
// directories) every comparison plot, draws one file into --output (default
// <first path>/plots), plus AIPerf's summary.txt. --format svg is ours
// (AIPerf renders PNG only).
func newPlotCmd() *cobra.Command {
	var o plotOptions
	cmd := &cobra.Command{
		Use:   "plot [PATHS...]",
		Short: "Generate plots from AIPerf profiling data",
		Long: "Generate plots (PNG or SVG, no browser needed) from a run's artifact directory:\n" +
			"profile_export_aiperf.json and profile_export.jsonl as `aiperf profile` writes them.\n" +
			"Several runs (several paths, or a directory whose subdirectories are runs) get comparison plots:\n" +
			"Pareto curves and latency/throughput against the swept concurrency or request rate.",
		RunE: func(cmd *cobra.Command, args []string) error {
			o.paths = append(o.paths, args...)
			return runPlot(cmd, o)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.paths, "paths", nil, "Paths to profiling run directories. Defaults to ./artifacts if not specified.")
	f.StringVar(&o.output, "output", "", "Directory to save generated plots. Defaults to <first_path>/plots if not specified.")
	f.StringVar(&o.theme, "theme", "light", "Plot theme to use: 'light' (white background) or 'dark' (dark background).")
	f.StringVar(&o.format, "format", "png", "Image format: png or svg.")
	return cmd
}

func runPlot(cmd *cobra.Command, o plotOptions) error {
	if o.format != "png" && o.format != "svg" {
		return fmt.Errorf("--format %q: want png or svg", o.format)
	}
	if o.theme != "light" && o.theme != "dark" {
		return fmt.Errorf("--theme %q: want light or dark", o.theme)
	}
	if len(o.paths) == 0 {
		o.paths = []string{"artifacts"}
	}
	dirs := findRunDirs(o.paths)
	runs := make([]*sdk.PlotRun, len(dirs))
	var err error
	for i, d := range dirs {
		if runs[i], err = artifacts.ReadRun(d); err != nil {
			return err
		}
		if runs[i].Config, err = readRunConfig(d); err != nil {
			return err
		}
	}
	if err := checkComparable(runs); err != nil {
		return err
	}
	out := o.output
	if out == "" {
		out = filepath.Join(o.paths[0], "plots")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("--output %s: %w", out, err)
	}
	reg, err := embeddedRegistry()
	if err != nil {
		return err
	}
	plots, err := registry.All(reg, sdk.Plots)
	if err != nil {
		return err
	}
	opts := sdk.PlotOptions{Format: o.format, Width: 1600, Height: 800, DPI: 150, Theme: o.theme}
	var written []string
	for _, p := range plots {
		// One run: the single-run plots; several: only the comparisons, as AIPerf's modes.
		cp, compare := p.Plugin.(sdk.ComparisonPlot)
		if compare != (len(runs) > 1) {
			continue
		}
		var buf bytes.Buffer
		switch {
		case compare && !cp.AppliesToRuns(runs):
			fmt.Fprintf(cmd.ErrOrStderr(), "Skipping plot '%s': required data not available in every run\n", p.Name)
			continue
		case compare:
			err = cp.RenderRuns(runs, opts, &buf)
		case !p.Plugin.Applies(runs[0]):
			fmt.Fprintf(cmd.ErrOrStderr(), "Skipping plot '%s': required data not available in %s\n", p.Name, dirs[0])
			continue
		default:
			err = p.Plugin.Render(runs[0], opts, &buf)
		}
		if err != nil {
			return fmt.Errorf("plot %s: %w", p.Name, err)
		}
		name := p.Name + "." + o.format
		if err := os.WriteFile(filepath.Join(out, name), buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("write plot %s: %w", name, err)
		}
		written = append(written, name)
	}
	var s strings.Builder
	s.WriteString("AIPerf Plot Export Summary\n" + strings.Repeat("=", 50) + "\n\n")
	fmt.Fprintf(&s, "Generated %d plots:\n\n", len(written))
	for _, n := range written {
		fmt.Fprintf(&s, "  - %s\n", n)
	}
	fmt.Fprintf(&s, "\nOutput directory: %s\n", out)
	if err := os.WriteFile(filepath.Join(out, "summary.txt"), []byte(s.String()), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Join(out, "summary.txt"), err)
	}
	word := "plots"
	if len(written) == 1 {
		word = "plot"
	}
	fmt.Fprintf(cmd.OutOrStdout(), "\nSaved %d %s to: %s\n", len(written), word, out)
	return nil
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

// readRunConfig takes the model, endpoint and profiling load from the
// input_config of dir's profile_export_aiperf.json.
func readRunConfig(dir string) (sdk.PlotRunConfig, error) {
	path := filepath.Join(dir, artifacts.SummaryFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return sdk.PlotRunConfig{}, fmt.Errorf("read %s: %w", path, err)
	}
	var doc struct {
		InputConfig struct {
			Models struct {
				Items []struct {
					Name string `json:"name"`
				} `json:"items"`
			} `json:"models"`
			Endpoint struct {
				Type      string `json:"type"`
				Streaming bool   `json:"streaming"`
			} `json:"endpoint"`
			Phases []struct {
				Kind        string   `json:"kind"`
				Concurrency *float64 `json:"concurrency"`
				Rate        *float64 `json:"rate"`
			} `json:"phases"`
		} `json:"input_config"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return sdk.PlotRunConfig{}, fmt.Errorf("parse input_config of %s: %w", path, err)
	}
	ic := doc.InputConfig
	var c sdk.PlotRunConfig
	var models []string
	for _, m := range ic.Models.Items {
		models = append(models, m.Name)
	}
	c.Model, c.EndpointType, c.Streaming = strings.Join(models, ","), ic.Endpoint.Type, ic.Endpoint.Streaming
	for _, ph := range ic.Phases {
		if ph.Kind != "profiling" {
			continue
		}
		if ph.Concurrency != nil {
			c.Concurrency = *ph.Concurrency
		}
		if ph.Rate != nil {
			c.RequestRate = *ph.Rate
		}
	}
	return c, nil
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
