package metrics

import (
	"math"
	"testing"

	"github.com/aiperf-go/aiperf/core/internal/testfixtures"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Record metric tags of the fixture declarations (AIPerf's); the package
// names output_token_count and error_isl itself.
const (
	TagTTFT           = testfixtures.TagTTFT
	TagTTST           = testfixtures.TagTTST
	TagTTFO           = testfixtures.TagTTFO
	TagITL            = testfixtures.TagITL
	TagICL            = testfixtures.TagICL
	TagTPSPerUser     = testfixtures.TagTPSPerUser
	TagReasoningCount = testfixtures.TagReasoningCount
	TagScheduleLag    = testfixtures.TagScheduleLag
)

// chatEndpoint is a token-producing, input-tokenizing endpoint (openai chat).
var chatEndpoint = testfixtures.ChatEndpointMetadata

func streamingInfo() sdk.RunInfo { return testfixtures.StreamingRun() }

func intp(n int) *int { return &n }

// builtinDecl declares AIPerf's record metrics the way the built-in record
// processor does.
func builtinDecl() []Declared {
	return []Declared{{Plugin: "metric_record", Specs: testfixtures.RecordSpecs()}}
}

// newCatalog builds the catalog of a run with AIPerf's record metrics.
func newCatalog(t testing.TB, info sdk.RunInfo) *Catalog {
	t.Helper()
	cat, err := NewCatalog(builtinDecl(), info)
	if err != nil {
		t.Fatalf("NewCatalog: %v", err)
	}
	return cat
}

// vals builds scalar values.
func vals(kv map[string]float64) map[string]sdk.MetricValue {
	out := make(map[string]sdk.MetricValue, len(kv))
	for k, v := range kv {
		out[k] = sdk.MetricValue{Scalar: v}
	}
	return out
}

func list(xs ...float64) sdk.MetricValue { return sdk.MetricValue{List: xs, IsList: true} }

// processed is a successful streaming record starting at wall time tsNs
// with the given values (in declared units).
func processed(tsNs int64, values map[string]sdk.MetricValue) *sdk.RecordMetrics {
	return &sdk.RecordMetrics{
		Record: &sdk.RequestRecord{TimestampNs: tsNs, Streaming: true, Phase: sdk.PhaseProfiling, Status: 200},
		Values: values,
	}
}

// timedRecord is what the built-in processor makes of a successful streaming
// request starting at wall time tsNs whose only content response arrives
// latencyNs later with outputTokens tokens.
func timedRecord(tsNs, latencyNs int64, outputTokens int) *sdk.RecordMetrics {
	rm := processed(tsNs, vals(map[string]float64{
		TagRequestLatency: float64(latencyNs), TagTTFT: float64(latencyNs), TagTTFO: float64(latencyNs),
		TagOSL: float64(outputTokens), TagOutputTokenCount: float64(outputTokens),
	}))
	rm.Record.EndPerfNs = latencyNs
	return rm
}

// errorRecord is what the built-in processor makes of a failed request with
// 100 input tokens.
func errorRecord(tsNs int64, code int, typ, msg string) *sdk.RecordMetrics {
	rm := processed(tsNs, vals(map[string]float64{TagErrorISL: 100}))
	rm.Record.Error = &sdk.ErrorDetails{Code: code, Type: typ, Message: msg}
	rm.InputTokens = intp(100)
	return rm
}

func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}
