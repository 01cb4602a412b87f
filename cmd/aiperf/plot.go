package main

import (
	"bytes"
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

// newPlotCmd is AIPerf 0.13's `aiperf plot [PATHS...]` for one run: every
// registered plot plugin draws one file into --output (default
// <first path>/plots), plus AIPerf's summary.txt. --format svg is ours
// (AIPerf renders PNG only).
func newPlotCmd() *cobra.Command {
	var o plotOptions
	cmd := &cobra.Command{
		Use:   "plot [PATHS...]",
		Short: "Generate plots from AIPerf profiling data",
		Long: "Generate plots (PNG or SVG, no browser needed) from a run's artifact directory:\n" +
			"profile_export_aiperf.json and profile_export.jsonl as `aiperf profile` writes them.",
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
	if len(o.paths) > 1 {
		return fmt.Errorf("plot: %d run directories given (%s): comparing several runs is not implemented yet; pass one",
			len(o.paths), strings.Join(o.paths, ", "))
	}
	run, err := artifacts.ReadRun(o.paths[0])
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
		if !p.Plugin.Applies(run) {
			fmt.Fprintf(cmd.ErrOrStderr(), "Skipping plot '%s': required data not available in %s\n", p.Name, o.paths[0])
			continue
		}
		var buf bytes.Buffer
		if err := p.Plugin.Render(run, opts, &buf); err != nil {
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
