package live

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/internal/testfixtures"
	"github.com/aiperf-go/aiperf/core/metrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func catalog(t *testing.T, streaming bool) *metrics.Catalog {
	t.Helper()
	cat, err := metrics.NewCatalog([]metrics.Declared{{Plugin: "metric_record", Specs: testfixtures.RecordSpecs()}},
		sdk.RunInfo{Streaming: streaming, Endpoint: sdk.EndpointMetadata{ProducesTokens: true, TokenizesInput: true}})
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// record is a successful record of phase with TTFT and latency in ns.
func record(phase string, ttftMs, latencyMs, osl float64) *sdk.RecordMetrics {
	return &sdk.RecordMetrics{Record: &sdk.RequestRecord{Phase: phase}, Values: map[string]sdk.MetricValue{
		testfixtures.TagTTFT:           {Scalar: ttftMs * 1e6},
		testfixtures.TagRequestLatency: {Scalar: latencyMs * 1e6},
		testfixtures.TagOSL:            {Scalar: osl},
	}}
}

func failed(phase, typ string) *sdk.RecordMetrics {
	return &sdk.RecordMetrics{Record: &sdk.RequestRecord{Phase: phase, Error: &sdk.ErrorDetails{Type: typ, Message: "x"}}}
}

func byTag(ms []sdk.LiveMetric) map[string]sdk.LiveMetric {
	out := map[string]sdk.LiveMetric{}
	for _, m := range ms {
		out[m.Tag] = m
	}
	return out
}

func TestTapShowsTheStreamingMetricsInOrderAndInDisplayUnits(t *testing.T) {
	tap := NewTap(catalog(t, true))
	for i := 1; i <= 100; i++ { // TTFT 1..100 ms, latency 10x
		tap.Add(record(sdk.PhaseProfiling, float64(i), float64(10*i), 20))
	}
	tap.Add(failed(sdk.PhaseProfiling, "HTTPError"))
	tap.Add(failed(sdk.PhaseProfiling, "HTTPError"))
	tap.Add(failed(sdk.PhaseProfiling, "ReadTimeout"))

	ms, reqs, toks, errs := tap.View(sdk.PhaseProfiling, 4*time.Second)
	var tags []string
	for _, m := range ms {
		tags = append(tags, m.Tag)
	}
	if want := []string{"time_to_first_token", "inter_token_latency", "request_latency", "output_sequence_length"}; !slices.Equal(tags, want) {
		t.Fatalf("tags %v, want %v", tags, want)
	}
	got := byTag(ms)
	ttft := got["time_to_first_token"]
	if ttft.Unit != "ms" || ttft.Count != 100 || ttft.Min != 1 || ttft.Max != 100 || ttft.Avg != 50.5 {
		t.Errorf("TTFT %+v: want ms, 100 values, min 1, max 100, avg 50.5 (exact)", ttft)
	}
	for _, c := range []struct{ got, want float64 }{{ttft.P50, 50}, {ttft.P90, 90}, {ttft.P99, 99}} {
		if math.Abs(c.got-c.want) > RelativeAccuracy*c.want+1e-9 {
			t.Errorf("TTFT percentile %v, want %v within %.0f%%", c.got, c.want, RelativeAccuracy*100)
		}
	}
	if lat := got["request_latency"]; lat.Max != 1000 || lat.Count != 100 {
		t.Errorf("latency %+v: want max 1000 ms over 100", lat)
	}
	if itl := got["inter_token_latency"]; itl.Count != 0 || !math.IsNaN(itl.Avg) {
		t.Errorf("ITL without values: %+v, want count 0 and NaN stats", itl)
	}
	if reqs != 25 || toks != 500 {
		t.Errorf("throughput %v req/s, %v tok/s; want 100/4 s = 25 and 2000/4 s = 500", reqs, toks)
	}
	if len(errs) != 2 || errs[0] != (sdk.LiveErrorCount{Type: "HTTPError", Count: 2}) || errs[1] != (sdk.LiveErrorCount{Type: "ReadTimeout", Count: 1}) {
		t.Errorf("errors %+v", errs)
	}
}

