// Package servermetrics turns the scrapes of Prometheus /metrics endpoints
// into AIPerf 0.13's server-metrics results (server_metrics/storage.py,
// export_stats.py, histogram_percentiles.py, units.py): counters as deltas
// over a phase window, gauges as statistics over its samples, histograms as
// bucket deltas with estimated percentiles.
package servermetrics

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"math"
	"sort"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Parse reads a Prometheus text exposition body into metric families. The
// OpenMetrics "# EOF" line is tolerated (the text parser rejects it).
func Parse(body []byte) (map[string]*dto.MetricFamily, error) {
	body = bytes.ReplaceAll(body, []byte("\n# EOF"), nil)
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	return fams, nil
}

// Store holds one endpoint's scrapes as time series (timestamps are epoch
// ns, in the order they were added).
type Store struct {
	URL string

	fetchTs, fetchLat []int64
	updates           []int64
	lastHash          uint64
	records           []sdk.ServerMetricsScrapeRecord

	families map[string]*family
}

type family struct {
	typ, help string
	series    map[string]*series
}

type series struct {
	labels map[string]string
	ts     []int64
	vals   []float64 // gauges and counters
	// histograms
	les     []string
	sums    []float64
	counts  []float64
	buckets [][]float64 // per sample, cumulative, aligned with les
}

// NewStore returns an empty store for url.
func NewStore(url string) *Store { return &Store{URL: url, families: map[string]*family{}} }

// Add stores one scrape taken at wallNs (epoch ns), which took latencyNs.
// body is hashed to spot unchanged scrapes (AIPerf's duplicate detection).
func (s *Store) Add(wallNs, latencyNs int64, body []byte, fams map[string]*dto.MetricFamily) {
	if len(fams) == 0 {
		return
	}
	s.fetchTs = append(s.fetchTs, wallNs)
	s.fetchLat = append(s.fetchLat, latencyNs)
	h := fnv.New64a()
	h.Write(body)
	sum := h.Sum64()
	dup := len(s.updates) > 0 && sum == s.lastHash
	s.lastHash = sum
	rec := sdk.ServerMetricsScrapeRecord{TimestampNs: wallNs, EndpointLatencyNs: latencyNs, RequestSentNs: wallNs - latencyNs,
		Metrics: map[string][]sdk.ServerMetricSample{}}
	for rawName, mf := range fams {
		typ, name := familyType(mf.GetType(), rawName)
		if typ == "" {
			continue // summaries: AIPerf skips them too
		}
		f := s.families[name]
		if f == nil {
			f = &family{typ: typ, help: mf.GetHelp(), series: map[string]*series{}}
			s.families[name] = f
		}
		for _, m := range mf.GetMetric() {
			labels := make(map[string]string, len(m.GetLabel()))
			for _, lp := range m.GetLabel() {
				labels[lp.GetName()] = lp.GetValue()
			}
			key := labelKey(labels)
			sr := f.series[key]
			if sr == nil {
				sr = &series{labels: labels}
				f.series[key] = sr
			}
			sm := sdk.ServerMetricSample{Labels: labels}
			switch typ {
			case sdk.PromHistogram:
				h := m.GetHistogram()
				if sr.les == nil {
					for _, b := range h.GetBucket() {
						if !math.IsInf(b.GetUpperBound(), 1) {
							sr.les = append(sr.les, formatLe(b.GetUpperBound()))
						}
					}
					sr.les = append(sr.les, "+Inf")
				}
				// The text parser lists the +Inf bucket when the page has
				// one; the sample count stands in when it does not.
				byLe := map[string]float64{"+Inf": float64(h.GetSampleCount())}
				for _, b := range h.GetBucket() {
					byLe[formatLe(b.GetUpperBound())] = float64(b.GetCumulativeCount())
				}
				row := make([]float64, len(sr.les))
				for i, le := range sr.les {
					row[i] = byLe[le]
					sm.Buckets = append(sm.Buckets, sdk.HistogramBucket{Le: le, Count: row[i]})
				}
				sr.ts = append(sr.ts, wallNs)
				sr.sums = append(sr.sums, h.GetSampleSum())
				sr.counts = append(sr.counts, float64(h.GetSampleCount()))
				sr.buckets = append(sr.buckets, row)
				sm.Sum, sm.Count = ptr(h.GetSampleSum()), ptr(float64(h.GetSampleCount()))
			default:
				v := metricValue(m)
				sr.ts = append(sr.ts, wallNs)
				sr.vals = append(sr.vals, v)
				sm.Value = ptr(v)
			}
			rec.Metrics[name] = append(rec.Metrics[name], sm)
		}
	}
	if !dup {
		s.updates = append(s.updates, wallNs)
		s.records = append(s.records, rec)
	}
}

func ptr(f float64) *float64 { return &f }

