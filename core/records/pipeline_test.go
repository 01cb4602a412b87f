package records

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"testing"

	"github.com/aiperf-go/aiperf/core/engine"
	"github.com/aiperf-go/aiperf/core/internal/testfixtures"
	"github.com/aiperf-go/aiperf/core/metrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// answer is what every finished request of these tests streamed: four words
// in four chunks, 1 ms apart from 10 ms after the start.
var answer = []string{"one", " two", " three", " four"}

const (
	firstChunkNs = 10_000_000
	chunkGapNs   = 1_000_000
)

// finished returns n requests as the engine hands them over: streamed chat
// answers (with a usage chunk and [DONE]), or, with failed, HTTP 500s.
func finished(n int, failed bool) []engine.Completed {
	out := make([]engine.Completed, n)
	for i := range out {
		start := int64(i) * 100_000_000
		rec := &sdk.RequestRecord{XRequestID: fmt.Sprintf("req-%d", i), ConversationID: fmt.Sprintf("c%d", i),
			SessionNum: i, Phase: sdk.PhaseProfiling, Streaming: true, Status: 200,
			TimestampNs: 1_700_000_000_000_000_000 + start, StartPerfNs: start}
		if failed {
			rec.Status = 500
			rec.Error = &sdk.ErrorDetails{Code: 500, Type: "Internal Server Error", Message: "boom"}
			rec.EndPerfNs = start + firstChunkNs
		} else {
			at := start + firstChunkNs
			for _, w := range answer {
				rec.Responses = append(rec.Responses, sdk.Response{PerfNs: at, Data: []byte(contentChunk(w))})
				at += chunkGapNs
			}
			rec.Responses = append(rec.Responses, sdk.Response{PerfNs: at, Data: []byte(usageChunk(5, 4))},
				sdk.Response{PerfNs: at, Data: []byte(doneEvent)})
			rec.EndPerfNs = at
		}
		req := prepared(rec.ConversationID, fmt.Sprintf("tell me about number %d", i))
		rec.RequestBody = req.Payload
		out[i] = engine.Completed{Record: rec, Request: req}
	}
	return out
}

// copies gives each subtest its own records: Parse may write rec.Error.
func copies(done []engine.Completed) []engine.Completed {
	out := make([]engine.Completed, len(done))
	for i, c := range done {
		rec := *c.Record
		out[i] = engine.Completed{Record: &rec, Request: c.Request}
	}
	return out
}

// fixtureCatalog is the catalog of a run whose only processor is the
// fixture one.
func fixtureCatalog(t testing.TB, info sdk.RunInfo, extra ...metrics.Declared) *metrics.Catalog {
	t.Helper()
	decl := append([]metrics.Declared{{Plugin: "fixture", Specs: testfixtures.Processor{}.Metrics()}}, extra...)
	cat, err := metrics.NewCatalog(decl, info)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// coreAccumulator is the core's accumulator as a plugin.
type coreAccumulator struct{ *metrics.Accumulator }

func (a coreAccumulator) Summarize() (*sdk.Results, error) { return a.Accumulator.Summarize(), nil }

func newCoreAccumulator(t testing.TB, cat *metrics.Catalog, info sdk.RunInfo) coreAccumulator {
	t.Helper()
	acc, err := metrics.NewAccumulator(cat, info)
	if err != nil {
		t.Fatal(err)
	}
	return coreAccumulator{acc}
}

// observer is an accumulator and a record sink that records what it sees.
type observer struct {
	mu      sync.Mutex
	added   map[string]int // by x_request_id
	written map[string]int
	values  map[string]map[string]sdk.MetricValue
	lines   map[string]*sdk.RecordInfo
	closed  int
}

func newObserver() *observer {
	return &observer{added: map[string]int{}, written: map[string]int{},
		values: map[string]map[string]sdk.MetricValue{}, lines: map[string]*sdk.RecordInfo{}}
}

func (o *observer) Add(rm *sdk.RecordMetrics) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.added[rm.Record.XRequestID]++
	// The pipeline recycles what it hands out: keep copies.
	o.values[rm.Record.XRequestID] = maps.Clone(rm.Values)
}
func (o *observer) Summarize() (*sdk.Results, error) { return &sdk.Results{}, nil }

