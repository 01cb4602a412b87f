package sdk

// Server-metrics results (issue 12): what the core computed from the
// scrapes of every server_metrics_collector source, in AIPerf 0.13's
// shapes (server_metrics_models.py), for the server_metrics_* exporters.

// ServerMetricsResults is the run's server metrics: AIPerf's
// ServerMetricsResults. StartNs/EndNs bound the profiling window and
// WarmupStartNs/WarmupEndNs the warmup one (epoch ns; the ends extended
// to the boundary scrape taken when the phase ended, as AIPerf does);
// warmup bounds are 0 without a warmup phase.
type ServerMetricsResults struct {
	EndpointsConfigured []string
	EndpointsSuccessful []string
	StartNs, EndNs      int64
	WarmupStartNs       int64
	WarmupEndNs         int64
	// Endpoints are sorted by URL.
	Endpoints []ServerMetricsEndpoint
	// Formats are the --server-metrics-formats chosen (json, csv, jsonl,
	// parquet); the exporters write only theirs.
	Formats []string
}

// HasFormat says whether f was chosen with --server-metrics-formats.
func (r *ServerMetricsResults) HasFormat(f string) bool {
	if r == nil {
		return false
	}
	for _, g := range r.Formats {
		if g == f {
			return true
		}
	}
	return false
}

// ServerMetricsEndpoint is one source's summary.
type ServerMetricsEndpoint struct {
	URL  string
	Info ServerMetricsEndpointInfo
	// Metrics are the profiling window's, WarmupMetrics the warmup
	// window's (nil without warmup); both sorted by name.
	Metrics       []ServerMetric
	WarmupMetrics []ServerMetric
	// ProfilingInfo and WarmupInfo count only the fetches inside each
	// phase's window (AIPerf's phases/<phase>/server_metrics.json); Info
	// counts them all.
	ProfilingInfo ServerMetricsEndpointInfo
	WarmupInfo    ServerMetricsEndpointInfo
	// Scrapes are the scrapes whose content changed, in time order
	// (AIPerf's server_metrics_export.jsonl lines).
	Scrapes []ServerMetricsScrapeRecord
}

// ServerMetricsEndpointInfo is AIPerf's ServerMetricsEndpointInfo.
type ServerMetricsEndpointInfo struct {
	TotalFetches           int     `json:"total_fetches"`
	FirstFetchNs           int64   `json:"first_fetch_ns"`
	LastFetchNs            int64   `json:"last_fetch_ns"`
	AvgFetchLatencyMs      float64 `json:"avg_fetch_latency_ms"`
	UniqueUpdates          int     `json:"unique_updates"`
	FirstUpdateNs          int64   `json:"first_update_ns"`
	LastUpdateNs           int64   `json:"last_update_ns"`
	DurationSeconds        float64 `json:"duration_seconds"`
	AvgUpdateIntervalMs    float64 `json:"avg_update_interval_ms"`
	MedianUpdateIntervalMs float64 `json:"median_update_interval_ms"`
}

// Prometheus metric types as AIPerf writes them.
const (
	PromGauge     = "gauge"
	PromCounter   = "counter"
	PromHistogram = "histogram"
	PromUnknown   = "unknown"
)

// ServerMetric is one metric family of one endpoint. Name is as AIPerf's
// parser gives it: a counter's "_total" suffix removed.
type ServerMetric struct {
	Name        string
	Type        string // PromGauge, PromCounter, PromHistogram or PromUnknown
	Description string
	Unit        string // display name ("seconds", "tokens"); "" when unknown
	Series      []ServerMetricSeries
}

// ServerMetricSeries is one label set's statistics; exactly one of Gauge,
// Counter, Histogram is set (Gauge for unknown-typed metrics too).
type ServerMetricSeries struct {
	Labels    map[string]string
	Gauge     *GaugeStats
	Counter   *CounterStats
	Histogram *HistogramStats
	// Buckets are a histogram's bucket deltas over the window (cumulative,
	// "+Inf" last); nil when a bucket went backwards (a reset).
	Buckets []HistogramBucket
	// Timeslices are the series per --slice-duration window (AIPerf's
	// timeslices); nil without a slice duration or without enough samples.
	Timeslices []ServerMetricTimeslice
}

