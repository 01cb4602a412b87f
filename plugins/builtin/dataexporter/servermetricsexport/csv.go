package servermetricsexport

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"net/url"
	"sort"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Stat columns per section (csv_exporter.STAT_KEYS_MAP).
var statKeys = map[string][]string{
	sdk.PromGauge:     {"avg", "min", "max", "std", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99"},
	sdk.PromUnknown:   {"avg", "min", "max", "std", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99"},
	sdk.PromCounter:   {"total", "rate", "rate_avg", "rate_min", "rate_max", "rate_std"},
	sdk.PromHistogram: {"count", "count_rate", "sum", "sum_rate", "avg", "p1_estimate", "p5_estimate", "p10_estimate", "p25_estimate", "p50_estimate", "p75_estimate", "p90_estimate", "p95_estimate", "p99_estimate"},
}

type csvRow struct {
	endpoint string
	m        sdk.ServerMetric
	s        sdk.ServerMetricSeries
}

// EndpointDisplay is AIPerf's normalize_endpoint_display: host:port plus
// the path without its /metrics suffix.
func EndpointDisplay(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Host + strings.TrimSuffix(u.Path, "/metrics")
}

// RenderCSV is server_metrics_export.csv (csv_exporter.py): a comment
// header, then one section per type (gauge, counter, histogram, unknown)
// with labels as columns, then *_info gauges transposed; CRLF rows.
func RenderCSV(ec *sdk.ExportContext) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# AIPerf Server Metrics Export (CSV)\n# aiperf_version: %s\n# schema_version: 1.0\n# benchmark_id: %s\n", ec.AIPerfVersion, ec.BenchmarkID)
	b.WriteString("# Note: Same benchmark_id and version appear in JSON and Parquet exports\n#\n")
	byType := map[string][]csvRow{}
	var info []csvRow
	for _, ep := range ec.ServerMetrics.Endpoints {
		d := EndpointDisplay(ep.URL)
		for _, m := range ep.Metrics {
			for _, s := range m.Series {
				r := csvRow{d, m, s}
				if m.Type == sdk.PromGauge && strings.HasSuffix(m.Name, "_info") {
					info = append(info, r)
					continue
				}
				byType[m.Type] = append(byType[m.Type], r)
			}
		}
	}
	w := csv.NewWriter(&b)
	w.UseCRLF = true
	first := true
	for _, typ := range []string{sdk.PromGauge, sdk.PromCounter, sdk.PromHistogram, sdk.PromUnknown} {
		rows := byType[typ]
		if len(rows) == 0 {
			continue
		}
		if !first {
			_ = w.Write(nil)
		}
		first = false
		writeSection(w, typ, rows)
	}
	if len(info) > 0 {
		if !first {
			_ = w.Write(nil)
		}
		_ = w.Write([]string{"Endpoint", "Metric", "Key", "Value", "Description"})
		sort.SliceStable(info, func(i, j int) bool {
			if info[i].m.Name != info[j].m.Name {
				return info[i].m.Name < info[j].m.Name
			}
			return info[i].endpoint < info[j].endpoint
		})
		for _, r := range info {
			for _, k := range sortedKeys(r.s.Labels) {
				_ = w.Write([]string{r.endpoint, r.m.Name, k, r.s.Labels[k], r.m.Description})
			}
		}
	}
	w.Flush()
	return b.Bytes()
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// labelOrder is _get_optimal_label_order: labels grouped into families of
// co-occurring labels (union-find); within a family, labels seen in one
// label set first, then those in several.
func labelOrder(rows []csvRow) []string {
	parent := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		p, ok := parent[x]
		if !ok {
			parent[x] = x
			return x
		}
		if p == x {
			return x
		}
		return find(p)
	}
	seenIn := map[string]int{}
	for _, r := range rows {
		ks := sortedKeys(r.s.Labels)
		for _, k := range ks {
			seenIn[k]++
			find(k)
		}
		for i := 1; i < len(ks); i++ {
			parent[find(ks[i])] = find(ks[i-1])
		}
	}
	fams := map[string][]string{}
	for k := range seenIn {
		root := find(k)
		fams[root] = append(fams[root], k)
	}
	var famList [][]string
	for _, f := range fams {
		sort.Strings(f)
		famList = append(famList, f)
	}
	sort.Slice(famList, func(i, j int) bool { return famList[i][0] < famList[j][0] })
	var out []string
	for _, f := range famList {
		for _, bridge := range []bool{false, true} {
			for _, k := range f {
				if (seenIn[k] > 1) == bridge {
					out = append(out, k)
				}
			}
		}
	}
	return out
}

func writeSection(w *csv.Writer, typ string, rows []csvRow) {
	keys := statKeys[typ]
	order := labelOrder(rows)
	header := append([]string{"Endpoint", "Type", "Metric", "Unit"}, keys...)
	header = append(header, order...)
	header = append(header, "Description")
	if typ == sdk.PromHistogram {
		header = append(header, "buckets")
	}
	_ = w.Write(header)
	sortKey := func(r csvRow) [4]string {
		var p strings.Builder
		for _, k := range order {
			if _, ok := r.s.Labels[k]; ok {
				p.WriteByte('1')
			} else {
				p.WriteByte('0')
			}
		}
		var l strings.Builder
		for _, k := range sortedKeys(r.s.Labels) {
			fmt.Fprintf(&l, "%s=%s,", k, r.s.Labels[k])
		}
		return [4]string{p.String(), r.m.Name, r.endpoint, l.String()}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := sortKey(rows[i]), sortKey(rows[j])
		for k := range a {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return false
	})
	for _, r := range rows {
		row := []string{r.endpoint, typ, r.m.Name, r.m.Unit}
		vals := statValues(r.s)
		for _, k := range keys {
			row = append(row, vals[k])
		}
		for _, k := range order {
			row = append(row, r.s.Labels[k])
		}
		row = append(row, r.m.Description)
		if typ == sdk.PromHistogram {
			parts := make([]string, len(r.s.Buckets))
			for i, bk := range r.s.Buckets {
				parts[i] = fmt.Sprintf("%s=%d", bk.Le, int64(bk.Count))
			}
			row = append(row, strings.Join(parts, ";"))
		}
		_ = w.Write(row)
	}
}

func f4(v float64) string { return fmt.Sprintf("%.4f", v) }

func statValues(s sdk.ServerMetricSeries) map[string]string {
	out := map[string]string{}
	opt := func(k string, v *float64) {
		if v != nil {
			out[k] = f4(*v)
		}
	}
	switch {
	case s.Gauge != nil:
		g := s.Gauge
		for k, v := range map[string]float64{"avg": g.Avg, "min": g.Min, "max": g.Max, "std": g.Std, "p1": g.P1, "p5": g.P5,
			"p10": g.P10, "p25": g.P25, "p50": g.P50, "p75": g.P75, "p90": g.P90, "p95": g.P95, "p99": g.P99} {
			out[k] = f4(v)
		}
	case s.Counter != nil:
		out["total"], out["rate"] = f4(s.Counter.Total), f4(s.Counter.Rate)
		opt("rate_avg", s.Counter.RateAvg)
		opt("rate_min", s.Counter.RateMin)
		opt("rate_max", s.Counter.RateMax)
		opt("rate_std", s.Counter.RateStd)
	case s.Histogram != nil:
		h := s.Histogram
		out["count"] = fmt.Sprintf("%d", h.Count)
		opt("count_rate", h.CountRate)
		opt("sum", h.Sum)
		opt("sum_rate", h.SumRate)
		opt("avg", h.Avg)
		opt("p1_estimate", h.P1)
		opt("p5_estimate", h.P5)
		opt("p10_estimate", h.P10)
		opt("p25_estimate", h.P25)
		opt("p50_estimate", h.P50)
		opt("p75_estimate", h.P75)
		opt("p90_estimate", h.P90)
		opt("p95_estimate", h.P95)
		opt("p99_estimate", h.P99)
	}
	return out
}
