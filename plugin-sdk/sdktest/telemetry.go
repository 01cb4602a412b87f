package sdktest

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// collectorDeadline bounds one Sample or Scrape: the core samples every
// 333 ms and gives a call 5 s before it counts the source as failed.
const collectorDeadline = 5 * time.Second

// GPUCollector checks an sdk.GPUTelemetryCollector in process: it names a
// source, a sample returns within the core's deadline without panicking,
// every reading identifies its GPU (index not negative, a UUID, no two
// alike) and carries finite values under non-empty names, and a cancelled
// context is answered promptly.
func GPUCollector(t testing.TB, c sdk.GPUTelemetryCollector) {
	t.Helper()
	if c == nil {
		t.Errorf("sdktest: GPUCollector: nil collector")
		return
	}
	checkSource(t, c.Source())
	ctx, cancel := context.WithTimeout(context.Background(), collectorDeadline)
	defer cancel()
	gpus, ok, err := call(t, "Sample", func() ([]sdk.GPUReading, error) { return c.Sample(ctx) })
	if !ok {
		return
	}
	if err != nil {
		t.Errorf("sdktest: Sample returned error: %v (a collector that cannot read its GPUs now says so, and the run goes on)", err)
		return
	}
	seen := map[string]bool{}
	for i, g := range gpus {
		switch {
		case g.Index < 0:
			t.Errorf("sdktest: Sample: reading %d: index %d is negative", i, g.Index)
		case g.UUID == "":
			t.Errorf("sdktest: Sample: reading %d (GPU %d): no UUID: the exports key GPUs by it", i, g.Index)
		case seen[g.UUID]:
			t.Errorf("sdktest: Sample: reading %d: UUID %s reported twice in one sample", i, g.UUID)
		}
		seen[g.UUID] = true
		for name, v := range g.Metrics {
			if strings.TrimSpace(name) == "" {
				t.Errorf("sdktest: Sample: GPU %s: a metric with an empty name", g.UUID)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("sdktest: Sample: GPU %s: metric %s is %v: leave a value out when the GPU does not report it", g.UUID, name, v)
			}
		}
	}
	checkCancelled(t, "Sample", func(ctx context.Context) error { _, err := c.Sample(ctx); return err })
}

// ServerMetricsCollector checks an sdk.ServerMetricsCollector in process:
// it names a source, a scrape returns within the core's deadline without
// panicking, with a body, and a cancelled context is answered promptly.
// The body's format is the core's to parse (Prometheus text or
// OpenMetrics); what it cannot parse becomes a warning at run time.
func ServerMetricsCollector(t testing.TB, c sdk.ServerMetricsCollector) {
	t.Helper()
	if c == nil {
		t.Errorf("sdktest: ServerMetricsCollector: nil collector")
		return
	}
	checkSource(t, c.Source())
	ctx, cancel := context.WithTimeout(context.Background(), collectorDeadline)
	defer cancel()
	sc, ok, err := call(t, "Scrape", func() (sdk.ServerMetricsScrape, error) { return c.Scrape(ctx) })
	switch {
	case !ok:
		return
	case err != nil:
		t.Errorf("sdktest: Scrape returned error: %v", err)
	case len(sc.Body) == 0:
		t.Errorf("sdktest: Scrape: empty body: a scrape carries the metrics page")
	}
	checkCancelled(t, "Scrape", func(ctx context.Context) error { _, err := c.Scrape(ctx); return err })
}

func checkSource(t testing.TB, src string) {
	t.Helper()
	if strings.TrimSpace(src) == "" {
		t.Errorf("sdktest: Source() is empty: warnings and exports name the source by it (a URL, or e.g. pynvml://localhost)")
	}
	if strings.Contains(src, "@") {
		t.Errorf("sdktest: Source() %q looks like it carries credentials: it is written to the exports and logs", src)
	}
}

// checkCancelled calls f with a context that is already done: it must
// return within a second (an error or not), so a run's end is not held up.
func checkCancelled(t testing.TB, method string, f func(context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { _ = recover() }()
		_ = f(ctx)
	}()
	select {
	case <-done:
	case <-time.After(time.Second):
		t.Errorf("sdktest: %s with a cancelled context did not return within 1 s", method)
	}
}
