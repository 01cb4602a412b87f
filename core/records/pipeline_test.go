package records

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/engine"
	"github.com/aiperf-go/aiperf/core/transport"
	"github.com/aiperf-go/aiperf/mockserver"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/accumulator/metricresults"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/jsonlexport"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/chat"
	"github.com/aiperf-go/aiperf/plugins/builtin/recordprocessor/metricrecord"
	"github.com/aiperf-go/aiperf/plugins/builtin/timing/concurrency"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
)

// finishedRequests runs n real requests (streaming chat) against the mock
// server and returns them as the engine hands them over.
func finishedRequests(t *testing.T, n int, errorRate float64) ([]engine.Completed, sdk.RunInfo) {
	t.Helper()
	srv, err := mockserver.New(mockserver.Config{Host: "127.0.0.1", Fast: true, ErrorRate: errorRate, RandomSeed: 5})
	if err != nil {
		t.Fatal(err)
	}
	addr, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	ep := chat.New()
	convs := make([]sdk.Conversation, 5)
	for i := range convs {
		convs[i] = sdk.Conversation{SessionID: fmt.Sprintf("c%d", i),
			Turns: []sdk.Turn{{Texts: []string{fmt.Sprintf("tell me about number %d", i)}, MaxTokens: intp(4)}}}
	}
	reqs, _, err := engine.Prepare(ep, convs, engine.PrepareOptions{Models: []string{"m"}, Streaming: true,
		ExtraInputs: map[string]any{"ignore_eos": true}, Tokenizer: tiktoken.New()})
	if err != nil {
		t.Fatal(err)
	}
	tr := transport.New(transport.Options{MaxConnsPerHost: 4})
	t.Cleanup(func() { _ = tr.Close() })
	eng, err := engine.New(tr, concurrency.New(), reqs, engine.Options{URLs: []string{"http://" + addr + chat.Path}, Streaming: true})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var out []engine.Completed
	err = eng.RunPhase(context.Background(), sdk.PhasePlan{Phase: sdk.PhaseProfiling, RequestCount: n, Concurrency: 4},
		func(c engine.Completed) {
			mu.Lock()
			out = append(out, c)
			mu.Unlock()
		})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != n {
		t.Fatalf("engine finished %d of %d requests", len(out), n)
	}
	return out, sdk.RunInfo{Endpoint: ep.Metadata(), Streaming: true}
}

// observer is an accumulator and a record sink that counts what it sees.
type observer struct {
	mu      sync.Mutex
	added   map[string]int // by x_request_id
	written map[string]int
	values  map[string]map[string]sdk.MetricValue
	closed  int
}

func newObserver() *observer {
	return &observer{added: map[string]int{}, written: map[string]int{}, values: map[string]map[string]sdk.MetricValue{}}
}

func (o *observer) Init(sdk.RunInfo) error { return nil }
func (o *observer) Add(rm *sdk.RecordMetrics) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.added[rm.Record.XRequestID]++
	o.values[rm.Record.XRequestID] = rm.Values
}
func (o *observer) Summarize() (*sdk.Results, error) { return &sdk.Results{}, nil }

func (o *observer) Open(*sdk.ExportContext) error { return nil }
func (o *observer) WriteRecord(rec *sdk.RecordInfo) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.written[rec.Metadata.XRequestID]++
	return nil
}
func (o *observer) Close() error { o.closed++; return nil }

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

func readJSONL(t *testing.T, path string) []sdk.RecordInfo {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []sdk.RecordInfo
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var r sdk.RecordInfo
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, r)
	}
	return out
}

func TestPipelineDeliversEveryRecordOnce(t *testing.T) {
	const n = 30
	done, info := finishedRequests(t, n, 0)
	for _, workers := range []int{0, 1, 7} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			proc := metricrecord.New()
			acc := metricresults.New()
			for _, err := range []error{proc.Init(info), acc.Init(info)} {
				if err != nil {
					t.Fatal(err)
				}
			}
			dir := t.TempDir()
			jsonl := jsonlexport.New()
			ec := &sdk.ExportContext{ArtifactDir: dir, Files: sdk.ArtifactFiles{RecordsJSONL: "records.jsonl"}, ExportLevel: "records"}
			if err := jsonl.Open(ec); err != nil {
				t.Fatal(err)
			}
			obs := newObserver()
			p := NewPipeline(Config{Endpoint: chat.New(), Tokenizer: tiktoken.New(), Processors: []sdk.RecordProcessor{proc},
				Accumulators: []sdk.Accumulator{acc, obs}, Sinks: []sdk.RecordSink{jsonl, obs}, Workers: workers})
			for _, c := range done {
				// Each subtest parses its own copy: Parse may write rec.Error.
				rec := *c.Record
				p.Submit(engine.Completed{Record: &rec, Request: c.Request})
			}
			if err := p.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if err := jsonl.Close(); err != nil {
				t.Fatal(err)
			}
			if p.Records() != n {
				t.Errorf("Records() = %d, want %d", p.Records(), n)
			}
			exactlyOnce(t, "accumulator", obs.added, done)
			exactlyOnce(t, "sink", obs.written, done)
			if obs.closed != 0 {
				t.Error("the pipeline closed a sink it does not own")
			}
			// The real processor ran on every record before it reached the accumulators.
			for id, vals := range obs.values {
				if _, ok := vals["request_latency"]; !ok {
					t.Errorf("record %s reached the accumulator without request_latency: %v", id, vals)
				}
				if osl, ok := vals["output_sequence_length"]; !ok || osl.Scalar != 4 {
					t.Errorf("record %s output_sequence_length %+v, want 4 (max_tokens with ignore_eos)", id, osl)
				}
			}
			res, err := acc.Summarize()
			if err != nil {
				t.Fatal(err)
			}
			if rc, ok := res.Metric("request_count"); !ok || rc.Avg == nil || *rc.Avg != n || res.CompletedRecords != n {
				t.Errorf("request_count %+v, CompletedRecords %d; want %d", rc.Avg, res.CompletedRecords, n)
			}
			lines := readJSONL(t, filepath.Join(dir, "records.jsonl"))
			written := map[string]int{}
			for _, l := range lines {
				written[l.Metadata.XRequestID]++
				if _, ok := l.Metrics["time_to_first_token"]; !ok || l.Error != nil {
					t.Errorf("JSONL line %s lacks TTFT or has an error: %+v", l.Metadata.XRequestID, l.Error)
				}
			}
			exactlyOnce(t, "jsonl file", written, done)
		})
	}
}