func (o *observer) Open(*sdk.ExportContext) error { return nil }
func (o *observer) WriteRecord(rec *sdk.RecordInfo) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.written[rec.Metadata.XRequestID]++
	line := *rec
	line.Metrics = maps.Clone(rec.Metrics)
	md := &line.Metadata
	for _, p := range []**int64{&md.RequestAckNs, &md.CreditIssuedNs, &md.CancellationTimeNs} {
		if *p != nil {
			v := **p
			*p = &v
		}
	}
	if md.ProfilingIndex != nil {
		v := *md.ProfilingIndex
		md.ProfilingIndex = &v
	}
	o.lines[rec.Metadata.XRequestID] = &line
	return nil
}
func (o *observer) Close() error { o.closed++; return nil }

// unopened is a sink refusing every record, like a file exporter never opened.
type unopened struct{}

func (unopened) Open(*sdk.ExportContext) error     { return nil }
func (unopened) WriteRecord(*sdk.RecordInfo) error { return errors.New("WriteRecord before Open") }
func (unopened) Close() error                      { return nil }
func exactlyOnce(t *testing.T, what string, seen map[string]int, want []engine.Completed) {
	t.Helper()
	if len(seen) != len(want) {
		t.Errorf("%s saw %d distinct records, want %d", what, len(seen), len(want))
	}
	for _, c := range want {
		if n := seen[c.Record.XRequestID]; n != 1 {
			t.Errorf("%s saw request %s %d times, want once", what, c.Record.XRequestID, n)
		}
	}
}

func TestPipelineDeliversEveryRecordOnce(t *testing.T) {
	const n = 30
	done := finished(n, false)
	info := testfixtures.StreamingRun()
	for _, workers := range []int{0, 1, 7} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			cat := fixtureCatalog(t, info)
			acc := newCoreAccumulator(t, cat, info)
			obs := newObserver()
			p := NewPipeline(Config{Endpoint: chat, Tokenizer: words, Processors: []sdk.RecordProcessor{testfixtures.Processor{}},
				Catalog: cat, Accumulators: []sdk.Accumulator{acc, obs}, Sinks: []sdk.RecordSink{obs}, Workers: workers})
			for _, c := range copies(done) {
				p.Submit(c)
			}
			if err := p.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if p.Records() != n {
				t.Errorf("Records() = %d, want %d", p.Records(), n)
			}
			exactlyOnce(t, "accumulator", obs.added, done)
			exactlyOnce(t, "sink", obs.written, done)
			if obs.closed != 0 {
				t.Error("the pipeline closed a sink it does not own")
			}
			// The processor ran on every record before it reached the accumulators.
			for id, vals := range obs.values {
				if lat, ok := vals[testfixtures.TagRequestLatency]; !ok || lat.Scalar != firstChunkNs+3*chunkGapNs {
					t.Errorf("record %s request_latency %+v, want %d", id, lat, firstChunkNs+3*chunkGapNs)
				}
				if osl, ok := vals[testfixtures.TagOSL]; !ok || osl.Scalar != 4 {
					t.Errorf("record %s output_sequence_length %+v, want 4 (the answer's words)", id, osl)
				}
			}
			res := acc.Accumulator.Summarize()
			if rc, ok := res.Metric(metrics.TagRequestCount); !ok || rc.Avg == nil || *rc.Avg != n || res.CompletedRecords != n {
				t.Errorf("request_count %+v, CompletedRecords %d; want %d", rc.Avg, res.CompletedRecords, n)
			}
			// Lines carry the catalog's display units and the pipeline's id.
			for id, l := range obs.lines {
				ttft, ok := l.Metrics[testfixtures.TagTTFT]
				if !ok || ttft.Value != 10.0 || ttft.Unit != "ms" || l.Error != nil {
					t.Errorf("line %s: TTFT %+v, error %+v; want 10 ms and no error", id, ttft, l.Error)
				}
				if osl := l.Metrics[testfixtures.TagOSL]; osl.Value != 4 || osl.Unit != "tokens" {
					t.Errorf("line %s: OSL %#v, want int 4 tokens", id, osl)
				}
				if l.Metadata.RecordProcessorID != RecordProcessorID || RecordProcessorID != "record_processor_0" {
					t.Errorf("line %s: record_processor_id %q", id, l.Metadata.RecordProcessorID)
				}
			}
		})
	}
}

