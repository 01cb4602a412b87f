package metricrecord_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/engine"
	"github.com/aiperf-go/aiperf/core/metrics"
	"github.com/aiperf-go/aiperf/core/records"
	"github.com/aiperf-go/aiperf/core/transport"
	"github.com/aiperf-go/aiperf/mockserver"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/accumulator/metricresults"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/jsonlexport"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/chat"
	"github.com/aiperf-go/aiperf/plugins/builtin/recordprocessor/metricrecord"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
)

func intp(n int) *int { return &n }

// closedLoop sends credits from `workers` goroutines until n were sent.
type closedLoop struct{ workers int }

func (s closedLoop) Run(ctx context.Context, plan sdk.PhasePlan, sender sdk.CreditSender) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range s.workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= plan.RequestCount || ctx.Err() != nil {
					return
				}
				sender.Send(ctx, sdk.Credit{Index: i, Phase: plan.Phase})
			}
		})
	}
	wg.Wait()
	return nil
}

// roundRobin sends the sessions in order, over and over.
type roundRobin struct{}

func (roundRobin) Order(n int, _ int64) func(int) int { return func(i int) int { return i % n } }

// Pick serves the URL selection too: there is one URL.
func (roundRobin) Pick(credit, urls int) int { return credit % urls }

// finishedRequests runs n real requests (streaming chat, 4 tokens each)
// against the mock server and returns them as the engine hands them over.
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
	eng, err := engine.New(tr, closedLoop{workers: 4}, reqs, engine.Options{URLs: []string{"http://" + addr + chat.Path}, Streaming: true,
		Sampler: roundRobin{}, URLSelection: roundRobin{}})
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

// builtins wires the built-in processor and accumulator the way the core
// does: the catalog from the declarations, then Init and SetMetrics.
func builtins(t *testing.T, info sdk.RunInfo) (*metrics.Catalog, *metricrecord.Processor, *metricresults.Accumulator) {
	t.Helper()
	proc := metricrecord.New()
	cat, err := metrics.NewCatalog([]metrics.Declared{{Plugin: metricrecord.Name, Specs: proc.Metrics()}}, info)
	if err != nil {
		t.Fatal(err)
	}
	acc := metricresults.New()
	if err := acc.Init(context.Background(), info); err != nil {
		t.Fatal(err)
	}
	if err := acc.SetMetrics(cat.Specs()); err != nil {
		t.Fatal(err)
	}
	return cat, proc, acc
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

// Real requests through the record pipeline with the built-in endpoint,
// tokenizer, processor, accumulator and JSONL exporter.
func TestBuiltinsThroughThePipeline(t *testing.T) {
	const n = 30
	done, info := finishedRequests(t, n, 0)
	cat, proc, acc := builtins(t, info)
	dir := t.TempDir()
	jsonl := jsonlexport.New()
	ec := &sdk.ExportContext{ArtifactDir: dir, Files: sdk.ArtifactFiles{RecordsJSONL: "records.jsonl"}, ExportLevel: "records"}
	if err := jsonl.Open(ec); err != nil {
		t.Fatal(err)
	}
	p := records.NewPipeline(records.Config{Endpoint: chat.New(), Tokenizer: tiktoken.New(), Processors: []sdk.RecordProcessor{proc},
		ProcessorNames: []string{metricrecord.Name}, Catalog: cat, Accumulators: []sdk.Accumulator{acc}, Sinks: []sdk.RecordSink{jsonl}})
	for _, c := range done {
		p.Submit(c)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := jsonl.Close(); err != nil {
		t.Fatal(err)
	}
	res, err := acc.Summarize()
	if err != nil {
		t.Fatal(err)
	}
	if rc, ok := res.Metric("request_count"); !ok || rc.Avg == nil || *rc.Avg != n || res.CompletedRecords != n {
		t.Errorf("request_count %+v, CompletedRecords %d; want %d", rc.Avg, res.CompletedRecords, n)
	}
	// max_tokens 4 with ignore_eos: every answer is 4 tokens.
	if osl, ok := res.Metric("output_sequence_length"); !ok || *osl.Min != 4 || *osl.Max != 4 || *osl.Count != n {
		t.Errorf("output_sequence_length = %+v, want %d values of 4", osl, n)
	}
	lines := readJSONL(t, filepath.Join(dir, "records.jsonl"))
	written := map[string]int{}
	for _, l := range lines {
		written[l.Metadata.XRequestID]++
		if _, ok := l.Metrics["time_to_first_token"]; !ok || l.Error != nil {
			t.Errorf("JSONL line %s lacks TTFT or has an error: %+v", l.Metadata.XRequestID, l.Error)
		}
		if _, ok := l.Metrics["request_latency"]; !ok {
			t.Errorf("JSONL line %s lacks request_latency", l.Metadata.XRequestID)
		}
		if osl := l.Metrics["output_sequence_length"]; osl.Value != 4.0 || osl.Unit != "tokens" {
			t.Errorf("JSONL line %s: output_sequence_length %+v, want 4 tokens", l.Metadata.XRequestID, osl)
		}
		if l.Metadata.RecordProcessorID != "record_processor_0" {
			t.Errorf("JSONL line %s: record_processor_id %q", l.Metadata.XRequestID, l.Metadata.RecordProcessorID)
		}
	}
	if len(written) != n {
		t.Errorf("JSONL has %d distinct requests, want %d", len(written), n)
	}
	for id, k := range written {
		if k != 1 {
			t.Errorf("JSONL has request %s %d times", id, k)
		}
	}
}

func TestBuiltinsCountErrorRecords(t *testing.T) {
	const n = 6
	done, info := finishedRequests(t, n, 100)
	cat, proc, acc := builtins(t, info)
	p := records.NewPipeline(records.Config{Endpoint: chat.New(), Tokenizer: tiktoken.New(), Processors: []sdk.RecordProcessor{proc},
		Catalog: cat, Accumulators: []sdk.Accumulator{acc}})
	for _, c := range done {
		p.Submit(c)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
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
	if _, ok := res.Metric("request_count"); ok {
		t.Error("request_count present on an all-error run")
	}
}
