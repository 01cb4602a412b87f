package metricresults

import (
	"context"
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
	Goodput:   map[string]float64{metricrecord.TagRequestLatency: 250},
}

func intp(n int) *int { return &n }

func record(tsNs, latencyNs int64, tokens int) *sdk.ParsedRecord {
	return &sdk.ParsedRecord{
		Record:       &sdk.RequestRecord{TimestampNs: tsNs, Streaming: true},
		Responses:    []sdk.ParsedResponse{{PerfNs: latencyNs / 2, Text: "a"}, {PerfNs: latencyNs, Text: "b"}},
		OutputTokens: intp(tokens),
	}
}

// run is the core's wiring of the built-ins for one run: the catalog from
// the processor's declarations, Init then SetMetrics on the accumulator,
// and every record processed, filtered and added.
type run struct {
	t    testing.TB
	cat  *metrics.Catalog
	proc *metricrecord.Processor
	acc  *Accumulator
}

func newRun(t testing.TB, info sdk.RunInfo, extra ...metrics.Declared) *run {
	t.Helper()
	acc := New()
	if err := acc.Init(context.Background(), info); err != nil {
		t.Fatal(err)
	}
	return withMetrics(t, acc, info, extra...)
}

// withMetrics tells an initialized accumulator the metrics of the built-in
// record processor (and extra) and returns the run that feeds it.
func withMetrics(t testing.TB, acc *Accumulator, info sdk.RunInfo, extra ...metrics.Declared) *run {
	t.Helper()
	proc := metricrecord.New()
	decl := append([]metrics.Declared{{Plugin: metricrecord.Name, Specs: proc.Metrics()}}, extra...)
	cat, err := metrics.NewCatalog(decl, info)
	if err != nil {
		t.Fatal(err)
	}
	if err := acc.SetMetrics(cat.Specs()); err != nil {
		t.Fatal(err)
	}
	return &run{t: t, cat: cat, proc: proc, acc: acc}
}

func (r *run) add(prs ...*sdk.ParsedRecord) {
	r.t.Helper()
	for _, pr := range prs {
		rm, err := r.proc.Process(pr)
		if err != nil {
			r.t.Fatal(err)
		}
		r.cat.Filter(rm.Values, rm.Record.Valid())
		r.acc.Add(rm)
	}
}

func (r *run) results() *sdk.Results {
	r.t.Helper()
	res, err := r.acc.Summarize()
	if err != nil {
		r.t.Fatal(err)
	}
	return res
}

func TestSummarizeBeforeSetup(t *testing.T) {
	a := New()
	a.Add(&sdk.RecordMetrics{Record: &sdk.RequestRecord{}}) // must not panic
	if _, err := a.Summarize(); err == nil {
		t.Fatal("Summarize before Init and SetMetrics succeeded")
	}
	if s := a.Snapshot(); s != (metrics.Counts{}) {
		t.Fatalf("Snapshot before SetMetrics = %+v", s)
	}
	if err := a.SetMetrics(metricrecord.New().Metrics()); err == nil {
		t.Fatal("SetMetrics before Init succeeded")
	}
	if err := a.Init(context.Background(), info); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Summarize(); err == nil {
		t.Fatal("Summarize before SetMetrics succeeded")
	}
}

func TestSetMetricsRejectsBadSLOs(t *testing.T) {
	bad := info
	bad.Streaming = false
	bad.Goodput = map[string]float64{metricrecord.TagITL: 3}
	cases := []struct {
		name  string
		info  sdk.RunInfo
		specs []sdk.MetricSpec
		want  string
	}{
		{"inapplicable", bad, metricrecord.New().Metrics(), metricrecord.TagITL},
		{"undeclared", info, nil, `unknown metric tag "request_latency"`},
	}
	for _, tc := range cases {
		a := New()
		if err := a.Init(context.Background(), tc.info); err != nil {
			t.Fatal(err)
		}
		if err := a.SetMetrics(tc.specs); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: SetMetrics error = %v, want one naming %s", tc.name, err, tc.want)
		}
	}
}

