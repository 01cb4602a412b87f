// Package httptrace is the "http_trace" console exporter: with
// --show-trace-timing, the "NVIDIA AIPerf | HTTP Trace Timing" table of the
// http_req_* metrics, as AIPerf 0.13's HttpTraceConsoleExporter prints it.
package httptrace

import (
	"context"
	"errors"
	"fmt"
	"io"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/consoleexporter/metricstable"
	"github.com/aiperf-go/aiperf/plugins/builtin/consoleexporter/metricstable/richtable"
)

// Name is the plugin name of this exporter (AIPerf's console_exporter name).
const Name = "http_trace"

// Title is AIPerf's table title (HttpTraceConsoleExporter.title).
const Title = "NVIDIA AIPerf | HTTP Trace Timing"

// Settings are the exporter's own settings (sdk.Configurable).
type Settings struct {
	// ShowTraceTiming prints the table (--show-trace-timing, AIPerf's
	// artifacts.show_trace_timing); off, the exporter prints nothing.
	ShowTraceTiming bool `json:"show_trace_timing"`
}

// Exporter renders the HTTP trace timing table.
type Exporter struct {
	settings Settings
	color    *bool // nil: decide from the writer and NO_COLOR
}

var (
	_ sdk.ConsoleExporter = (*Exporter)(nil)
	_ sdk.Configurable    = (*Exporter)(nil)
)

// Option configures the exporter.
type Option func(*Exporter)

// WithColor forces colour on or off instead of detecting a terminal.
func WithColor(on bool) Option { return func(e *Exporter) { e.color = &on } }

// Enabled sets show_trace_timing, as the setting does.
func Enabled(on bool) Option { return func(e *Exporter) { e.settings.ShowTraceTiming = on } }

// New returns the exporter, disabled until its show_trace_timing setting is
// on.
func New(opts ...Option) *Exporter {
	e := &Exporter{}
	for _, o := range opts {
		o(e)
	}
	return e
}

// PluginConfig returns the settings to decode into.
func (e *Exporter) PluginConfig() any { return &e.settings }

// Render writes the table when show_trace_timing is on and the results hold
// an HTTP trace metric; otherwise nothing.
func (e *Exporter) Render(_ context.Context, w io.Writer, ec *sdk.ExportContext) error {
	if !e.settings.ShowTraceTiming {
		return nil
	}
	if ec == nil {
		return errors.New("http_trace: nil export context")
	}
	if ec.Results == nil {
		return nil
	}
	tbl := Build(ec.Results.Metrics)
	if len(tbl.Rows) == 0 {
		return nil
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("http_trace: %w", err)
	}
	if err := tbl.Render(w, e.useColor(w)); err != nil {
		return fmt.Errorf("http_trace: %w", err)
	}
	return nil
}

// Build lays out the table as AIPerf's HttpTraceConsoleExporter does: one
// table of every metric flagged HTTP_TRACE_ONLY and not ERROR_ONLY
// (require_flags, exclude_flags; no console-group filter, so the metrics'
// NO_CONSOLE does not hide them here), ordered by display order (metrics
// without one last, ties in result order), with the metrics table's columns.
func Build(metrics []sdk.MetricResult) *richtable.Table {
	tbl := metricstable.NewTable(Title)
	visible := make([]*sdk.MetricResult, 0, 16)
	for i := range metrics {
		m := &metrics[i]
		if m.Flags.Has(sdk.FlagHTTPTraceOnly) && !m.Flags.HasAny(sdk.FlagErrorOnly) {
			visible = append(visible, m)
		}
	}
	metricstable.AppendRows(tbl, visible)
	return tbl
}

func (e *Exporter) useColor(w io.Writer) bool {
	if e.color != nil {
		return *e.color
	}
	return metricstable.IsColorTerminal(w)
}
