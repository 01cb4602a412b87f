package mockserver

import (
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
)

// maxModelLabels bounds label cardinality: clients choose model names freely.
const maxModelLabels = 64

// overflowModel is the label used once maxModelLabels models were seen.
const overflowModel = "other"

// serverMetrics exposes vLLM-style metrics on a private registry so several
// in-process servers (tests) never collide in the global one.
type serverMetrics struct {
	registry *prometheus.Registry

	running          *prometheus.GaugeVec
	waiting          *prometheus.GaugeVec
	promptTokens     *prometheus.CounterVec
	generationTokens *prometheus.CounterVec
	success          *prometheus.CounterVec
	ttft             *prometheus.HistogramVec
	e2e              *prometheus.HistogramVec
	promptHist       *prometheus.HistogramVec
	generationHist   *prometheus.HistogramVec
	injectedErrors   prometheus.Counter
	badRequests      prometheus.Counter

	mu     sync.RWMutex
	models map[string]*modelMetrics
}

// modelMetrics are one model's resolved series, so the request path does no
// label hashing.
type modelMetrics struct {
	name                        string
	running                     prometheus.Gauge
	promptTokens, genTokens     prometheus.Counter
	successStop, successLength  prometheus.Counter
	ttft, e2e, promptH, genHist prometheus.Observer
}

var (
	ttftBuckets  = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}
	e2eBuckets   = []float64{0.01, 0.05, 0.1, 0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 60}
	tokenBuckets = []float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000}
)

func newServerMetrics() *serverMetrics {
	labels := []string{"model_name"}
	m := &serverMetrics{
		registry: prometheus.NewRegistry(),
		running: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "vllm:num_requests_running", Help: "Number of requests currently being generated.",
		}, labels),
		waiting: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "vllm:num_requests_waiting", Help: "Number of requests waiting (always 0: the mock has no queue).",
		}, labels),
		promptTokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vllm:prompt_tokens_total", Help: "Number of prefill tokens processed.",
		}, labels),
		generationTokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vllm:generation_tokens_total", Help: "Number of generation tokens sent.",
		}, labels),
		success: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vllm:request_success_total", Help: "Count of successfully completed requests.",
		}, []string{"model_name", "finished_reason"}),
		ttft: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "vllm:time_to_first_token_seconds", Help: "Time to first token in seconds.", Buckets: ttftBuckets,
		}, labels),
		e2e: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "vllm:e2e_request_latency_seconds", Help: "End-to-end request latency in seconds.", Buckets: e2eBuckets,
		}, labels),
		promptHist: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "vllm:request_prompt_tokens", Help: "Prompt tokens per request.", Buckets: tokenBuckets,
		}, labels),
		generationHist: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "vllm:request_generation_tokens", Help: "Generation tokens per request.", Buckets: tokenBuckets,
		}, labels),
		injectedErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mock:injected_errors_total", Help: "Requests answered with a simulated HTTP 500 (--error-rate).",
		}),
		badRequests: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mock:bad_requests_total", Help: "Requests rejected with HTTP 400.",
		}),
		models: make(map[string]*modelMetrics),
	}
	m.registry.MustRegister(m.running, m.waiting, m.promptTokens, m.generationTokens, m.success,
		m.ttft, m.e2e, m.promptHist, m.generationHist, m.injectedErrors, m.badRequests,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "vllm:kv_cache_usage_perc", Help: "KV-cache usage. 1 means 100 percent usage.",
		}, m.kvCacheUsage))
	return m
}

// kvCapacityRequests is the mock's notional KV cache size, in requests: the
// usage gauge is the running requests over it (capped at 1), so it moves
// with the load and is the same for the same load every time.
const kvCapacityRequests = 256

// kvCacheUsage reads the running-requests gauges of every model at scrape
// time (the request path stays untouched).
func (m *serverMetrics) kvCacheUsage() float64 {
	ch := make(chan prometheus.Metric, maxModelLabels+1)
	m.running.Collect(ch)
	close(ch)
	var running float64
	for metric := range ch {
		var pb dto.Metric
		if err := metric.Write(&pb); err == nil && pb.Gauge != nil {
			running += pb.Gauge.GetValue()
		}
	}
	return min(running/kvCapacityRequests, 1)
}

// forModel returns the series of a model, creating them on first use.
func (m *serverMetrics) forModel(model string) *modelMetrics {
	m.mu.RLock()
	mm, ok := m.models[model]
	m.mu.RUnlock()
	if ok {
		return mm
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if mm, ok := m.models[model]; ok {
		return mm
	}
	name := model
	if len(m.models) >= maxModelLabels {
		if mm, ok := m.models[overflowModel]; ok {
			return mm
		}
		name = overflowModel
	}
	mm = &modelMetrics{
		name:          name,
		running:       m.running.WithLabelValues(name),
		promptTokens:  m.promptTokens.WithLabelValues(name),
		genTokens:     m.generationTokens.WithLabelValues(name),
		successStop:   m.success.WithLabelValues(name, "stop"),
		successLength: m.success.WithLabelValues(name, "length"),
		ttft:          m.ttft.WithLabelValues(name),
		e2e:           m.e2e.WithLabelValues(name),
		promptH:       m.promptHist.WithLabelValues(name),
		genHist:       m.generationHist.WithLabelValues(name),
	}
	m.waiting.WithLabelValues(name).Set(0)
	m.models[name] = mm
	return mm
}

// seenModels lists the model names requested so far, sorted.
func (m *serverMetrics) seenModels() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]string, 0, len(m.models))
	for name := range m.models {
		if name != overflowModel {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// finished records one completed request.
func (mm *modelMetrics) finished(start time.Time, prompt, generated int, finish string) {
	mm.promptTokens.Add(float64(prompt))
	mm.genTokens.Add(float64(generated))
	mm.promptH.Observe(float64(prompt))
	mm.genHist.Observe(float64(generated))
	if finish == "length" {
		mm.successLength.Inc()
	} else {
		mm.successStop.Inc()
	}
	mm.e2e.Observe(time.Since(start).Seconds())
}

func (m *serverMetrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// aborted records a request the client abandoned mid-generation: its prompt
// was processed and some tokens were sent, but it did not succeed.
func (mm *modelMetrics) aborted(prompt, generated int) {
	mm.promptTokens.Add(float64(prompt))
	mm.genTokens.Add(float64(generated))
}
