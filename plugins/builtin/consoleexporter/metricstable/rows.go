package metricstable

import (
	"math"
	"slices"
	"unicode/utf8"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/consoleexporter/metricstable/richtable"
)

// StatColumns are the console stat columns, in AIPerf's order
// (ConsoleMetricsExporter.DEFAULT_STAT_KEYS).
var StatColumns = []string{"avg", "min", "max", "p99", "p90", "p50", "std"}

// labelWrapAt is AIPerf's threshold: longer headers put the unit on a second line.
const labelWrapAt = 30

// NewTable returns an empty metrics-style table with the given title: a
// right-aligned cyan "Metric" column followed by the green StatColumns.
func NewTable(title string) *richtable.Table {
	tbl := &richtable.Table{
		Title:      title,
		TitleStyle: richtable.Italic,
		Columns:    []richtable.Column{{Header: "Metric", Align: richtable.Right, Style: richtable.Cyan}},
	}
	for _, s := range StatColumns {
		tbl.Columns = append(tbl.Columns, richtable.Column{Header: s, Align: richtable.Right, Style: richtable.Green})
	}
	return tbl
}

// AppendRows sorts metrics by display order (SortByDisplayOrder) and appends
// one row per metric to tbl: its Label, then a ValueCell per StatColumns entry.
func AppendRows(tbl *richtable.Table, metrics []*sdk.MetricResult) {
	SortByDisplayOrder(metrics)
	for _, m := range metrics {
		tbl.Rows = append(tbl.Rows, Row(m))
	}
}

// Row is the table row of one metric: its Label, then a ValueCell per
// StatColumns entry.
func Row(m *sdk.MetricResult) []richtable.Cell {
	row := make([]richtable.Cell, 0, 1+len(StatColumns))
	row = append(row, richtable.Cell{Text: Label(m)})
	for _, v := range []*float64{m.Avg, m.Min, m.Max, m.P99, m.P90, m.P50, m.Std} {
		row = append(row, ValueCell(v))
	}
	return row
}

// SortByDisplayOrder orders metrics by SortKey, stably: metrics without a
// display order go last and ties keep their order.
func SortByDisplayOrder(metrics []*sdk.MetricResult) {
	slices.SortStableFunc(metrics, func(a, b *sdk.MetricResult) int {
		return SortKey(a) - SortKey(b)
	})
}

// SortKey is a metric's display-order sort key; a metric without a display
// order (zero) sorts last, as in AIPerf.
func SortKey(m *sdk.MetricResult) int {
	if m.DisplayOrder == 0 {
		return math.MaxInt32 // AIPerf sorts "no display order" last
	}
	return m.DisplayOrder
}

// Label is a metric's "Metric" cell text: its header, then its unit in
// parentheses when it has one, on a second line when the header is longer
// than AIPerf's wrap threshold.
func Label(m *sdk.MetricResult) string {
	if m.Unit == "" {
		return m.Header
	}
	sep := " "
	if utf8.RuneCountInString(m.Header) > labelWrapAt {
		sep = "\n"
	}
	return m.Header + sep + "(" + m.Unit + ")"
}

// ValueCell formats one stat value with FormatNumber; a missing, NaN or
// infinite value is a dim "N/A".
func ValueCell(v *float64) richtable.Cell {
	if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
		return richtable.Cell{Text: "N/A", Style: richtable.Dim}
	}
	return richtable.Cell{Text: FormatNumber(*v)}
}
