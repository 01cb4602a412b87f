// Package metricstable is the "metrics_table" console exporter: the final
// "NVIDIA AIPerf | LLM Metrics" table, laid out like AIPerf's Rich table.
package metricstable

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"unicode/utf8"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/consoleexporter/metricstable/richtable"
)

// Name is the plugin name of this exporter.
const Name = "metrics_table"

// DefaultTitle is used when the endpoint declares no metrics title.
const DefaultTitle = "LLM Metrics"

// hiddenFlags keep a metric off the console, as in AIPerf.
const hiddenFlags = sdk.FlagErrorOnly | sdk.FlagNoConsole | sdk.FlagInternal | sdk.FlagExperimental

// footerOnly are tags AIPerf flags NO_CONSOLE (benchmark_duration is printed
// in the footer instead). They are listed here as well so the table stays
// right even if a metric registry forgets the flag.
var footerOnly = map[string]bool{
	"benchmark_duration":     true,
	"min_request_timestamp":  true,
	"max_response_timestamp": true,
	"total_isl":              true,
	"total_osl":              true,
	"total_output_tokens":    true,
	"total_reasoning_tokens": true,
	"total_error_isl":        true,
}

// labelWrapAt is AIPerf's threshold: longer headers put the unit on a second line.
const labelWrapAt = 30

// Exporter renders the metrics table.
type Exporter struct {
	color *bool // nil: decide from the writer and NO_COLOR
}

var _ sdk.ConsoleExporter = (*Exporter)(nil)

// Option configures the exporter.
type Option func(*Exporter)

// WithColor forces colour on or off instead of detecting a terminal.
func WithColor(on bool) Option { return func(e *Exporter) { e.color = &on } }

// New returns the metrics table exporter.
func New(opts ...Option) *Exporter {
	e := &Exporter{}
	for _, o := range opts {
		o(e)
	}
	return e
}

// Render writes the table; it writes nothing when there are no metrics to show.
func (e *Exporter) Render(_ context.Context, w io.Writer, ec *sdk.ExportContext) error {
	if ec == nil {
		return errors.New("metrics_table: nil export context")
	}
	if ec.Results == nil {
		return nil
	}
	tbl := Build(ec.Results.Metrics, ec.Endpoint.MetricsTitle)
	if len(tbl.Rows) == 0 {
		return nil
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("metrics_table: %w", err)
	}
	if err := tbl.Render(w, e.useColor(w)); err != nil {
		return fmt.Errorf("metrics_table: %w", err)
	}
	return nil
}

// statColumns are the console columns, in AIPerf's order.
var statColumns = []string{"avg", "min", "max", "p99", "p90", "p50", "std"}

// Build lays out the table: visible metrics ordered by display order
// (metrics without one go last, ties keep their result order).
func Build(metrics []sdk.MetricResult, title string) *richtable.Table {
	if title == "" {
		title = DefaultTitle
	}
	tbl := &richtable.Table{
		Title:      "NVIDIA AIPerf | " + title,
		TitleStyle: richtable.Italic,
		Columns:    []richtable.Column{{Header: "Metric", Align: richtable.Right, Style: richtable.Cyan}},
	}
	for _, s := range statColumns {
		tbl.Columns = append(tbl.Columns, richtable.Column{Header: s, Align: richtable.Right, Style: richtable.Green})
	}

	visible := make([]*sdk.MetricResult, 0, len(metrics))
	for i := range metrics {
		m := &metrics[i]
		if m.Flags.HasAny(hiddenFlags) || footerOnly[m.Tag] {
			continue
		}
		visible = append(visible, m)
	}
	slices.SortStableFunc(visible, func(a, b *sdk.MetricResult) int {
		return sortKey(a) - sortKey(b)
	})
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
	return richtable.Cell{Text: FormatNumber(*v)}
}

func (e *Exporter) useColor(w io.Writer) bool {
	if e.color != nil {
		return *e.color
	}
	return IsColorTerminal(w)
}

// IsColorTerminal reports whether w is a terminal that accepts colour:
// a character device, with NO_COLOR unset and TERM not "dumb".
func IsColorTerminal(w io.Writer) bool {
	if _, set := os.LookupEnv("NO_COLOR"); set || os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
