package sdktest

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// processorRunInfo is what the record processor checks pass to Init: a
// streaming, token-producing chat endpoint with one goodput SLO.
func processorRunInfo(t testing.TB) sdk.RunInfo {
	return sdk.RunInfo{
		Endpoint: sdk.EndpointMetadata{EndpointPath: "/v1/chat/completions", StreamingPath: "/v1/chat/completions",
			ServiceKind: "openai", SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true, MetricsTitle: "LLM Metrics"},
		Streaming: true,
		Goodput:   map[string]float64{"request_latency": 300},
		Models:    []string{"sdktest-model"},
		Seed:      42,
		Phase:     sdk.PhaseProfiling,
		// MaxConcurrency and RequestTimeout serve built-in categories only.
		MaxConcurrency: 4,
		RequestTimeout: callTimeout,
		ArtifactDir:    t.TempDir(),
	}
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

// RecordProcessor checks an sdk.RecordProcessor in process: its settings
// (when it is sdk.Configurable), its declared metrics (Metrics, asked after
// Init as the core does) and the values Process returns for the sample
// records. Process before Init (sdk.Initializer) may return an error or
// work: both are accepted, a panic is not.
func RecordProcessor(t testing.TB, rp sdk.RecordProcessor) {
	t.Helper()
	if rp == nil {
		t.Fatalf("sdktest: RecordProcessor: the processor is nil")
	}
	if c, ok := rp.(sdk.Configurable); ok {
		checkConfigurable(t, c)
	}
	records := sampleRecords()
	if in, ok := rp.(sdk.Initializer); ok {
		// Before Init: only a panic or a hang fails; the result is not checked.
		call(t, "Process before Init", func() (*sdk.RecordMetrics, error) { return rp.Process(records[0].rec) })
		info := processorRunInfo(t)
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		_, ok, err := call(t, "Init", func() (struct{}, error) { return struct{}{}, in.Init(ctx, info) })
		cancel()
		if !ok || err != nil {
			if ok {
				t.Errorf("sdktest: Init(streaming chat endpoint) returned error: %v", err)
			}
			return
		}
	}
	specs, ok := callNoErr(t, "Metrics()", rp.Metrics)
	if !ok {
		return
	}
	declared := checkMetricSpecs(t, specs)
	for _, r := range records {
		what := fmt.Sprintf("Process(%s)", r.name)
		rm, ok, err := call(t, what, func() (*sdk.RecordMetrics, error) { return rp.Process(r.rec) })
		switch {
		case !ok:
		case err != nil:
			t.Errorf("sdktest: %s returned error: %v (records like this are normal in a run)", what, err)
		default:
			checkValues(t, what, rm, declared)
		}
	}
	checkConcurrentProcess(t, rp, records[0].rec)
}

// timeUnits are the units the core converts between (a DisplayUnit must be
// one of them when it differs from Unit).
var timeUnits = []string{"ns", "us", "ms", "s", "sec"}

// knownFlags are the bits of every AIPerf metric flag.
const knownFlags = sdk.FlagPercentileIncludesFailedRequests<<1 - 1

// checkMetricSpecs checks the declared metrics and returns them by tag
// (nil when none are declared: the values then cannot be checked against
// them).
func checkMetricSpecs(t testing.TB, specs []sdk.MetricSpec) map[string]sdk.MetricSpec {
	t.Helper()
	if len(specs) == 0 {
		t.Errorf("sdktest: Metrics() declares no metrics: a record processor declares every metric it produces (tag, header, unit)")
		return nil
	}
	declared := make(map[string]sdk.MetricSpec, len(specs))
	for i, m := range specs {
		where := fmt.Sprintf("Metrics()[%d] (%s)", i, m.Tag)
		if !validTag(m.Tag) {
			t.Errorf("sdktest: %s: metric tag %q must be a non-empty name without whitespace", where, m.Tag)
		}
		if _, dup := declared[m.Tag]; dup {
			t.Errorf("sdktest: %s: tag %q is declared twice", where, m.Tag)
		}
		declared[m.Tag] = m
		if strings.TrimSpace(m.Header) == "" {
			t.Errorf("sdktest: %s has no Header (the console table and the CSV label the metric with it)", where)
		}
		if strings.TrimSpace(m.Unit) == "" {
			t.Errorf("sdktest: %s has no Unit (the unit values are produced in, e.g. ns, tokens, characters)", where)
		}
		if m.DisplayUnit != "" && m.DisplayUnit != m.Unit &&
			(!slices.Contains(timeUnits, m.Unit) || !slices.Contains(timeUnits, m.DisplayUnit)) {
			t.Errorf("sdktest: %s: DisplayUnit %q cannot be converted from Unit %q: only %v convert into each other; leave DisplayUnit empty otherwise",
				where, m.DisplayUnit, m.Unit, timeUnits)
		}
		if extra := m.Flags &^ knownFlags; extra != 0 {
			t.Errorf("sdktest: %s: Flags %#x set bits no AIPerf metric flag uses (%#x)", where, uint32(m.Flags), uint32(extra))
		}
		for _, r := range m.Requires {
			if r == "" || r == m.Tag {
				t.Errorf("sdktest: %s: Requires %q: name the other metrics this one is computed from", where, m.Requires)
				break
			}
		}
	}
	return declared
}

func validTag(tag string) bool { return tag != "" && !strings.ContainsAny(tag, " \t\r\n") }

// checkValues checks one result: tags are names, values finite, list
// values flagged IsList, and (when the processor declares metrics) every
// tag declared, lists where the declaration says List, whole numbers where
// it says Integer.
func checkValues(t testing.TB, what string, rm *sdk.RecordMetrics, declared map[string]sdk.MetricSpec) {
	t.Helper()
	if rm == nil {
		return // no metrics for this record
	}
	for tag, v := range rm.Values {
		switch {
		case !validTag(tag):
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
		if declared == nil {
			continue
		}
		spec, ok := declared[tag]
		switch {
		case !ok:
			t.Errorf("sdktest: %s: metric %s is not declared by Metrics() (declare every tag Process returns)", what, tag)
			continue
		case spec.List && !v.IsList:
			t.Errorf("sdktest: %s: metric %s is declared List but its value is not a list (IsList false)", what, tag)
		case !spec.List && v.IsList:
			t.Errorf("sdktest: %s: metric %s is a list value but not declared List", what, tag)
		}
		if spec.Integer {
			for _, x := range append([]float64{v.Scalar}, v.List...) {
				if finite(x) && x != math.Trunc(x) {
					t.Errorf("sdktest: %s: metric %s is declared Integer but %v is not a whole number", what, tag, x)
					break
				}
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
