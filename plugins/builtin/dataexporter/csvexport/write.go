package csvexport

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/gputelemetry"
)

// statKeys are AIPerf 0.13's STAT_KEYS, the stats columns of sections 1 and 3.
var statKeys = []string{"avg", "min", "max", "sum", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "std"}

// statHeader is section 1's header.
var statHeader = append([]string{"Metric"}, statKeys...)

// gpuHeader is the header of the GPU telemetry section, which AIPerf writes
// whenever GPU telemetry is enabled (its default), even with no GPU rows.
// Without GPU telemetry the section is the header alone.
var gpuHeader = append([]string{"Endpoint", "GPU_Index", "GPU_Name", "GPU_UUID", "Platform", "Metric"}, statKeys...)

// hiddenFlags are the metric flags AIPerf keeps out of the CSV.
const hiddenFlags = sdk.FlagInternal | sdk.FlagExperimental

// Write renders the CSV in AIPerf 0.13's layout: record metrics (those with
// percentiles) first, then a blank line, then scalar metrics as
// Metric,Value, both sections sorted by tag; then two blank lines and the
// GPU telemetry header. Lines end in CRLF because Python's csv module (and
// so every AIPerf CSV) does.
func Write(w io.Writer, metrics []sdk.MetricResult) error {
	return write(w, metrics, true, nil)
}

// write is Write, with the GPU telemetry section only when gpu is set (a
// phase's own CSV has none), its rows from gs when the run collected GPU
// telemetry.
func write(w io.Writer, metrics []sdk.MetricResult, gpu bool, gs *gputelemetry.Summary) error {
	request, system, err := split(metrics)
	if err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	if len(request) > 0 {
		_ = cw.Write(statHeader)
		row := make([]string, len(statHeader))
		for _, m := range request {
			row[0] = metricName(m)
			for i, v := range statValues(m) {
				row[i+1] = v
			}
			_ = cw.Write(row)
		}
		if len(system) > 0 {
			_ = cw.Write(nil) // blank separator line
		}
	}
	if len(system) > 0 {
		_ = cw.Write([]string{"Metric", "Value"})
		for _, m := range system {
			_ = cw.Write([]string{metricName(m), formatFloat(m.Avg)})
		}
	}
	if gpu {
		_ = cw.Write(nil)
		_ = cw.Write(nil)
		writeGPURows(cw, gs)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("csvexport: write: %w", err)
	}
	return nil
}

// split filters hidden metrics and partitions the rest, each part sorted by tag.
func split(metrics []sdk.MetricResult) (request, system []*sdk.MetricResult, err error) {
	seen := make(map[string]struct{}, len(metrics))
	for i := range metrics {
		m := &metrics[i]
		if m.Tag == "" {
			return nil, nil, fmt.Errorf("csvexport: metric #%d (%q) has an empty tag", i, m.Header)
		}
		if m.Flags.HasAny(hiddenFlags) {
			continue
		}
		if _, dup := seen[m.Tag]; dup {
			continue
		}
		seen[m.Tag] = struct{}{}
		if hasPercentiles(m) {
			request = append(request, m)
		} else {
			system = append(system, m)
		}
	}
	byTag := func(a, b *sdk.MetricResult) int { return cmp.Compare(a.Tag, b.Tag) }
	slices.SortFunc(request, byTag)
	slices.SortFunc(system, byTag)
	return request, system, nil
}

func hasPercentiles(m *sdk.MetricResult) bool {
	for _, p := range []*float64{m.P1, m.P5, m.P10, m.P25, m.P50, m.P75, m.P90, m.P95, m.P99} {
		if p != nil {
			return true
		}
	}
	return false
}

// metricName is "<Header> (<unit>)"; AIPerf leaves count-like units out.
func metricName(m *sdk.MetricResult) string {
	switch strings.ToLower(m.Unit) {
	case "", "count", "requests":
		return m.Header
	}
	if m.Header == "" {
		return "(" + m.Unit + ")"
	}
	return m.Header + " (" + m.Unit + ")"
}

// statValues formats the 14 stats. AIPerf's stats are Python floats, so
// every value is "%.2f", also min, max and sum of integer metrics (64.00).
func statValues(m *sdk.MetricResult) [14]string {
	vals := [14]*float64{m.Avg, m.Min, m.Max, m.Sum, m.P1, m.P5, m.P10, m.P25, m.P50, m.P75, m.P90, m.P95, m.P99, m.Std}
	var out [14]string
	for i, v := range vals {
		out[i] = formatFloat(v)
	}
	return out
}

// formatFloat is Python's f"{v:.2f}"; absent and non-finite values are empty cells.
func formatFloat(v *float64) string {
	if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
		return ""
	}
	return strconv.FormatFloat(*v, 'f', 2, 64)
}

// writeGPURows writes the GPU section's header and one row per GPU metric
// (AIPerf's _write_telemetry_section): the stats in STAT_KEYS order, and a
// Hostname column when any GPU names its host.
func writeGPURows(cw *csv.Writer, gs *gputelemetry.Summary) {
	withHost := false
	if gs != nil {
		for _, ep := range gs.Endpoints {
			for _, g := range ep.GPUs {
				withHost = withHost || g.Host != ""
			}
		}
	}
	header := gpuHeader
	if withHost {
		header = append(slices.Clone(gpuHeader), "Hostname")
	}
	_ = cw.Write(header)
	if gs == nil {
		return
	}
	for _, ep := range gs.Endpoints {
		for _, g := range ep.GPUs {
			for i := range g.Metrics {
				m := &g.Metrics[i]
				row := []string{ep.Display, strconv.Itoa(g.Index), g.Name, g.UUID, g.Platform,
					m.Field.Display + " (" + m.Field.Unit + ")"}
				sv := statValues(&m.Result)
				row = append(row, sv[:]...)
				if withHost {
					host := g.Host
					if host == "" {
						host = "None" // Python's str(None)
					}
					row = append(row, host)
				}
				_ = cw.Write(row)
			}
		}
	}
}
