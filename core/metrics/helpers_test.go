package metrics

import (
	"math"
	"testing"

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

func mustProcess(t *testing.T, p *RecordProcessor, pr *sdk.ParsedRecord) *sdk.RecordMetrics {
	t.Helper()
	rm, err := p.Process(pr)
	if err != nil {
		t.Fatalf("Process: %v", err)
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