// ServerMetricTimeslice is one --slice-duration window of a series
// (AIPerf's CounterTimeslice, GaugeTimeslice, HistogramTimeslice: the
// series' type says which fields are meaningful). Partial marks the last,
// shorter slice; partial slices are left out of the counter rate_* stats.
type ServerMetricTimeslice struct {
	StartNs, EndNs int64
	Partial        bool
	// Counter: the increase and its rate per second.
	Total, Rate float64
	// Gauge: Avg, Min, Max over the slice's samples; histogram: Avg is
	// Sum/Count.
	Avg, Min, Max float64
	// Histogram: the count and sum deltas and the bucket deltas (nil on a
	// bucket reset).
	Count   int64
	Sum     float64
	Buckets []HistogramBucket
}

// GaugeStats are a gauge's statistics over the window's samples.
type GaugeStats struct {
	Avg float64 `json:"avg"`
	Min float64 `json:"min"`
	Max float64 `json:"max"`
	Std float64 `json:"std"`
	P1  float64 `json:"p1"`
	P5  float64 `json:"p5"`
	P10 float64 `json:"p10"`
	P25 float64 `json:"p25"`
	P50 float64 `json:"p50"`
	P75 float64 `json:"p75"`
	P90 float64 `json:"p90"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
}

// CounterStats are a counter's delta over the window and its rate per
// second; the Rate* stats are over the complete timeslices' rates (nil
// without --slice-duration or without a complete slice, as in AIPerf).
type CounterStats struct {
	Total   float64  `json:"total"`
	Rate    float64  `json:"rate"`
	RateAvg *float64 `json:"rate_avg,omitempty"`
	RateMin *float64 `json:"rate_min,omitempty"`
	RateMax *float64 `json:"rate_max,omitempty"`
	RateStd *float64 `json:"rate_std,omitempty"`
}

// HistogramStats are a histogram's deltas over the window and percentiles
// estimated from the buckets (AIPerf's polynomial histogram estimate);
// nil fields are absent (no observations, or no duration).
type HistogramStats struct {
	Count     int64    `json:"count"`
	Sum       *float64 `json:"sum,omitempty"`
	Avg       *float64 `json:"avg,omitempty"`
	CountRate *float64 `json:"count_rate,omitempty"`
	SumRate   *float64 `json:"sum_rate,omitempty"`
	P1        *float64 `json:"p1_estimate,omitempty"`
	P5        *float64 `json:"p5_estimate,omitempty"`
	P10       *float64 `json:"p10_estimate,omitempty"`
	P25       *float64 `json:"p25_estimate,omitempty"`
	P50       *float64 `json:"p50_estimate,omitempty"`
	P75       *float64 `json:"p75_estimate,omitempty"`
	P90       *float64 `json:"p90_estimate,omitempty"`
	P95       *float64 `json:"p95_estimate,omitempty"`
	P99       *float64 `json:"p99_estimate,omitempty"`
}

// HistogramBucket is one cumulative bucket: Le as the server wrote it
// ("0.1", "+Inf").
type HistogramBucket struct {
	Le    string
	Count float64
}

// ServerMetricsScrapeRecord is one scrape as AIPerf's JSONL writes it.
type ServerMetricsScrapeRecord struct {
	TimestampNs       int64
	EndpointLatencyNs int64
	RequestSentNs     int64
	// Metrics are the samples by metric name.
	Metrics map[string][]ServerMetricSample
}

// ServerMetricSample is one label set's value in a scrape: Value for
// gauges and counters, Buckets/Sum/Count for histograms.
type ServerMetricSample struct {
	Labels  map[string]string
	Value   *float64
	Buckets []HistogramBucket
	Sum     *float64
	Count   *float64
}
