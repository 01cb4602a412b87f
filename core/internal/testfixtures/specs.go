package testfixtures

import (
	"slices"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Record metric tags of AIPerf used by core tests.
const (
	TagTTFT             = "time_to_first_token"
	TagTTST             = "time_to_second_token"
	TagTTFO             = "time_to_first_output_token"
	TagRequestLatency   = "request_latency"
	TagITL              = "inter_token_latency"
	TagICL              = "inter_chunk_latency"
	TagTPSPerUser       = "output_token_throughput_per_user"
	TagOSL              = "output_sequence_length"
	TagOutputTokenCount = "output_token_count"
	TagReasoningCount   = "reasoning_token_count"
	TagISL              = "input_sequence_length"
	TagErrorISL         = "error_isl"
	TagScheduleLag      = "schedule_lag"
)

const streamingTokensOnly = sdk.FlagStreamingTokensOnly

// recordSpecs mirror the built-in record processor's declarations (AIPerf's
// record metrics), so core tests see a realistic catalog.
var recordSpecs = []sdk.MetricSpec{
	{Tag: TagTTFT, Header: "Time to First Token", ShortHeader: "TTFT", Unit: "ns", DisplayUnit: "ms",
		Flags: streamingTokensOnly | sdk.FlagPercentileIncludesFailedRequests, DisplayOrder: 100},
	{Tag: TagTTST, Header: "Time to Second Token", ShortHeader: "TTST", Unit: "ns", DisplayUnit: "ms",
		Flags: streamingTokensOnly, DisplayOrder: 200},
	{Tag: TagTTFO, Header: "Time to First Output Token", ShortHeader: "TTFO", Unit: "ns", DisplayUnit: "ms",
		Flags: streamingTokensOnly | sdk.FlagSupportsReasoning, DisplayOrder: 210},
	{Tag: TagRequestLatency, Header: "Request Latency", ShortHeader: "Req Latency", Unit: "ns", DisplayUnit: "ms",
		Flags: sdk.FlagPercentileIncludesFailedRequests, DisplayOrder: 300},
	{Tag: TagITL, Header: "Inter Token Latency", ShortHeader: "ITL", Unit: "ns", DisplayUnit: "ms",
		Flags: streamingTokensOnly | sdk.FlagPercentileIncludesFailedRequests, DisplayOrder: 400,
		Requires: []string{TagRequestLatency, TagTTFT, TagOSL}},
	{Tag: TagICL, Header: "Inter Chunk Latency", ShortHeader: "ICL", Unit: "ns", DisplayUnit: "ms",
		Flags: streamingTokensOnly | sdk.FlagNoConsole, List: true},
	{Tag: TagTPSPerUser, Header: "Output Token Throughput Per User", ShortHeader: "Output TPS/User",
		Unit: "tokens/sec/user", DisplayUnit: "tokens/sec/user",
		Flags: streamingTokensOnly | sdk.FlagLargerIsBetter, DisplayOrder: 500, Requires: []string{TagITL}},
	{Tag: TagOSL, Header: "Output Sequence Length", ShortHeader: "OSL", Unit: "tokens", DisplayUnit: "tokens",
		Flags: sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter, DisplayOrder: 600, Integer: true},
	{Tag: TagOutputTokenCount, Header: "Output Token Count", ShortHeader: "Output Tokens", Unit: "tokens", DisplayUnit: "tokens",
		Flags: sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter | sdk.FlagNoConsole, Integer: true},
	{Tag: TagReasoningCount, Header: "Reasoning Token Count", ShortHeader: "Reasoning Tokens", Unit: "tokens", DisplayUnit: "tokens",
		Flags:   sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter | sdk.FlagSupportsReasoning | sdk.FlagNoConsole,
		Integer: true},
	{Tag: TagISL, Header: "Input Sequence Length", ShortHeader: "ISL", Unit: "tokens", DisplayUnit: "tokens",
		Flags: sdk.FlagTokenizesInputOnly | sdk.FlagLargerIsBetter, DisplayOrder: 700, Integer: true},
	{Tag: TagErrorISL, Header: "Error Input Sequence Length", ShortHeader: "Error ISL", Unit: "tokens", DisplayUnit: "tokens",
		Flags:   sdk.FlagTokenizesInputOnly | sdk.FlagLargerIsBetter | sdk.FlagNoConsole | sdk.FlagErrorOnly,
		Integer: true},
	{Tag: TagScheduleLag, Header: "Schedule Lag", ShortHeader: "Sched Lag", Unit: "ns", DisplayUnit: "ms",
		Flags: sdk.FlagNoConsole},
}

// RecordSpecs returns a copy of AIPerf's record-metric declarations.
func RecordSpecs() []sdk.MetricSpec {
	out := slices.Clone(recordSpecs)
	for i := range out {
		out[i].Requires = slices.Clone(out[i].Requires)
	}
	return out
}

// Specs returns the copies of the named record specs, in the given order.
func Specs(tags ...string) []sdk.MetricSpec {
	all := RecordSpecs()
	out := make([]sdk.MetricSpec, 0, len(tags))
	for _, tag := range tags {
		i := slices.IndexFunc(all, func(s sdk.MetricSpec) bool { return s.Tag == tag })
		if i < 0 {
			panic("testfixtures: no spec " + tag)
		}
		out = append(out, all[i])
	}
	return out
}

// ChatEndpointMetadata is a token-producing, input-tokenizing endpoint that
// streams (openai chat).
var ChatEndpointMetadata = sdk.EndpointMetadata{
	EndpointPath: "/v1/chat/completions", ServiceKind: "openai",
	SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true,
	MetricsTitle: "LLM Metrics",
}

// StreamingRun is a streaming chat run without goodput.
func StreamingRun() sdk.RunInfo { return sdk.RunInfo{Endpoint: ChatEndpointMetadata, Streaming: true} }
