// Package httptrace is the "http_trace" console exporter: with
// --show-trace-timing, the "NVIDIA AIPerf | HTTP Trace Timing" table of the
// http_req_* metrics, as AIPerf 0.13's HttpTraceConsoleExporter prints it.
package httptrace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"unicode/utf8"

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

// statColumns are the console columns, in AIPerf's order
// (ConsoleMetricsExporter.DEFAULT_STAT_KEYS).
var statColumns = []string{"avg", "min", "max", "p99", "p90", "p50", "std"}

// labelWrapAt is AIPerf's threshold: longer headers put the unit on a second line.
const labelWrapAt = 30

// Build lays out the table as AIPerf's HttpTraceConsoleExporter does: one
// table of every metric flagged HTTP_TRACE_ONLY and not ERROR_ONLY
// (require_flags, exclude_flags; no console-group filter, so the metrics'
// NO_CONSOLE does not hide them here), ordered by display order (metrics
// without one last, ties in result order), with the metrics table's columns.
func Build(metrics []sdk.MetricResult) *richtable.Table {
	tbl := &richtable.Table{
		Title:      Title,
		TitleStyle: richtable.Italic,
		Columns:    []richtable.Column{{Header: "Metric", Align: richtable.Right, Style: richtable.Cyan}},
	}
	for _, s := range statColumns {
		tbl.Columns = append(tbl.Columns, richtable.Column{Header: s, Align: richtable.Right, Style: richtable.Green})
	}
	visible := make([]*sdk.MetricResult, 0, 16)
	for i := range metrics {
		m := &metrics[i]
		if m.Flags.Has(sdk.FlagHTTPTraceOnly) && !m.Flags.HasAny(sdk.FlagErrorOnly) {
			visible = append(visible, m)
		}
	}
	slices.SortStableFunc(visible, func(a, b *sdk.MetricResult) int { return sortKey(a) - sortKey(b) })
	for _, m := range visible {
		row := []richtable.Cell{{Text: label(m)}}
		for _, v := range []*float64{m.Avg, m.Min, m.Max, m.P99, m.P90, m.P50, m.Std} {
			row = append(row, valueCell(v))
		}
		tbl.Rows = append(tbl.Rows, row)
	}
	return tbl
}

func sortKey(m *sdk.MetricResult) int {
	if m.DisplayOrder == 0 {
		return math.MaxInt32 // AIPerf sorts "no display order" last
	}
	return m.DisplayOrder
}

func label(m *sdk.MetricResult) string {
	if m.Unit == "" {
		return m.Header
	}
	sep := " "
	if utf8.RuneCountInString(m.Header) > labelWrapAt {
		sep = "\n"
	}
	return m.Header + sep + "(" + m.Unit + ")"
}

func valueCell(v *float64) richtable.Cell {
	if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
		return richtable.Cell{Text: "N/A", Style: richtable.Dim}
	}
	return richtable.Cell{Text: metricstable.FormatNumber(*v)}
}

func (e *Exporter) useColor(w io.Writer) bool {
	if e.color != nil {
		return *e.color
	}
	return metricstable.IsColorTerminal(w)
}
