package servermetrics

import (
	"fmt"
	"math"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// page renders one Prometheus text page of the test metrics.
func page(reqs, running float64, b [4]float64, sum float64) []byte {
	return fmt.Appendf(nil, `# HELP vllm:request_success_total Count of successfully completed requests.
# TYPE vllm:request_success_total counter
vllm:request_success_total{model_name="m"} %v
# HELP vllm:num_requests_running Number of requests currently being generated.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="m"} %v
# HELP vllm:e2e_request_latency_seconds End-to-end request latency in seconds.
# TYPE vllm:e2e_request_latency_seconds histogram
vllm:e2e_request_latency_seconds_bucket{le="0.1",model_name="m"} %v
vllm:e2e_request_latency_seconds_bucket{le="0.5",model_name="m"} %v
vllm:e2e_request_latency_seconds_bucket{le="1.0",model_name="m"} %v
vllm:e2e_request_latency_seconds_bucket{le="+Inf",model_name="m"} %v
vllm:e2e_request_latency_seconds_sum{model_name="m"} %v
vllm:e2e_request_latency_seconds_count{model_name="m"} %v
`, reqs, running, b[0], b[1], b[2], b[3], sum, b[3])
}

func add(t *testing.T, s *Store, atSec float64, body []byte) {
	t.Helper()
	fams, err := Parse(body)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	s.Add(int64(atSec*1e9), 1e6, body, fams)
}

func metric(t *testing.T, ms []sdk.ServerMetric, name string) sdk.ServerMetric {
	t.Helper()
	for _, m := range ms {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("metric %s missing; have %v", name, ms)
	return sdk.ServerMetric{}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// Three scrapes at 1 s, 2 s, 3 s; the window starts at 1.5 s, so the 1 s
// scrape is the counters' baseline and the gauge sees the other two.
// Expected percentiles are AIPerf 0.13's compute_estimated_percentiles on
// the same input (run in /tmp/aiperf-venv).
func TestStoreStatsMatchAIPerf(t *testing.T) {
	s := NewStore("http://h:1/metrics")
	add(t, s, 1, page(10, 1, [4]float64{2, 3, 4, 4}, 1.2))
	add(t, s, 2, page(15, 3, [4]float64{2, 6, 7, 8}, 4.0))
	add(t, s, 3, page(22, 2, [4]float64{3, 8, 10, 12}, 8.5))
	ms := s.Metrics(Window{StartNs: 1.5e9, EndNs: 3e9})

	c := metric(t, ms, "vllm:request_success") // _total dropped, as AIPerf
	if c.Type != sdk.PromCounter || c.Unit != "requests" || len(c.Series) != 1 {
		t.Fatalf("counter = %+v", c)
	}
	if cs := c.Series[0].Counter; cs.Total != 12 || !near(cs.Rate, 6) {
		t.Errorf("counter stats = %+v, want total 12 rate 6", cs)
	}

	g := metric(t, ms, "vllm:num_requests_running").Series[0].Gauge
	if g.Avg != 2.5 || g.Min != 2 || g.Max != 3 || !near(g.Std, math.Sqrt(0.5)) || g.P50 != 2.5 || !near(g.P99, 2.99) {
		t.Errorf("gauge stats = %+v", g)
	}

	h := metric(t, ms, "vllm:e2e_request_latency_seconds")
	if h.Unit != "seconds" {
		t.Errorf("unit = %q", h.Unit)
	}
	hs := h.Series[0]
	wantB := []sdk.HistogramBucket{{Le: "0.1", Count: 1}, {Le: "0.5", Count: 5}, {Le: "1", Count: 6}, {Le: "+Inf", Count: 8}}
	if fmt.Sprint(hs.Buckets) != fmt.Sprint(wantB) {
		t.Errorf("buckets = %v, want %v", hs.Buckets, wantB)
	}
	if hs.Histogram.Count != 8 || !near(*hs.Histogram.Sum, 7.3) || !near(*hs.Histogram.CountRate, 4) {
		t.Errorf("histogram stats = %+v", hs.Histogram)
	}
	want := []float64{0.057, 0.085, 0.12, 0.225, 0.4, 0.8125, 1.99, 3.145, 4.069}
	got := []*float64{hs.Histogram.P1, hs.Histogram.P5, hs.Histogram.P10, hs.Histogram.P25, hs.Histogram.P50,
		hs.Histogram.P75, hs.Histogram.P90, hs.Histogram.P95, hs.Histogram.P99}
	for i := range want {
		if got[i] == nil || math.Abs(*got[i]-want[i]) > 1e-9 {
			t.Errorf("percentile %d = %v, want %v", i, got[i], want[i])
		}
	}
}

// A bucket whose scrape interval held all its observations learns their
// mean (0.3 here), which moves the estimate, exactly as in AIPerf.
func TestEstimateWithLearnedBucketMean(t *testing.T) {
	s := NewStore("u")
	add(t, s, 1, page(0, 0, [4]float64{0, 0, 0, 0}, 0))
	add(t, s, 2, page(0, 0, [4]float64{0, 3, 3, 3}, 0.9))
	add(t, s, 3, page(0, 0, [4]float64{0, 5, 5, 5}, 1.5))
	add(t, s, 4, page(0, 0, [4]float64{1, 6, 7, 8}, 2.6))
	hs := metric(t, s.Metrics(Window{StartNs: 1.5e9, EndNs: 4e9}), "vllm:e2e_request_latency_seconds").Series[0].Histogram
	want := []float64{0.02923913043478261, 0.05054347826086957, 0.07717391304347827, 0.1, 0.18347826086956523,
		0.36510869565217396, 0.835, 1.1675, 1.4335}
	got := []*float64{hs.P1, hs.P5, hs.P10, hs.P25, hs.P50, hs.P75, hs.P90, hs.P95, hs.P99}
	for i := range want {
		if got[i] == nil || math.Abs(*got[i]-want[i]) > 1e-9 {
			t.Errorf("percentile %d = %v, want %v", i, *got[i], want[i])
		}
	}
}

// A counter that goes backwards (server restart) gives 0, never negative;
// an unchanged page is a fetch but not an update.
func TestCounterResetAndDuplicates(t *testing.T) {
	s := NewStore("u")
	add(t, s, 1, page(50, 0, [4]float64{}, 0))
	add(t, s, 2, page(50, 0, [4]float64{}, 0))
	add(t, s, 3, page(5, 0, [4]float64{}, 0))
	c := metric(t, s.Metrics(Window{StartNs: 1.5e9, EndNs: 3e9}), "vllm:request_success").Series[0].Counter
	if c.Total != 0 {
		t.Errorf("total after reset = %v, want 0", c.Total)
	}
	info := s.Info()
	if info.TotalFetches != 3 || info.UniqueUpdates != 2 || len(s.Records()) != 2 {
		t.Errorf("info = %+v records %d, want 3 fetches 2 updates", info, len(s.Records()))
	}
	if info.MedianUpdateIntervalMs != 2000 {
		t.Errorf("median update interval = %v, want 2000", info.MedianUpdateIntervalMs)
	}
}

func TestBuildWindows(t *testing.T) {
	s := NewStore("http://h:1/metrics")
	add(t, s, 1, page(0, 0, [4]float64{}, 0))   // before warmup
	add(t, s, 2.2, page(4, 0, [4]float64{}, 0)) // warmup boundary scrape, 0.2 s after it ended
	add(t, s, 5, page(30, 0, [4]float64{}, 0))  // final scrape after profiling
	res := Build([]*Store{s}, []string{s.URL, "http://down:2/metrics"}, Window{StartNs: 2.5e9, EndNs: 4.9e9},
		&Window{StartNs: 1.5e9, EndNs: 2e9}, []string{"json"})
	if res.WarmupEndNs != 2.2e9 {
		t.Errorf("warmup end = %d, want the boundary scrape 2.2e9", res.WarmupEndNs)
	}
	if len(res.EndpointsConfigured) != 2 || len(res.EndpointsSuccessful) != 1 {
		t.Errorf("endpoints = %v / %v", res.EndpointsConfigured, res.EndpointsSuccessful)
	}
	ep := res.Endpoints[0]
	if c := metric(t, ep.Metrics, "vllm:request_success").Series[0].Counter; c.Total != 26 {
		t.Errorf("profiling total = %v, want 26 (final scrape included)", c.Total)
	}
	if c := metric(t, ep.WarmupMetrics, "vllm:request_success").Series[0].Counter; c.Total != 4 {
		t.Errorf("warmup total = %v, want 4", c.Total)
	}
}

func TestInferUnit(t *testing.T) {
	for _, tc := range []struct{ name, desc, want string }{
		{"vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.", "ratio"},
		{"vllm:kv_cache_usage_perc", "KV-cache usage.", "percent"},
		{"vllm:num_requests_waiting", "Number of requests waiting.", "requests"},
		{"vllm:prompt_tokens", "Number of prefill tokens processed.", "tokens"},
		{"sglang:cache_hit_rate", "The prefix cache hit rate.", ""},
		{"x_latency", "Latency (in ms)", "milliseconds"},
	} {
		if got := InferUnit(tc.name, tc.desc); got != tc.want {
			t.Errorf("InferUnit(%q, %q) = %q, want %q", tc.name, tc.desc, got, tc.want)
		}
	}
}

func TestParseRejectsGarbage(t *testing.T) {
	if _, err := Parse([]byte("<html>not metrics</html>\n")); err == nil {
		t.Fatal("garbage parsed without error")
	}
}

// Per-phase info counts only the fetches in each window: warmup 1.5–2.2 s
// holds the 2.2 s scrape, profiling 2.5 s to the final 5 s scrape holds two.
func TestBuildPhaseInfo(t *testing.T) {
	s := NewStore("http://h:1/metrics")
	add(t, s, 1, page(0, 0, [4]float64{}, 0))
	add(t, s, 2.2, page(4, 0, [4]float64{}, 0))
	add(t, s, 3, page(10, 0, [4]float64{}, 0))
	add(t, s, 5, page(30, 0, [4]float64{}, 0))
	ep := Build([]*Store{s}, []string{s.URL}, Window{StartNs: 2.5e9, EndNs: 4.9e9}, &Window{StartNs: 1.5e9, EndNs: 2e9}, nil).Endpoints[0]
	tests := []struct {
		name          string
		info          sdk.ServerMetricsEndpointInfo
		fetches       int
		first, last   int64
		durationSecs  float64
		avgIntervalMs float64
	}{
		{"warmup", ep.WarmupInfo, 1, 2.2e9, 2.2e9, 0, 0},
		{"profiling", ep.ProfilingInfo, 2, 3e9, 5e9, 2, 2000},
		{"whole run", ep.Info, 4, 1e9, 5e9, 4, 1333.3333333333333},
	}
	for _, tt := range tests {
		i := tt.info
		if i.TotalFetches != tt.fetches || i.FirstFetchNs != tt.first || i.LastFetchNs != tt.last ||
			!near(i.DurationSeconds, tt.durationSecs) || !near(i.AvgUpdateIntervalMs, tt.avgIntervalMs) || !near(i.AvgFetchLatencyMs, 1) {
			t.Errorf("%s info = %+v, want %d fetches %d..%d, %v s, %v ms apart", tt.name, i, tt.fetches, tt.first, tt.last, tt.durationSecs, tt.avgIntervalMs)
		}
	}
}
