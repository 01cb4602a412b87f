// Package gputelemetry is the "gpu_telemetry" console exporter: AIPerf
// 0.13's GPU Telemetry Summary (aiperf/exporters/gpu_telemetry_console_exporter.py),
// one table per GPU with avg, min, max, p99, p90, p50 and std of each
// metric over the profiling window, printed after the metrics table when
// the run collected GPU telemetry.
package gputelemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/consoleexporter/metricstable"
	"github.com/aiperf-go/aiperf/plugins/builtin/consoleexporter/metricstable/richtable"
	gpuexport "github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/gputelemetry"
)

// Name is the plugin name of this exporter.
const Name = "gpu_telemetry"

// Exporter renders the GPU tables.
type Exporter struct{ color *bool }

var _ sdk.ConsoleExporter = (*Exporter)(nil)

// New returns the exporter.
func New() *Exporter { return &Exporter{} }

// WithColor forces colour on or off (tests).
func (e *Exporter) WithColor(on bool) *Exporter { e.color = &on; return e }

// Render writes nothing unless some GPU source gave samples.
func (e *Exporter) Render(_ context.Context, w io.Writer, ec *sdk.ExportContext) error {
	if ec == nil {
		return errors.New("gpu_telemetry: nil export context")
	}
	s := gpuexport.Summarize(ec)
	if s == nil || len(s.Endpoints) == 0 {
		return nil
	}
	color := metricstable.IsColorTerminal(w)
	if e.color != nil {
		color = *e.color
	}
	first := true
	for _, ep := range s.Endpoints {
		for _, g := range ep.GPUs {
			title := fmt.Sprintf("%s | GPU %d | %s", ep.Display, g.Index, g.Name)
			if first {
				title = header(s) + "\n\n" + title
				first = false
			}
			t := richtable.Table{Title: title, TitleStyle: richtable.Italic, Columns: []richtable.Column{
				{Header: "Metric", Align: richtable.Right, Style: richtable.Cyan},
			}}
			for _, c := range []string{"avg", "min", "max", "p99", "p90", "p50", "std"} {
				t.Columns = append(t.Columns, richtable.Column{Header: c, Align: richtable.Right, Style: richtable.Green})
			}
			for _, m := range g.Metrics {
				r := m.Result
				row := []richtable.Cell{{Text: m.Field.Display + " (" + m.Field.Unit + ")"}}
				for _, v := range []*float64{r.Avg, r.Min, r.Max, r.P99, r.P90, r.P50, r.Std} {
					row = append(row, richtable.Cell{Text: Format(v)})
				}
				t.Rows = append(t.Rows, row)
			}
			if _, err := io.WriteString(w, "\n"); err != nil {
				return fmt.Errorf("gpu_telemetry: %w", err)
			}
			if err := t.Render(w, color); err != nil {
				return fmt.Errorf("gpu_telemetry: %w", err)
			}
		}
	}
	return nil
}

// header is the first table's title head: the reachability of the sources.
func header(s *gpuexport.Summary) string {
	lines := []string{"AIPerf | GPU Telemetry Summary",
		fmt.Sprintf("%d/%d telemetry sources reachable", len(s.Successful), len(s.Configured))}
	ok := map[string]bool{}
	for _, u := range s.Successful {
		ok[u] = true
	}
	for _, u := range s.Configured {
		if ok[u] {
			lines = append(lines, "• "+gpuexport.DisplayEndpoint(u)+" \u2714 ")
		} else {
			lines = append(lines, "• "+gpuexport.DisplayEndpoint(u)+" \u2718 (unreachable)")
		}
	}
	return strings.Join(lines, "\n")
}

// Format is AIPerf's _format_number: N/A, 2 decimals with thousands
// separators, scientific from a million.
func Format(v *float64) string {
	if v == nil || math.IsNaN(*v) {
		return "N/A"
	}
	x := *v
	if math.Abs(x) >= 1_000_000 {
		s := strconv.FormatFloat(x, 'e', 2, 64) // Python: 1.23e+06
		return s
	}
	s := strconv.FormatFloat(math.Abs(x), 'f', 2, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if x < 0 && s != "0.00" {
		b.WriteByte('-')
	}
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String() + "." + frac
}