func TestTapLeavesOutMetricsTheRunDoesNotMeasure(t *testing.T) {
	ms, _, _, _ := NewTap(catalog(t, false)).View(sdk.PhaseProfiling, time.Second)
	for _, m := range ms {
		if m.Tag == "time_to_first_token" || m.Tag == "inter_token_latency" {
			t.Errorf("non-streaming run shows %s", m.Tag)
		}
	}
	if len(ms) != 2 {
		t.Errorf("got %d metrics, want request latency and OSL", len(ms))
	}
}

func TestTapStartsAfreshWhenThePhaseChanges(t *testing.T) {
	tap := NewTap(catalog(t, true))
	tap.Add(record(sdk.PhaseWarmup, 500, 900, 5))
	tap.Add(failed(sdk.PhaseWarmup, "HTTPError"))

	// The engine is in profiling before its first record is processed.
	ms, reqs, _, errs := tap.View(sdk.PhaseProfiling, time.Second)
	if c := byTag(ms)["time_to_first_token"].Count; c != 0 || reqs != 0 || errs != nil {
		t.Errorf("profiling view shows warmup data: count %d, %v req/s, errors %v", c, reqs, errs)
	}
	tap.Add(record(sdk.PhaseProfiling, 7, 70, 5))
	ms, _, _, errs = tap.View(sdk.PhaseProfiling, time.Second)
	if m := byTag(ms)["time_to_first_token"]; m.Count != 1 || m.Max != 7 || errs != nil {
		t.Errorf("profiling TTFT %+v, errors %v: want only the profiling record", m, errs)
	}
}

type fixedProgress sdk.ProgressSnapshot

func (f fixedProgress) Snapshot() sdk.ProgressSnapshot { return sdk.ProgressSnapshot(f) }

func TestSourceJoinsProgressStatisticsAndTelemetry(t *testing.T) {
	tap := NewTap(catalog(t, true))
	tap.Add(record(sdk.PhaseProfiling, 3, 30, 10))
	gpus := []sdk.LiveGPU{{Index: 0, Name: "H100", PowerW: 300, TempC: 60}}
	src := &Source{Progress: fixedProgress{Phase: sdk.PhaseProfiling, Completed: 1, Elapsed: 2 * time.Second}, Tap: tap,
		GPUs: func() []sdk.LiveGPU { return gpus }, Servers: []string{"http://x/metrics"}}
	v := src.Live()
	if v.Progress.Completed != 1 || v.RequestThroughput != 0.5 || v.OutputTokenThroughput != 5 ||
		len(v.GPUs) != 1 || v.GPUs[0].PowerW != 300 || len(v.Server) != 1 || v.At.IsZero() {
		t.Errorf("live view %+v", v)
	}
	if src.Snapshot().Completed != 1 {
		t.Error("Snapshot does not pass the progress through")
	}
}

// BenchmarkTapAdd is the live display's cost per record on the collector
// goroutine (docs/PERFORMANCE.md).
func BenchmarkTapAdd(b *testing.B) {
	cat, err := metrics.NewCatalog([]metrics.Declared{{Plugin: "metric_record", Specs: testfixtures.RecordSpecs()}},
		sdk.RunInfo{Streaming: true, Endpoint: sdk.EndpointMetadata{ProducesTokens: true, TokenizesInput: true}})
	if err != nil {
		b.Fatal(err)
	}
	tap := NewTap(cat)
	recs := make([]*sdk.RecordMetrics, 1024)
	for i := range recs {
		recs[i] = record(sdk.PhaseProfiling, float64(i%97+1), float64(i%991+10), 128)
		recs[i].Values[testfixtures.TagITL] = sdk.MetricValue{Scalar: float64(i%13+1) * 1e6}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		tap.Add(recs[i%len(recs)])
	}
}

// BenchmarkTapView is one UI refresh.
func BenchmarkTapView(b *testing.B) {
	cat, _ := metrics.NewCatalog([]metrics.Declared{{Plugin: "metric_record", Specs: testfixtures.RecordSpecs()}},
		sdk.RunInfo{Streaming: true, Endpoint: sdk.EndpointMetadata{ProducesTokens: true, TokenizesInput: true}})
	tap := NewTap(cat)
	for i := range 100000 {
		tap.Add(record(sdk.PhaseProfiling, float64(i%97+1), float64(i%991+10), 128))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		tap.View(sdk.PhaseProfiling, time.Second)
	}
}