func TestPipelineReportsSinkErrorsOnClose(t *testing.T) {
	const n = 12
	done, info := finishedRequests(t, n, 0)
	acc := metricresults.New()
	if err := acc.Init(info); err != nil {
		t.Fatal(err)
	}
	obs := newObserver()
	// A jsonl exporter that was never opened refuses every record.
	broken := jsonlexport.New()
	var logBuf bytes.Buffer
	p := NewPipeline(Config{Endpoint: chat.New(), Tokenizer: tiktoken.New(), Accumulators: []sdk.Accumulator{acc},
		Sinks: []sdk.RecordSink{broken, obs}, Workers: 2, Logger: slog.New(slog.NewTextHandler(&logBuf, nil))})
	for _, c := range done {
		p.Submit(c)
	}
	err := p.Close()
	if err == nil {
		t.Fatal("Close returned nil although the sink failed every write")
	}
	if !strings.Contains(err.Error(), "record sink *jsonlexport.Exporter") || !strings.Contains(err.Error(), "WriteRecord before Open") {
		t.Errorf("Close error %q does not name the sink and its error", err)
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
	if res, _ := acc.Summarize(); res.CompletedRecords != n {
		t.Errorf("accumulator got %d records, want %d", res.CompletedRecords, n)
	}
}

// tagger is a second record processor that adds one value or fails.
type tagger struct{ fail bool }

func (tagger) Init(sdk.RunInfo) error { return nil }
func (g tagger) Process(rec *sdk.ParsedRecord) (*sdk.RecordMetrics, error) {
	if g.fail {
		return nil, errors.New("tagger refuses")
	}
	return &sdk.RecordMetrics{Record: rec.Record, Values: map[string]sdk.MetricValue{"tagged": {Scalar: 1}}}, nil
}

func TestPipelineProcessors(t *testing.T) {
	const n = 14
	done, info := finishedRequests(t, n, 0)
	initialized := func() sdk.RecordProcessor {
		p := metricrecord.New()
		if err := p.Init(info); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name       string
		processors []sdk.RecordProcessor
		wantTags   []string
		absentTags []string
		wantErr    string
	}{
		{name: "values of several processors are merged", processors: []sdk.RecordProcessor{initialized(), tagger{}},
			wantTags: []string{"request_latency", "tagged"}},
		{name: "a failing processor keeps the others' values", processors: []sdk.RecordProcessor{tagger{fail: true}, initialized()},
			wantTags: []string{"request_latency"}, absentTags: []string{"tagged"}, wantErr: "tagger refuses"},
		{name: "every processor failing still forwards the record", processors: []sdk.RecordProcessor{metricrecord.New()},
			absentTags: []string{"request_latency"}, wantErr: "Process called before Init"},
		{name: "no processors", absentTags: []string{"request_latency"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			obs := newObserver()
			p := NewPipeline(Config{Endpoint: chat.New(), Tokenizer: tiktoken.New(), Processors: c.processors,
				Accumulators: []sdk.Accumulator{obs}, Workers: 3, Logger: slog.New(slog.DiscardHandler)})
			for _, cm := range done {
				rec := *cm.Record
				p.Submit(engine.Completed{Record: &rec, Request: cm.Request})
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
				}
			}
			if p.Records() != n {
				t.Errorf("Records() = %d, want %d", p.Records(), n)
			}
		})
	}
}

func TestPipelineCarriesErrorRecords(t *testing.T) {
	const n = 6
	done, info := finishedRequests(t, n, 100)
	proc, acc := metricrecord.New(), metricresults.New()
	if err := proc.Init(info); err != nil {
		t.Fatal(err)
	}
	if err := acc.Init(info); err != nil {
		t.Fatal(err)
	}
	obs := newObserver()
	p := NewPipeline(Config{Endpoint: chat.New(), Tokenizer: tiktoken.New(), Processors: []sdk.RecordProcessor{proc},
		Accumulators: []sdk.Accumulator{acc}, Sinks: []sdk.RecordSink{obs}})
	for _, c := range done {
		p.Submit(c)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	exactlyOnce(t, "sink", obs.written, done)
	res, err := acc.Summarize()
	if err != nil {
		t.Fatal(err)
	}
	if ec, ok := res.Metric("error_request_count"); !ok || ec.Avg == nil || *ec.Avg != n {
		t.Errorf("error_request_count = %+v, want %d", ec.Avg, n)
	}
	if len(res.ErrorSummary) != 1 || res.ErrorSummary[0].Count != n || res.ErrorSummary[0].ErrorDetails.Code != 500 {
		t.Errorf("error summary %+v", res.ErrorSummary)
	}
}