// The processor and accumulator plugins together: latencies 100, 300 and
// 250 ms with SLO 250 ms over a 2 s window.
func TestPipeline(t *testing.T) {
	r := newRun(t, info)
	r.add(
		record(0, 100_000_000, 300),
		record(1_000_000_000, 300_000_000, 300),
		record(1_750_000_000, 250_000_000, 400), // ends at 2.0 s
	)
	res := r.results()
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

// AIPerf's conformance seeds (docs/METRICS.md §2.1), through the built-in
// processor, the core's filter and this accumulator.
func TestAIPerfSeeds(t *testing.T) {
	at := func(start int64, responses []int64, tokensPerResponse int) *sdk.ParsedRecord {
		rs := make([]sdk.ParsedResponse, len(responses))
		for i, ns := range responses {
			rs[i] = sdk.ParsedResponse{PerfNs: ns, Text: "tok"}
		}
		return &sdk.ParsedRecord{Record: &sdk.RequestRecord{StartPerfNs: start, TimestampNs: start, Streaming: true},
			Responses: rs, OutputTokens: intp(tokensPerResponse * len(responses))}
	}
	noSLO := info
	noSLO.Goodput = nil
	var goodput15 []*sdk.ParsedRecord
	for i := range 30 { // 30 good requests over a 2 s run, one too slow
		goodput15 = append(goodput15, record(int64(i)*1_900_000_000/29, 100_000_000, 5))
	}
	goodput15 = append(goodput15, record(1_000_000_000, 300_000_000, 5))
	cases := []struct {
		name    string
		info    sdk.RunInfo
		records []*sdk.ParsedRecord
		want    map[string]float64 // avg, display units
	}{
		// test_inter_token_latency_metric.py: OSL 6, latency 100, TTFT 20 -> 16 ns.
		{"itl 16", noSLO, []*sdk.ParsedRecord{at(100, []int64{120, 200}, 3)},
			map[string]float64{metricrecord.TagITL: 16e-6, metricrecord.TagOSL: 6, metricrecord.TagTTFT: 20e-6}},
		// OSL 9, latency 120, TTFT 40 -> (120-40)/8 = 10 ns.
		{"itl 10", noSLO, []*sdk.ParsedRecord{at(1000, []int64{1040, 1080, 1120}, 3)},
			map[string]float64{metricrecord.TagITL: 10e-6, metricrecord.TagRequestLatency: 120e-6}},
		// 1000 tokens over a 2 s duration -> 500 tokens/s.
		{"output throughput 500", noSLO, []*sdk.ParsedRecord{
			record(1_000_000_000, 100_000_000, 400), record(1_500_000_000, 1_500_000_000, 600)},
			map[string]float64{metrics.TagTotalOSL: 1000, metrics.TagBenchmarkDuration: 2, metrics.TagOutputThroughput: 500}},
		// test_good_request_count_metric.py: SLO 250 ms, latencies 100, 300, 250 ms -> 2 good.
		{"good requests 2", info, []*sdk.ParsedRecord{
			record(0, 100_000_000, 2), record(0, 300_000_000, 2), record(0, 250_000_000, 2)},
			map[string]float64{metrics.TagGoodRequestCount: 2}},
		// test_goodput_metric.py: 30 good over 2 s -> 15.0/s.
		{"goodput 15", info, goodput15,
			map[string]float64{metrics.TagGoodRequestCount: 30, metrics.TagGoodput: 15, metrics.TagRequestThroughput: 15.5}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRun(t, tc.info)
			r.add(tc.records...)
			res := r.results()
			for tag, w := range tc.want {
				if m, ok := res.Metric(tag); !ok || m.Avg == nil || !near(*m.Avg, w) {
					t.Errorf("%s = %+v, want avg %v", tag, m, w)
				}
			}
		})
	}
}

// A metric another processor declares is summarized like a built-in one.
func TestDeclaredMetricOfAnotherProcessor(t *testing.T) {
	r := newRun(t, info, metrics.Declared{Plugin: "probe", Specs: []sdk.MetricSpec{
		{Tag: "queue_wait", Header: "Queue Wait", Unit: "ns", DisplayUnit: "ms", DisplayOrder: 150},
	}})
	r.add(record(0, 100_000_000, 3))
	rm, _ := r.proc.Process(record(0, 100_000_000, 3))
	rm.Values["queue_wait"] = sdk.MetricValue{Scalar: 7_000_000}
	r.acc.Add(rm)
	m, ok := r.results().Metric("queue_wait")
	if !ok || m.Header != "Queue Wait" || m.Unit != "ms" || m.DisplayOrder != 150 || *m.Avg != 7 || *m.Count != 1 {
		t.Fatalf("queue_wait = %+v", m)
	}
}

// A UI polls Snapshot while records are added; run with -race.
func TestSnapshotWhileAdding(t *testing.T) {
	r := newRun(t, info)
	a := r.acc
	rm, _ := r.proc.Process(record(0, 100_000_000, 10))
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

func near(a, b float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d <= 1e-9*max(1, a, b, -a, -b)
}

// The runner tells the accumulator the profiling phase's bounds
// (sdk.PhaseObserver); the throughputs divide by that window, AIPerf 0.13's,
// while benchmark_duration stays first request to last response. Bounds
// told before SetMetrics are kept; other phases are ignored.
func TestPhaseObserverSetsTheThroughputWindow(t *testing.T) {
	cases := []struct {
		name     string
		early    bool   // bounds told between Init and SetMetrics
		serves   string // the phase the instance was built for (RunInfo.Phase)
		phase    string
		windowS  float64
		wantNote string
	}{
		{"profiling", false, "", sdk.PhaseProfiling, 4, "phase start 0 to end 4 s"},
		{"told before SetMetrics", true, "", sdk.PhaseProfiling, 4, "kept until the engine exists"},
		{"warmup ignored", false, "", sdk.PhaseWarmup, 2, "first request to last response"},
		{"warmup instance takes warmup", false, sdk.PhaseWarmup, sdk.PhaseWarmup, 4, "its own phase's window"},
		{"warmup instance ignores profiling", false, sdk.PhaseWarmup, sdk.PhaseProfiling, 2, "first request to last response"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := New()
			served := info
			served.Phase = tc.serves
			if err := a.Init(context.Background(), served); err != nil {
				t.Fatal(err)
			}
			tell := func() {
				a.PhaseStarted(tc.phase, 0)
				a.PhaseEnded(tc.phase, 4_000_000_000)
			}
			if tc.early {
				tell()
			}
			r := withMetrics(t, a, info)
			if !tc.early {
				tell()
			}
			// First request at 1 s, last response at 3 s: benchmark_duration 2 s.
			r.add(record(1_000_000_000, 100_000_000, 300), record(2_750_000_000, 250_000_000, 500))
			res := r.results()
			want := map[string]float64{
				metrics.TagBenchmarkDuration: 2,
				metrics.TagRequestThroughput: 2 / tc.windowS,
				metrics.TagOutputThroughput:  800 / tc.windowS,
				metrics.TagGoodput:           2 / tc.windowS,
			}
			for tag, w := range want {
				if m, ok := res.Metric(tag); !ok || m.Avg == nil || !near(*m.Avg, w) {
					t.Errorf("%s = %+v, want avg %v (%s)", tag, m, w, tc.wantNote)
				}
			}
		})
	}
}
