package telemetry

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// httpCollector is a minimal server_metrics_collector over real HTTP (the
// core's tests must not import the prometheus plugin).
type httpCollector struct{ url string }

func (c httpCollector) Source() string { return c.url }
func (c httpCollector) Scrape(ctx context.Context) (sdk.ServerMetricsScrape, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return sdk.ServerMetricsScrape{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return sdk.ServerMetricsScrape{}, fmt.Errorf("scrape %s: %w", c.url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return sdk.ServerMetricsScrape{Body: b, ContentType: resp.Header.Get("Content-Type")}, err
}

type gpuFake struct{ n atomic.Int64 }

func (g *gpuFake) Source() string { return "fake://gpu" }
func (g *gpuFake) Sample(context.Context) ([]sdk.GPUReading, error) {
	n := g.n.Add(1)
	return []sdk.GPUReading{{Index: 0, UUID: "GPU-0", Metrics: map[string]float64{"nvidia_power_usage": float64(n)}}}, nil
}

// syncBuffer is a log sink safe for the sampler's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A good target is sampled while a down one, one slower than the timeout
// and one answering garbage each give one warning naming their URL, and
// the sampler still returns everything collected.
func TestSamplerToleratesBadTargets(t *testing.T) {
	var hits atomic.Int64
	good := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n := hits.Add(1)
		fmt.Fprintf(w, "# TYPE reqs_total counter\nreqs_total %d\n# TYPE running gauge\nrunning %d\n", n*10, n%3)
	}))
	defer good.Close()
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(release)
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "<html>this is not prometheus</html>\n")
	}))
	defer garbage.Close()
	// Port 1 refuses connections (a closed test server's port could be
	// reused by a parallel test).
	downURL := "http://127.0.0.1:1/metrics"

	var logs syncBuffer
	gpu := &gpuFake{}
	s := New([]sdk.GPUTelemetryCollector{gpu}, []sdk.ServerMetricsCollector{
		httpCollector{good.URL + "/metrics"}, httpCollector{downURL},
		httpCollector{slow.URL + "/metrics"}, httpCollector{garbage.URL + "/metrics"},
	}, Options{Interval: 5 * time.Millisecond, Timeout: 50 * time.Millisecond, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	s.Start(context.Background())
	for deadline := time.Now().Add(10 * time.Second); hits.Load() < 5 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	s.Boundary()
	res := s.Stop()

	out := logs.String()
	for _, u := range []string{downURL, slow.URL + "/metrics", garbage.URL + "/metrics"} {
		if n := strings.Count(out, "url="+u); n != 1 {
			t.Errorf("warnings naming %s: %d, want 1\n%s", u, n, out)
		}
	}
	if strings.Contains(out, "url="+good.URL+"/metrics ") {
		t.Errorf("the good target was warned about:\n%s", out)
	}
	if len(res.Server) != 4 || res.ServerSources[0] != good.URL+"/metrics" {
		t.Fatalf("server results = %v", res.ServerSources)
	}
	if info := res.Server[0].Info(); info.TotalFetches < 5 {
		t.Errorf("good target fetches = %d, want >= 5", info.TotalFetches)
	}
	for i := 1; i < 4; i++ {
		if f := res.Server[i].Info().TotalFetches; f != 0 {
			t.Errorf("source %s stored %d fetches, want 0", res.ServerSources[i], f)
		}
	}
	if len(res.GPU) != 1 || len(res.GPU[0].Samples) < 2 {
		t.Fatalf("GPU series = %+v", res.GPU)
	}
	smp := res.GPU[0].Samples
	for i := 1; i < len(smp); i++ {
		if smp[i].PerfNs <= smp[i-1].PerfNs || smp[i].TimestampNs-smp[i].PerfNs != smp[0].TimestampNs-smp[0].PerfNs {
			t.Fatalf("sample %d perf_ns %d after %d (wall %d): want increasing, one clock", i, smp[i].PerfNs, smp[i-1].PerfNs, smp[i].TimestampNs)
		}
	}
}

// A sampler with no collectors is a no-op, nil included.
func TestEmptySampler(t *testing.T) {
	var nilS *Sampler
	nilS.Start(context.Background())
	nilS.Boundary()
	if r := nilS.Stop(); r.GPU != nil || r.Server != nil {
		t.Errorf("nil sampler result = %+v", r)
	}
	s := New(nil, nil, Options{})
	s.Start(context.Background())
	if !s.Empty() {
		t.Error("sampler without collectors is not empty")
	}
}

// A source the user did not ask for (a default DCGM endpoint) that is not
// there is an info line, not a warning.
func TestOptionalSourceFailsQuietly(t *testing.T) {
	downURL := "http://127.0.0.1:1/metrics"
	var logs syncBuffer
	s := New(nil, []sdk.ServerMetricsCollector{httpCollector{downURL}},
		Options{Interval: 5 * time.Millisecond, Timeout: 50 * time.Millisecond, Log: slog.New(slog.NewTextHandler(&logs, nil)),
			Optional: map[string]bool{downURL: true}})
	s.Start(context.Background())
	s.Stop()
	out := logs.String()
	if !strings.Contains(out, "level=INFO") || !strings.Contains(out, "url="+downURL) || strings.Contains(out, "level=WARN") {
		t.Errorf("log:\n%s\nwant one INFO line naming %s and no warning", out, downURL)
	}
}

func TestLatestIsTheNewestReadingOfEveryGPU(t *testing.T) {
	var nilS *Sampler
	if nilS.Latest() != nil || nilS.ServerSources() != nil {
		t.Error("nil sampler has live readings")
	}
	g := &gpuFake{}
	s := New([]sdk.GPUTelemetryCollector{g}, nil, Options{Interval: time.Hour})
	if s.Latest() != nil {
		t.Error("readings before the first sample")
	}
	s.Start(context.Background())
	s.Boundary() // a second sample, waited for
	got := s.Latest()
	r := s.Stop()
	if len(got) != 1 || got[0].Source != "fake://gpu" || got[0].PowerW != float64(len(r.GPU[0].Samples)-1) {
		t.Fatalf("latest %+v after %d samples: want power = the newest sample's", got, len(r.GPU[0].Samples))
	}
	if !math.IsNaN(got[0].TempC) || !math.IsNaN(got[0].UtilPct) {
		t.Errorf("metrics the GPU did not report are %v, %v; want NaN", got[0].TempC, got[0].UtilPct)
	}
}