func TestPipelineReportsSinkErrorsOnClose(t *testing.T) {
	const n = 12
	done := finished(n, false)
	info := testfixtures.StreamingRun()
	cat := fixtureCatalog(t, info)
	acc := newCoreAccumulator(t, cat, info)
	obs := newObserver()
	var logBuf bytes.Buffer
	p := NewPipeline(Config{Endpoint: chat, Tokenizer: words, Catalog: cat, Accumulators: []sdk.Accumulator{acc},
		Sinks: []sdk.RecordSink{unopened{}, obs}, Workers: 2, Logger: slog.New(slog.NewTextHandler(&logBuf, nil))})
	for _, c := range done {
		p.Submit(c)
	}
	err := p.Close()
	if err == nil {
		t.Fatal("Close returned nil although the sink failed every write")
	}
	// The sink's own error comes through (the app's sinks name their plugin).
	if !strings.Contains(err.Error(), "write record: WriteRecord before Open") {
		t.Errorf("Close error %q does not carry the sink's error", err)
	}
	// A systematic failure is reported a bounded number of times.
	if k := strings.Count(err.Error(), "WriteRecord before Open"); k < 1 || k > 10 {
		t.Errorf("error repeated %d times for %d records, want 1..10", k, n)
	}
	if !strings.Contains(logBuf.String(), "record processing failed") {
		t.Errorf("failure not logged: %q", logBuf.String())
	}
	// The failing sink stops nothing else.
	if p.Records() != n {
		t.Errorf("Records() = %d, want %d", p.Records(), n)
	}
	exactlyOnce(t, "second sink", obs.written, done)
	if res := acc.Accumulator.Summarize(); res.CompletedRecords != n {
		t.Errorf("accumulator got %d records, want %d", res.CompletedRecords, n)
	}
}

// tagger is a second record processor that adds one value it does not
// declare, or fails.
type tagger struct{ fail bool }

func (tagger) Metrics() []sdk.MetricSpec { return nil }
func (g tagger) Process(rec *sdk.ParsedRecord) (*sdk.RecordMetrics, error) {
	if g.fail {
		return nil, errors.New("tagger refuses")
	}
	return &sdk.RecordMetrics{Record: rec.Record, Values: map[string]sdk.MetricValue{"tagged": {Scalar: 1}}}, nil
}

// leaky computes metrics whatever the run and the record, as a careless
// external processor might.
type leaky struct{}

func (leaky) Metrics() []sdk.MetricSpec { return nil }
func (leaky) Process(rec *sdk.ParsedRecord) (*sdk.RecordMetrics, error) {
	return &sdk.RecordMetrics{Record: rec.Record, Values: map[string]sdk.MetricValue{
		testfixtures.TagTTFT: {Scalar: 1}, testfixtures.TagErrorISL: {Scalar: 2}, metrics.TagRequestCount: {Scalar: 3},
		testfixtures.TagISL: {Scalar: 4},
	}}, nil
}

func TestPipelineProcessors(t *testing.T) {
	const n = 14
	done := finished(n, false)
	nonStreaming := testfixtures.StreamingRun()
	nonStreaming.Streaming = false
	cases := []struct {
		name       string
		info       sdk.RunInfo
		processors []sdk.RecordProcessor
		wantTags   []string
		absentTags []string
		wantErr    string
	}{
		{name: "values of several processors are merged", processors: []sdk.RecordProcessor{testfixtures.Processor{}, tagger{}},
			wantTags: []string{testfixtures.TagRequestLatency, "tagged"}},
		{name: "a failing processor keeps the others' values", processors: []sdk.RecordProcessor{tagger{fail: true}, testfixtures.Processor{}},
			wantTags: []string{testfixtures.TagRequestLatency}, absentTags: []string{"tagged"}, wantErr: "record processor records.tagger"},
		{name: "every processor failing still forwards the record", processors: []sdk.RecordProcessor{tagger{fail: true}},
			absentTags: []string{testfixtures.TagRequestLatency}, wantErr: "tagger refuses"},
		{name: "no processors", absentTags: []string{testfixtures.TagRequestLatency}},
		// Values that do not apply never reach accumulators: streaming-only
		// on a non-streaming run, error-only on a success, run-level tags.
		{name: "inapplicable values are dropped", info: nonStreaming, processors: []sdk.RecordProcessor{leaky{}},
			wantTags: []string{testfixtures.TagISL}, absentTags: []string{testfixtures.TagTTFT, testfixtures.TagErrorISL, metrics.TagRequestCount}},
		{name: "streaming-only values stay on a streaming run", processors: []sdk.RecordProcessor{leaky{}},
			wantTags: []string{testfixtures.TagTTFT, testfixtures.TagISL}, absentTags: []string{testfixtures.TagErrorISL, metrics.TagRequestCount}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			info := c.info
			if info.Endpoint.EndpointPath == "" {
				info = testfixtures.StreamingRun()
			}
			obs := newObserver()
			p := NewPipeline(Config{Endpoint: chat, Tokenizer: words, Processors: c.processors, Catalog: fixtureCatalog(t, info),
				Accumulators: []sdk.Accumulator{obs}, Sinks: []sdk.RecordSink{obs}, Workers: 3, Logger: slog.New(slog.DiscardHandler)})
			for _, cm := range copies(done) {
				p.Submit(cm)
			}
			err := p.Close()
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("Close: %v", err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Fatalf("Close = %v, want an error mentioning %q", err, c.wantErr)
			case c.wantErr != "" && strings.Count(err.Error(), c.wantErr) > 10:
				t.Errorf("error repeated %d times, want at most 10", strings.Count(err.Error(), c.wantErr))
			}
			exactlyOnce(t, "accumulator", obs.added, done)
			for id, vals := range obs.values {
				for _, tag := range c.wantTags {
					if _, ok := vals[tag]; !ok {
						t.Errorf("record %s lacks %s: %v", id, tag, vals)
					}
				}
				for _, tag := range c.absentTags {
					if _, ok := vals[tag]; ok {
						t.Errorf("record %s has %s", id, tag)
					}
					if _, ok := obs.lines[id].Metrics[tag]; ok {
						t.Errorf("line %s has %s", id, tag)
					}
				}
			}
			if p.Records() != n {
				t.Errorf("Records() = %d, want %d", p.Records(), n)
			}
		})
	}
}

