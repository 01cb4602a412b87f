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
)

// statHeader is section 1's header; the stats follow AIPerf's STAT_KEYS.
var statHeader = []string{"Metric", "avg", "min", "max", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "std"}

// hiddenFlags are the metric flags AIPerf keeps out of the CSV.
const hiddenFlags = sdk.FlagInternal | sdk.FlagExperimental

// Write renders the CSV: record metrics (those with percentiles) first, then
// a blank line, then scalar metrics as Metric,Value. Both sections are sorted
// by tag, as in AIPerf. Lines end in CRLF because Python's csv module (and so
// every AIPerf CSV) does.
func Write(w io.Writer, metrics []sdk.MetricResult) error {
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

// statValues formats the 13 stats. min and max of integer metrics are ints
// in AIPerf (Python ints print without decimals); everything else is a float.
func statValues(m *sdk.MetricResult) [13]string {
	vals := [13]*float64{m.Avg, m.Min, m.Max, m.P1, m.P5, m.P10, m.P25, m.P50, m.P75, m.P90, m.P95, m.P99, m.Std}
	var out [13]string
	for i, v := range vals {
		if m.Integer && (i == 1 || i == 2) {
			out[i] = formatInt(v)
		} else {
			out[i] = formatFloat(v)
		}
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

func formatInt(v *float64) string {
	if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
		return ""
	}
	if *v == math.Trunc(*v) && math.Abs(*v) < 1<<53 {
		return strconv.FormatInt(int64(*v), 10)
	}
	return formatFloat(v)
}
