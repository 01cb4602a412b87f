// Package powerefficiency is the "power_efficiency_nvidia" console exporter:
// AIPerf 0.13's "GPU Power Efficiency (NVIDIA)" table
// (aiperf/exporters/console_power_efficiency_exporter.py), the run's
// nvidia_* energy-efficiency results with only an avg column, printed when
// NVIDIA GPUs reported power or energy.
package powerefficiency

import (
	"context"
	"errors"
	"fmt"
	"io"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/consoleexporter/metricstable"
	"github.com/aiperf-go/aiperf/plugins/builtin/consoleexporter/metricstable/richtable"
	gpuexport "github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/gputelemetry"
)

// Name is the plugin name of this exporter.
const Name = "power_efficiency_nvidia"

// Title is AIPerf's table title.
const Title = "GPU Power Efficiency (NVIDIA)"

// Exporter renders the table.
type Exporter struct{ color *bool }

var _ sdk.ConsoleExporter = (*Exporter)(nil)

// New returns the exporter.
func New() *Exporter { return &Exporter{} }

// WithColor forces colour on or off (tests).
func (e *Exporter) WithColor(on bool) *Exporter { e.color = &on; return e }

// Render writes nothing unless the run has NVIDIA energy-efficiency results.
func (e *Exporter) Render(_ context.Context, w io.Writer, ec *sdk.ExportContext) error {
	if ec == nil {
		return errors.New("power_efficiency_nvidia: nil export context")
	}
	tbl := Build(gpuexport.EnergyMetrics(ec))
	if tbl == nil {
		return nil
	}
	color := metricstable.IsColorTerminal(w)
	if e.color != nil {
		color = *e.color
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("power_efficiency_nvidia: %w", err)
	}
	if err := tbl.Render(w, color); err != nil {
		return fmt.Errorf("power_efficiency_nvidia: %w", err)
	}
	return nil
}

// Build lays out the table of the NVIDIA group's results in display order;
// nil when there are none.
func Build(metrics []sdk.MetricResult) *richtable.Table {
	var rows []*sdk.MetricResult
	for i := range metrics {
		if metrics[i].ConsoleGroup == gpuexport.GroupPowerEfficiencyNVIDIA {
			rows = append(rows, &metrics[i])
		}
	}
	if len(rows) == 0 {
		return nil
	}
	metricstable.SortByDisplayOrder(rows)
	// Single aggregate values: AIPerf shows the avg column alone.
	t := &richtable.Table{Title: Title, TitleStyle: richtable.Italic, Columns: []richtable.Column{
		{Header: "Metric", Align: richtable.Right, Style: richtable.Cyan},
		{Header: "avg", Align: richtable.Right, Style: richtable.Green},
	}}
	for _, m := range rows {
		t.Rows = append(t.Rows, []richtable.Cell{{Text: metricstable.Label(m)}, metricstable.ValueCell(m.Avg)})
	}
	return t
}
