package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// plotSelection is what AIPerf's plot configuration (`aiperf plot --config
// FILE`, the format of AIPerf 0.13's default_plot_config.yaml) selects:
// visualization.single_run_defaults and multi_run_defaults name the plots
// drawn for one run and for several. A nil selection draws every plot.
// AIPerf's preset definitions (single_run_plots, multi_run_plots: custom
// plots built from metric/stat specs) are not interpreted; a listed name
// that no plot type has is skipped with a line saying so.
type plotSelection struct {
	path          string
	single, multi []string
	// presets are the names the file defines under *_run_plots, with their
	// type, so a skipped name can say it is an AIPerf preset.
	presets map[string]string
}

// loadPlotSelection reads path; "" selects every plot (we do not create
// ~/.aiperf/plot_config.yaml as AIPerf does: a plot command writes only
// under --output).
func loadPlotSelection(path string) (*plotSelection, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--config: %w", err)
	}
	var doc struct {
		Visualization *struct {
			SingleRunDefaults []string `yaml:"single_run_defaults"`
			MultiRunDefaults  []string `yaml:"multi_run_defaults"`
			SingleRunPlots    map[string]struct {
				Type string `yaml:"type"`
			} `yaml:"single_run_plots"`
			MultiRunPlots map[string]struct {
				Type string `yaml:"type"`
			} `yaml:"multi_run_plots"`
		} `yaml:"visualization"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("--config %s: %w", path, err)
	}
	v := doc.Visualization
	if v == nil {
		return nil, fmt.Errorf("--config %s: no `visualization:` section (expected single_run_defaults and multi_run_defaults lists, as AIPerf's plot_config.yaml)", path)
	}
	s := &plotSelection{path: path, single: v.SingleRunDefaults, multi: v.MultiRunDefaults, presets: map[string]string{}}
	for name, p := range v.SingleRunPlots {
		s.presets[name] = p.Type
	}
	for name, p := range v.MultiRunPlots {
		s.presets[name] = p.Type
	}
	return s, nil
}

// wants says whether the plot name is selected for a single-run (compare
// false) or a multi-run drawing.
func (s *plotSelection) wants(name string, compare bool) bool {
	if s == nil {
		return true
	}
	if compare {
		return slices.Contains(s.multi, name)
	}
	return slices.Contains(s.single, name)
}

// skipped lists, one line each, the selected names no registered plot type
// has, for the drawing mode.
func (s *plotSelection) skipped(known []string, compare bool) []string {
	if s == nil {
		return nil
	}
	list := s.single
	if compare {
		list = s.multi
	}
	var out []string
	for _, name := range list {
		if slices.Contains(known, name) {
			continue
		}
		why := "no plot type of that name"
		if typ, ok := s.presets[name]; ok {
			why = fmt.Sprintf("AIPerf preset of type %q, which this aiperf does not draw", typ)
		}
		out = append(out, fmt.Sprintf("Skipping plot '%s' (from %s): %s; plot types: %s", name, s.path, why, strings.Join(known, ", ")))
	}
	return out
}