// familyType maps a parsed family to AIPerf's type and name: a counter's
// "_total" suffix is dropped, as Python's prometheus_client parser does.
func familyType(t dto.MetricType, name string) (string, string) {
	switch t {
	case dto.MetricType_COUNTER:
		return sdk.PromCounter, strings.TrimSuffix(name, "_total")
	case dto.MetricType_GAUGE:
		return sdk.PromGauge, name
	case dto.MetricType_HISTOGRAM:
		return sdk.PromHistogram, name
	case dto.MetricType_UNTYPED:
		return sdk.PromUnknown, name
	}
	return "", name
}

func metricValue(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Untyped != nil:
		return m.Untyped.GetValue()
	}
	return math.NaN()
}

// formatLe writes a bucket bound as Python's prometheus_client keeps it for
// Go-client output: shortest form, integers without ".0" ("1", "0.1").
func formatLe(f float64) string {
	if math.IsInf(f, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func labelKey(labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%q,", k, labels[k])
	}
	return b.String()
}

// Window is a phase's time range, epoch ns, both ends inclusive.
type Window struct{ StartNs, EndNs int64 }

// LastUpdateNs is the time of the newest scrape whose content changed.
func (s *Store) LastUpdateNs() int64 {
	if len(s.updates) == 0 {
		return 0
	}
	return s.updates[len(s.updates)-1]
}

// Info summarises the fetches (AIPerf's _compute_endpoint_info, unfiltered).
func (s *Store) Info() sdk.ServerMetricsEndpointInfo {
	return endpointInfo(s.fetchTs, s.fetchLat, s.updates)
}

// InfoIn is Info over the fetches and updates inside w (inclusive), as
// AIPerf's per-phase summaries count them.
func (s *Store) InfoIn(w Window) sdk.ServerMetricsEndpointInfo {
	var ts, lat, upd []int64
	for i, t := range s.fetchTs {
		if t >= w.StartNs && t <= w.EndNs {
			ts, lat = append(ts, t), append(lat, s.fetchLat[i])
		}
	}
	for _, t := range s.updates {
		if t >= w.StartNs && t <= w.EndNs {
			upd = append(upd, t)
		}
	}
	return endpointInfo(ts, lat, upd)
}

func endpointInfo(fetchTs, fetchLat, updates []int64) sdk.ServerMetricsEndpointInfo {
	var info sdk.ServerMetricsEndpointInfo
	info.TotalFetches = len(fetchTs)
	if info.TotalFetches == 0 {
		return info
	}
	info.FirstFetchNs, info.LastFetchNs = fetchTs[0], fetchTs[len(fetchTs)-1]
	var lat float64
	for _, l := range fetchLat {
		lat += float64(l)
	}
	info.AvgFetchLatencyMs = lat / float64(len(fetchLat)) / 1e6
	u := append([]int64(nil), updates...)
	sort.Slice(u, func(i, j int) bool { return u[i] < u[j] })
	info.UniqueUpdates = len(u)
	if len(u) > 0 {
		info.FirstUpdateNs, info.LastUpdateNs = u[0], u[len(u)-1]
		info.DurationSeconds = float64(u[len(u)-1]-u[0]) / 1e9
	}
	if len(u) > 1 {
		info.AvgUpdateIntervalMs = info.DurationSeconds * 1000 / float64(len(u)-1)
		d := make([]float64, len(u)-1)
		for i := 1; i < len(u); i++ {
			d[i-1] = float64(u[i]-u[i-1]) / 1e6
		}
		info.MedianUpdateIntervalMs = percentile(d, 50)
	}
	return info
}

// Records are the changed scrapes, for the JSONL export.
func (s *Store) Records() []sdk.ServerMetricsScrapeRecord { return s.records }

// Metrics computes every family's statistics over w, sorted by name; a
// series with no sample in w is left out, as AIPerf does.
func (s *Store) Metrics(w Window) []sdk.ServerMetric { return s.MetricsSliced(w, 0) }

// MetricsSliced is Metrics with each series' timeslices of sliceSec
// seconds (--slice-duration); 0 computes none.
func (s *Store) MetricsSliced(w Window, sliceSec float64) []sdk.ServerMetric {
	names := make([]string, 0, len(s.families))
	for n := range s.families {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []sdk.ServerMetric
	for _, n := range names {
		f := s.families[n]
		m := sdk.ServerMetric{Name: n, Type: f.typ, Description: f.help, Unit: InferUnit(n, f.help)}
		keys := make([]string, 0, len(f.series))
		for k := range f.series {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if ss, ok := f.series[k].stats(f.typ, w, sliceSec); ok {
				m.Series = append(m.Series, ss)
			}
		}
		if len(m.Series) > 0 {
			out = append(out, m)
		}
	}
	return out
}