// A value nobody declared is kept (today's behaviour for third-party tags)
// and logged once per tag, naming the processor.
func TestPipelineWarnsOnceAboutUndeclaredMetrics(t *testing.T) {
	const n = 20
	done := finished(n, false)
	info := testfixtures.StreamingRun()
	for _, cat := range []*metrics.Catalog{fixtureCatalog(t, info), nil} {
		var logBuf bytes.Buffer
		obs := newObserver()
		p := NewPipeline(Config{Endpoint: chat, Tokenizer: words, Catalog: cat,
			Processors: []sdk.RecordProcessor{testfixtures.Processor{}, tagger{}}, ProcessorNames: []string{"metric_record", "tagger"},
			Accumulators: []sdk.Accumulator{obs}, Sinks: []sdk.RecordSink{obs}, Workers: 4, Logger: slog.New(slog.NewTextHandler(&logBuf, nil))})
		for _, c := range done {
			p.Submit(c)
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		log := logBuf.String()
		if k := strings.Count(log, "tag=tagged"); k != 1 || !strings.Contains(log, "processor=tagger") || !strings.Contains(log, "level=WARN") {
			t.Errorf("catalog %v: %d warnings about tagged, want 1 naming tagger:\n%s", cat != nil, k, log)
		}
		if cat != nil && strings.Count(log, "level=WARN") != 1 {
			t.Errorf("declared metrics were warned about:\n%s", log)
		}
		for id, l := range obs.lines {
			if m, ok := l.Metrics["tagged"]; !ok || m.Value != 1.0 || m.Unit != "" {
				t.Errorf("line %s: tagged = %+v, want 1 unitless", id, m)
			}
			if _, ok := obs.values[id]["tagged"]; !ok {
				t.Errorf("record %s: tagged did not reach the accumulator", id)
			}
		}
	}
}

func TestPipelineCarriesErrorRecords(t *testing.T) {
	const n = 6
	done := finished(n, true)
	info := testfixtures.StreamingRun()
	cat := fixtureCatalog(t, info)
	acc := newCoreAccumulator(t, cat, info)
	obs := newObserver()
	p := NewPipeline(Config{Endpoint: chat, Tokenizer: words, Processors: []sdk.RecordProcessor{testfixtures.Processor{}},
		Catalog: cat, Accumulators: []sdk.Accumulator{acc}, Sinks: []sdk.RecordSink{obs}})
	for _, c := range done {
		p.Submit(c)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	exactlyOnce(t, "sink", obs.written, done)
	res := acc.Accumulator.Summarize()
	if ec, ok := res.Metric(metrics.TagErrorRequestCount); !ok || ec.Avg == nil || *ec.Avg != n {
		t.Errorf("error_request_count = %+v, want %d", ec.Avg, n)
	}
	if len(res.ErrorSummary) != 1 || res.ErrorSummary[0].Count != n || res.ErrorSummary[0].ErrorDetails.Code != 500 {
		t.Errorf("error summary %+v", res.ErrorSummary)
	}
	for id, l := range obs.lines {
		if len(l.Metrics) != 1 || l.Metrics[testfixtures.TagErrorISL].Value != 5 || l.Error == nil || l.Error.Code != 500 {
			t.Errorf("line %s: metrics %v, error %+v; want only error_isl 5 and the 500", id, l.Metrics, l.Error)
		}
	}
}

// A response the endpoint cannot parse fails the record even without
// processors, so it is counted as an error.
func TestPipelineForwardsParseErrorsWithoutProcessors(t *testing.T) {
	done := finished(1, false)
	done[0].Record.Responses[1].Data = []byte(malformed)
	info := testfixtures.StreamingRun()
	cat := fixtureCatalog(t, info)
	acc := newCoreAccumulator(t, cat, info)
	p := NewPipeline(Config{Endpoint: chat, Tokenizer: words, Catalog: cat, Accumulators: []sdk.Accumulator{acc}})
	p.Submit(done[0])
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if s := acc.Snapshot(); s.Errors != 1 || s.Valid != 0 {
		t.Errorf("Snapshot = %+v, want the record counted as an error", s)
	}
}

func TestPipelineRoutesWarmupRecordsToTheirOwnAccumulators(t *testing.T) {
	done := finished(6, false)
	for _, c := range done[:2] {
		c.Record.Phase = sdk.PhaseWarmup
	}
	info := testfixtures.StreamingRun()
	cat := fixtureCatalog(t, info)
	profiling, warmup, sink, live := newObserver(), newObserver(), newObserver(), newObserver()
	p := NewPipeline(Config{Endpoint: chat, Tokenizer: words, Processors: []sdk.RecordProcessor{testfixtures.Processor{}},
		Catalog: cat, Accumulators: []sdk.Accumulator{profiling}, WarmupAccumulators: []sdk.Accumulator{warmup},
		Sinks: []sdk.RecordSink{sink}, Phases: metrics.PhaseLayout{Warmup: true}, Hooks: []Hook{live}})
	for _, c := range done {
		p.Submit(c)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	exactlyOnce(t, "warmup accumulator", warmup.added, done[:2])
	exactlyOnce(t, "profiling accumulator", profiling.added, done[2:])
	// Sinks and the live display's tap get every record.
	exactlyOnce(t, "sink", sink.written, done)
	exactlyOnce(t, "live tap", live.added, done)
	for _, c := range done {
		md := sink.lines[c.Record.XRequestID].Metadata
		wantIndex := 1
		if c.Record.Phase == sdk.PhaseWarmup {
			wantIndex = 0
		}
		if md.BenchmarkPhase != c.Record.Phase || md.PhaseIndex != wantIndex {
			t.Errorf("%s: phase %q index %d, want %q %d", c.Record.XRequestID, md.BenchmarkPhase, md.PhaseIndex, c.Record.Phase, wantIndex)
		}
	}
}

// recycling wraps a processor as a pooling one would: it counts what the
// pipeline hands back and checks that every accumulator and sink had seen
// a record before its values came back.
type recycling struct {
	sdk.RecordProcessor
	obs      *observer
	owner    bool // its values are the merged record's
	mu       sync.Mutex
	returned map[string]int
}

func (r *recycling) Recycle(rm *sdk.RecordMetrics) {
	id := rm.Record.XRequestID
	r.mu.Lock()
	r.returned[id]++
	r.mu.Unlock()
	if r.owner {
		r.obs.mu.Lock()
		seen := r.obs.added[id] == 1 && r.obs.written[id] == 1
		r.obs.mu.Unlock()
		if !seen {
			panic("values of " + id + " recycled before the accumulator and the sink saw them")
		}
	}
	clear(rm.Values)
}

func TestPipelineRecyclesValuesOnceEveryoneSawThem(t *testing.T) {
	const n = 25
	done := finished(n, false)
	info := testfixtures.StreamingRun()
	obs := newObserver()
	first := &recycling{RecordProcessor: testfixtures.Processor{}, obs: obs, owner: true, returned: map[string]int{}}
	second := &recycling{RecordProcessor: tagger{}, obs: obs, returned: map[string]int{}}
	p := NewPipeline(Config{Endpoint: chat, Tokenizer: words, Processors: []sdk.RecordProcessor{first, second},
		Catalog: fixtureCatalog(t, info), Accumulators: []sdk.Accumulator{obs}, Sinks: []sdk.RecordSink{obs},
		Workers: 3, Logger: slog.New(slog.DiscardHandler)})
	for _, c := range copies(done) {
		p.Submit(c)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	exactlyOnce(t, "recycled (merged record)", first.returned, done)
	exactlyOnce(t, "recycled (merged into another)", second.returned, done)
	// What the observer kept is intact: clearing the recycled maps did not reach it.
	for id, vals := range obs.values {
		if _, ok := vals["tagged"]; !ok || len(vals) < 2 {
			t.Errorf("record %s kept %v, want the merged values of both processors", id, vals)
		}
	}
}
