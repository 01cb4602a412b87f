package metricresults

import (
	"strings"
	"sync"
	"testing"

	"github.com/aiperf-go/aiperf/core/metrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/recordprocessor/metricrecord"
)

var info = sdk.RunInfo{
	Streaming: true,
	Endpoint:  sdk.EndpointMetadata{ProducesTokens: true, TokenizesInput: true},
	Goodput:   map[string]float64{metrics.TagRequestLatency: 250},
}

func intp(n int) *int { return &n }

func record(tsNs, latencyNs int64, tokens int) *sdk.ParsedRecord {
	return &sdk.ParsedRecord{
		Record:       &sdk.RequestRecord{TimestampNs: tsNs, Streaming: true},
		Responses:    []sdk.ParsedResponse{{PerfNs: latencyNs / 2, Text: "a"}, {PerfNs: latencyNs, Text: "b"}},
		OutputTokens: intp(tokens),
	}
}

func TestSummarizeBeforeInit(t *testing.T) {
	a := New()
	a.Add(&sdk.RecordMetrics{Record: &sdk.RequestRecord{}}) // must not panic
	if _, err := a.Summarize(); err == nil {
		t.Fatal("Summarize before Init succeeded")
	}
	if s := a.Snapshot(); s != (metrics.Counts{}) {
		t.Fatalf("Snapshot before Init = %+v", s)
	}
}

func TestInitRejectsInapplicableSLO(t *testing.T) {
	bad := info
	bad.Streaming = false
	bad.Goodput = map[string]float64{metrics.TagITL: 3}
	err := New().Init(bad)
	if err == nil || !strings.Contains(err.Error(), metrics.TagITL) {
		t.Fatalf("Init error = %v, want one naming %s", err, metrics.TagITL)
	}
}

// The processor and accumulator plugins together: latencies 100, 300 and
// 250 ms with SLO 250 ms over a 2 s window.
func TestPipeline(t *testing.T) {
	p := metricrecord.New()
	a := New()
	if err := p.Init(info); err != nil {
		t.Fatal(err)
	}
	if err := a.Init(info); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*sdk.ParsedRecord{
		record(0, 100_000_000, 300),
		record(1_000_000_000, 300_000_000, 300),
		record(1_750_000_000, 250_000_000, 400), // ends at 2.0 s
	} {
		rm, err := p.Process(r)
		if err != nil {
			t.Fatal(err)
		}
		a.Add(rm)
	}
	res, err := a.Summarize()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		metrics.TagGoodRequestCount:  2,
		metrics.TagGoodput:           1,
		metrics.TagRequestThroughput: 1.5,
		metrics.TagOutputThroughput:  500,
		metrics.TagBenchmarkDuration: 2,
	}
	for tag, w := range want {
		m, ok := res.Metric(tag)
		if !ok || *m.Avg != w {
			t.Errorf("%s = %+v, want avg %v", tag, m, w)
		}
	}
	if res.BenchmarkDurationS != 2 || res.CompletedRecords != 3 {
		t.Errorf("duration %v s, completed %d; want 2 and 3", res.BenchmarkDurationS, res.CompletedRecords)
	}
}

// A UI polls Snapshot while records are added; run with -race.
func TestSnapshotWhileAdding(t *testing.T) {
	a := New()
	if err := a.Init(info); err != nil {
		t.Fatal(err)
	}
	p := metricrecord.New()
	_ = p.Init(info)
	rm, _ := p.Process(record(0, 100_000_000, 10))
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
				if s := a.Snapshot(); s.Valid > s.Records {
					t.Errorf("snapshot %+v has more valid than records", s)
					return
				}
			}
		}
	})
	for range 1000 {
		a.Add(rm)
	}
	close(done)
	wg.Wait()
	if s := a.Snapshot(); s.Records != 1000 || s.Valid != 1000 || s.Good != 1000 {
		t.Fatalf("Snapshot = %+v, want 1000 records, valid and good", s)
	}
}
