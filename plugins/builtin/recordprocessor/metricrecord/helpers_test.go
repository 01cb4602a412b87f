package metricrecord

import (
	"math"
	"testing"

	"github.com/aiperf-go/aiperf/core/metrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// chatEndpoint is a token-producing, input-tokenizing endpoint (openai chat).
var chatEndpoint = sdk.EndpointMetadata{
	EndpointPath: "/v1/chat/completions", ServiceKind: "openai",
	SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true,
	MetricsTitle: "LLM Metrics",
}

func streamingInfo() sdk.RunInfo { return sdk.RunInfo{Endpoint: chatEndpoint, Streaming: true} }

func intp(n int) *int { return &n }

// makeRecord mirrors AIPerf's create_record(start_ns, responses, tokens_per_response):
// a streaming record whose responses each carry text, with OutputTokens =
// tokensPerResponse * len(responses).
func makeRecord(start int64, responses []int64, tokensPerResponse int) *sdk.ParsedRecord {
	rs := make([]sdk.ParsedResponse, len(responses))
	for i, ns := range responses {
		rs[i] = sdk.ParsedResponse{PerfNs: ns, Text: "tok"}
	}
	return &sdk.ParsedRecord{
		Record: &sdk.RequestRecord{
			StartPerfNs: start, TimestampNs: start, Streaming: true,
			Phase: sdk.PhaseProfiling, Status: 200,
		},
		Responses:    rs,
		OutputTokens: intp(tokensPerResponse * len(responses)),
	}
}

// catalog is the run's catalog with this processor's metrics, as the core
// builds it.
func catalog(t testing.TB, info sdk.RunInfo) *metrics.Catalog {
	t.Helper()
	cat, err := metrics.NewCatalog([]metrics.Declared{{Plugin: Name, Specs: New().Metrics()}}, info)
	if err != nil {
		t.Fatalf("NewCatalog: %v", err)
	}
	return cat
}

// mustProcess runs the processor and, like the core's pipeline, drops what
// does not apply to a streaming chat run.
func mustProcess(t *testing.T, pr *sdk.ParsedRecord) *sdk.RecordMetrics {
	t.Helper()
	return mustProcessFor(t, streamingInfo(), pr)
}

func mustProcessFor(t *testing.T, info sdk.RunInfo, pr *sdk.ParsedRecord) *sdk.RecordMetrics {
	t.Helper()
	rm, err := New().Process(pr)
	if err != nil {
		t.Fatalf("Process: %v", err)
	}
	if catalog(t, info).Filter(rm.Values, pr.Record.Valid()) {
		t.Fatalf("undeclared values: %v", rm.Values)
	}
	return rm
}

func scalar(t *testing.T, rm *sdk.RecordMetrics, tag string) float64 {
	t.Helper()
	v, ok := rm.Values[tag]
	if !ok {
		t.Fatalf("%s absent; values: %v", tag, rm.Values)
	}
	if v.IsList {
		t.Fatalf("%s is a list, want a scalar", tag)
	}
	return v.Scalar
}

func assertAbsent(t *testing.T, rm *sdk.RecordMetrics, tags ...string) {
	t.Helper()
	for _, tag := range tags {
		if v, ok := rm.Values[tag]; ok {
			t.Errorf("%s = %+v, want absent", tag, v)
		}
	}
}

func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// docsExampleRecord reproduces AIPerf's documented profile_export.jsonl line:
// TTFT 255.886568 ms, latency 297.525228 ms, eight chunk gaps, OSL 9, ISL 550.
func docsExampleRecord() *sdk.ParsedRecord {
	gaps := []int64{4898437, 5316006, 4801489, 5674918, 4811467, 5097998, 5504797, 5533548}
	start := int64(1_000_000_000)
	at := start + 255886568
	resp := []int64{at}
	for _, g := range gaps {
		at += g
		resp = append(resp, at)
	}
	pr := makeRecord(start, resp, 1)
	pr.InputTokens = intp(550)
	pr.Record.TimestampNs = 1759813207532900363
	return pr
}
