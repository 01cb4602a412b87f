// Package metricstable is the "metrics_table" console exporter: the final
// "NVIDIA AIPerf | LLM Metrics" table, laid out like AIPerf's Rich table,
// preceded by one table per console group that has visible metrics
// ("…: Effective", "…: Active", "…: Usage"), as AIPerf 0.13 prints them.
package metricstable

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

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

// Render writes the group tables, then the main table, back to back after
// one blank line (AIPerf prints them as one Rich group); it writes nothing
// when there are no metrics to show.
func (e *Exporter) Render(_ context.Context, w io.Writer, ec *sdk.ExportContext) error {
	if ec == nil {
		return errors.New("metrics_table: nil export context")
	}
	if ec.Results == nil {
		return nil
	}
	tables := BuildAll(ec.Results.Metrics, ec.Endpoint.MetricsTitle)
	if len(tables) == 0 {
		return nil
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("metrics_table: %w", err)
	}
	color := e.useColor(w)
	for _, tbl := range tables {
		if err := tbl.Render(w, color); err != nil {
			return fmt.Errorf("metrics_table: %w", err)
		}
	}
	if ec.Sharding != nil {
		if _, err := io.WriteString(w, ShardingLine(ec.Sharding)); err != nil {
			return fmt.Errorf("metrics_table: %w", err)
		}
	}
	return nil
}

// ShardingLine states how a sharded run was merged under its tables: how
// many shards, PARTIAL when some failed, and whether the percentiles are
// exact or approximate (≈, merged DDSketches within their relative
// accuracy); the table itself stays as a single run's.
func ShardingLine(sh *sdk.ShardingInfo) string {
	var b strings.Builder
	if sh.Partial {
		fmt.Fprintf(&b, "PARTIAL: merged %d of %d shards", sh.Completed, sh.Shards)
	} else {
		fmt.Fprintf(&b, "Merged %d of %d shards", sh.Completed, sh.Shards)
	}
	if sh.Percentiles == sdk.PercentilesDDSketch {
		fmt.Fprintf(&b, "; ≈ percentiles (p1-p99) from merged DDSketches, within %g%% relative; count, avg, min, max, std exact", 100*sh.RelativeAccuracy)
	} else {
		b.WriteString("; every statistic exact")
	}
	b.WriteString("\n")
	for _, f := range sh.Failed {
		fmt.Fprintf(&b, "  shard %d failed: %s\n", f.Shard, f.Reason)
	}
	return b.String()
}

// BuildAll lays out every non-empty table in AIPerf's order: one per
// console group (sdk.ConsoleGroups), then the main table.
func BuildAll(metrics []sdk.MetricResult, title string) []*richtable.Table {
	var out []*richtable.Table
	for _, group := range append(slices.Clone(sdk.ConsoleGroups), "") {
		if tbl := BuildGroup(metrics, title, group); len(tbl.Rows) > 0 {
			out = append(out, tbl)
		}
	}
	return out
}

// Build lays out the main table: visible metrics of no console group
// ordered by display order (metrics without one go last, ties keep their
// result order).
func Build(metrics []sdk.MetricResult, title string) *richtable.Table {
	return BuildGroup(metrics, title, "")
}

// BuildGroup lays out the table of one console group ("" for the main
// table), titled "NVIDIA AIPerf | <title>: <Group>" as AIPerf's.
func BuildGroup(metrics []sdk.MetricResult, title, group string) *richtable.Table {
	if title == "" {
		title = DefaultTitle
	}
	title = "NVIDIA AIPerf | " + title
	if group != "" {
		title += ": " + strings.ToUpper(group[:1]) + group[1:]
	}
	tbl := NewTable(title)
	visible := make([]*sdk.MetricResult, 0, len(metrics))
	for i := range metrics {
		m := &metrics[i]
		if m.ConsoleGroup != group || m.Flags.HasAny(hiddenFlags) || footerOnly[m.Tag] {
			continue
		}
		visible = append(visible, m)
	}
	AppendRows(tbl, visible)
	return tbl
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
