// Package errorsummary is the "error_summary" console exporter: a table of
// distinct request errors and how often each occurred, printed only when a
// run had errors.
package errorsummary

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/consoleexporter/metricstable"
	"github.com/aiperf-go/aiperf/plugins/builtin/consoleexporter/metricstable/richtable"
)

// Name is the plugin name of this exporter.
const Name = "error_summary"

// Title is AIPerf's title for this table.
const Title = "NVIDIA AIPerf | Error Summary"

// messageWidth wraps long server messages so one error cannot stretch the
// table across the whole scrollback.
const messageWidth = 80

// Exporter renders the error summary table.
type Exporter struct {
	color *bool // nil: decide from the writer and NO_COLOR
}

var _ sdk.ConsoleExporter = (*Exporter)(nil)

// Option configures the exporter.
type Option func(*Exporter)

// WithColor forces colour on or off instead of detecting a terminal.
func WithColor(on bool) Option { return func(e *Exporter) { e.color = &on } }

// New returns the error summary exporter.
func New(opts ...Option) *Exporter {
	e := &Exporter{}
	for _, o := range opts {
		o(e)
	}
	return e
}

// Render writes the table, or nothing when the run had no errors.
func (e *Exporter) Render(_ context.Context, w io.Writer, ec *sdk.ExportContext) error {
	if ec == nil {
		return errors.New("error_summary: nil export context")
	}
	if ec.Results == nil || len(ec.Results.ErrorSummary) == 0 {
		return nil
	}
	color := metricstable.IsColorTerminal(w)
	if e.color != nil {
		color = *e.color
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("error_summary: %w", err)
	}
	if err := Build(ec.Results.ErrorSummary).Render(w, color); err != nil {
		return fmt.Errorf("error_summary: %w", err)
	}
	return nil
}

// Build lays out the table in the summary's order. Type and message are
// server-controlled text; richtable sanitizes them before they reach a terminal.
func Build(summary []sdk.ErrorCount) *richtable.Table {
	y := richtable.Yellow
	tbl := &richtable.Table{
		Title:      Title,
		TitleStyle: richtable.Red,
		Columns: []richtable.Column{
			{Header: "Code", Align: richtable.Right, Style: y},
			{Header: "Type", Align: richtable.Right, Style: y},
			{Header: "Message", Align: richtable.Left, Style: y, MaxWidth: messageWidth},
			{Header: "Count", Align: richtable.Right, Style: y},
		},
	}
	na := richtable.Cell{Text: "N/A", Style: richtable.Dim}
	for _, ec := range summary {
		d := ec.ErrorDetails
		code, typ := na, na
		if d.Code != 0 {
			code = richtable.Cell{Text: strconv.Itoa(d.Code)}
		}
		if d.Type != "" {
			typ = richtable.Cell{Text: d.Type}
		}
		tbl.Rows = append(tbl.Rows, []richtable.Cell{code, typ, {Text: d.Message}, {Text: groupThousands(ec.Count)}})
	}
	return tbl
}

// groupThousands is Python's f"{n:,}".
func groupThousands(n int) string {
	s := strconv.Itoa(n)
	sign := ""
	if n < 0 {
		sign, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return sign + s
}
