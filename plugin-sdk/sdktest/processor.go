package sdktest

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// processorRunInfo is what the record processor checks pass to Init: a
// streaming, token-producing chat endpoint with one goodput SLO.
var processorRunInfo = sdk.RunInfo{
	Endpoint: sdk.EndpointMetadata{EndpointPath: "/v1/chat/completions", StreamingPath: "/v1/chat/completions",
		ServiceKind: "openai", SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true, MetricsTitle: "LLM Metrics"},
	Streaming: true,
	Goodput:   map[string]float64{"request_latency": 300},
}

type namedRecord struct {
	name string
	rec  *sdk.ParsedRecord
}

// sampleRecords are the records the core hands a processor: a streamed
// answer, a whole-body answer, an HTTP error, a cancellation and a
// successful request without any response unit. Times are perf-clock ns.
func sampleRecords() []namedRecord {
	const start = int64(5_000_000_000)
	base := func(streaming bool) *sdk.RequestRecord {
		return &sdk.RequestRecord{ConversationID: "sdktest-conversation", XRequestID: "sdktest-request", Model: "sdktest-model",
			Phase: sdk.PhaseProfiling, WorkerID: "worker-0", CreditIssuedNs: start - 1_000_000, TimestampNs: 1_760_000_000_000_000_000,
			StartPerfNs: start, AckPerfNs: start + 20_000_000, EndPerfNs: start + 250_000_000, Streaming: streaming, Status: 200,
			RequestedOutputTokens: intPtr(3)}
	}
	usage := &sdk.Usage{PromptTokens: intPtr(4), CompletionTokens: intPtr(3), TotalTokens: intPtr(7)}

	streamed := &sdk.ParsedRecord{Record: base(true), InputText: textAlpha, InputTokens: intPtr(4), OutputTokens: intPtr(3), Usage: usage,
		Responses: []sdk.ParsedResponse{
			{PerfNs: start + 30_000_000}, // role-only delta
			{PerfNs: start + 40_000_000, Text: " alpha"},
			{PerfNs: start + 90_000_000, Text: " beta"},
			{PerfNs: start + 150_000_000, Text: " gamma"},
			{PerfNs: start + 250_000_000, Usage: usage},
		}}
	whole := &sdk.ParsedRecord{Record: base(false), InputText: textAlpha, InputTokens: intPtr(4), OutputTokens: intPtr(3), Usage: usage,
		Responses: []sdk.ParsedResponse{{PerfNs: start + 250_000_000, Text: " alpha beta gamma", Usage: usage}}}

	failed := base(true)
	failed.Status, failed.AckPerfNs = 500, start+15_000_000
	failed.EndPerfNs = failed.AckPerfNs
	failed.Error = &sdk.ErrorDetails{Code: 500, Type: "Internal Server Error", Message: "sdktest: upstream failure"}

	cancelled := base(true)
	cancelled.WasCancelled, cancelled.CancellationTimeNs = true, start+60_000_000
	cancelled.Error = &sdk.ErrorDetails{Code: 499, Type: "RequestCancellationError", Message: "request was cancelled"}

	return []namedRecord{
		{"streamed answer", streamed},
		{"non-streaming answer", whole},
		{"HTTP 500 error", &sdk.ParsedRecord{Record: failed, InputText: textAlpha, InputTokens: intPtr(4)}},
		{"cancelled request", &sdk.ParsedRecord{Record: cancelled, InputText: textAlpha, InputTokens: intPtr(4),
			Responses: []sdk.ParsedResponse{{PerfNs: start + 40_000_000, Text: " alpha"}}}},
		{"no responses", &sdk.ParsedRecord{Record: base(false), InputText: textAlpha, InputTokens: intPtr(4)}},
	}
}

// RecordProcessor checks an sdk.RecordProcessor in process. Process before
// Init may return an error or work: both are accepted, a panic is not.
func RecordProcessor(t testing.TB, rp sdk.RecordProcessor) {
	t.Helper()
	if rp == nil {
		t.Fatalf("sdktest: RecordProcessor: the processor is nil")
	}
	records := sampleRecords()
	// Before Init: only a panic or a hang fails; the result is not checked.
	call(t, "Process before Init", func() (*sdk.RecordMetrics, error) { return rp.Process(records[0].rec) })

	if _, ok, err := call(t, "Init", func() (struct{}, error) { return struct{}{}, rp.Init(processorRunInfo) }); !ok || err != nil {
		if ok {
			t.Errorf("sdktest: Init(streaming chat endpoint) returned error: %v", err)
		}
		return
	}
	for _, r := range records {
		what := fmt.Sprintf("Process(%s)", r.name)
		rm, ok, err := call(t, what, func() (*sdk.RecordMetrics, error) { return rp.Process(r.rec) })
		switch {
		case !ok:
		case err != nil:
			t.Errorf("sdktest: %s returned error: %v (records like this are normal in a run)", what, err)
		default:
			checkValues(t, what, rm)
		}
	}
	checkConcurrentProcess(t, rp, records[0].rec)
}

// checkValues checks one result: tags are names, values finite, and list
// values flagged IsList.
func checkValues(t testing.TB, what string, rm *sdk.RecordMetrics) {
	t.Helper()
	if rm == nil {
		return // no metrics for this record
	}
	for tag, v := range rm.Values {
		switch {
		case tag == "" || strings.ContainsAny(tag, " \t\r\n"):
			t.Errorf("sdktest: %s: metric tag %q must be a non-empty name without whitespace", what, tag)
		case !finite(v.Scalar):
			t.Errorf("sdktest: %s: metric %s = %v is not finite", what, tag, v.Scalar)
		case len(v.List) > 0 && !v.IsList:
			t.Errorf("sdktest: %s: metric %s has %d list values but IsList is false", what, tag, len(v.List))
		}
		for i, x := range v.List {
			if !finite(x) {
				t.Errorf("sdktest: %s: metric %s list value [%d] = %v is not finite", what, tag, i, x)
				break
			}
		}
	}
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// checkConcurrentProcess calls Process from several goroutines, as the core
// does; with -race this also catches data races.
func checkConcurrentProcess(t testing.TB, rp sdk.RecordProcessor, rec *sdk.ParsedRecord) {
	t.Helper()
	const goroutines, calls = 4, 8
	what := fmt.Sprintf("Process from %d goroutines", goroutines)
	problems, ok := callNoErr(t, what, func() []string {
		var mu sync.Mutex
		var problems []string
		report := func(p string) {
			mu.Lock()
			defer mu.Unlock()
			problems = append(problems, p)
		}
		var wg sync.WaitGroup
		for range goroutines {
			wg.Go(func() {
				defer func() {
					if p := recover(); p != nil {
						report(fmt.Sprintf("panicked: %v", p))
					}
				}()
				for range calls {
					if _, err := rp.Process(rec); err != nil {
						report(fmt.Sprintf("returned error: %v", err))
						return
					}
				}
			})
		}
		wg.Wait()
		return problems
	})
	if ok && len(problems) > 0 {
		t.Errorf("sdktest: %s: %s", what, strings.Join(problems, "; "))
	}
}
