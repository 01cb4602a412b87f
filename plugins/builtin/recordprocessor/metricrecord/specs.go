package metricrecord

import sdk "github.com/aiperf-go/aiperf/plugin-sdk"

// Tags of the metrics this processor declares, exactly as AIPerf names them.
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
	// TagScheduleLag is ours (not AIPerf's): how late a scheduled request
	// was actually sent, so timing precision is visible per record.
	TagScheduleLag = "schedule_lag"
)

// Units values are produced and shown in.
const (
	unitNs            = "ns"
	unitMs            = "ms"
	unitTokens        = "tokens"
	unitTokensPerUser = "tokens/sec/user"
)

const (
	streamingTokensOnly   = sdk.FlagStreamingTokensOnly
	percentileWithFailure = sdk.FlagPercentileIncludesFailedRequests
)

// specs is AIPerf's record-metric table (docs/METRICS.md §2, checked against its
// metric classes): headers, short headers, units, flags, display orders
// (0 = none, sorted last) and dependencies. Latencies are produced in ns and
// shown in ms.
var specs = []sdk.MetricSpec{
	{Tag: TagTTFT, Header: "Time to First Token", ShortHeader: "TTFT",
		Unit: unitNs, DisplayUnit: unitMs,
		Flags: streamingTokensOnly | percentileWithFailure, DisplayOrder: 100},
	{Tag: TagTTST, Header: "Time to Second Token", ShortHeader: "TTST",
		Unit: unitNs, DisplayUnit: unitMs,
		Flags: streamingTokensOnly, DisplayOrder: 200},
	{Tag: TagTTFO, Header: "Time to First Output Token", ShortHeader: "TTFO",
		Unit: unitNs, DisplayUnit: unitMs,
		Flags: streamingTokensOnly | sdk.FlagSupportsReasoning, DisplayOrder: 210},
	{Tag: TagRequestLatency, Header: "Request Latency", ShortHeader: "Req Latency",
		Unit: unitNs, DisplayUnit: unitMs,
		Flags: percentileWithFailure, DisplayOrder: 300},
	{Tag: TagITL, Header: "Inter Token Latency", ShortHeader: "ITL",
		Unit: unitNs, DisplayUnit: unitMs,
		Flags: streamingTokensOnly | percentileWithFailure, DisplayOrder: 400,
		Requires: []string{TagRequestLatency, TagTTFT, TagOSL}},
	{Tag: TagICL, Header: "Inter Chunk Latency", ShortHeader: "ICL",
		Unit: unitNs, DisplayUnit: unitMs,
		Flags: streamingTokensOnly | sdk.FlagNoConsole, List: true},
	{Tag: TagTPSPerUser, Header: "Output Token Throughput Per User", ShortHeader: "Output TPS/User",
		Unit: unitTokensPerUser, DisplayUnit: unitTokensPerUser,
		Flags: streamingTokensOnly | sdk.FlagLargerIsBetter, DisplayOrder: 500,
		Requires: []string{TagITL}},
	{Tag: TagOSL, Header: "Output Sequence Length", ShortHeader: "OSL",
		Unit: unitTokens, DisplayUnit: unitTokens,
		Flags: sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter, DisplayOrder: 600, Integer: true},
	{Tag: TagOutputTokenCount, Header: "Output Token Count", ShortHeader: "Output Tokens",
		Unit: unitTokens, DisplayUnit: unitTokens,
		Flags:   sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter | sdk.FlagNoConsole,
		Integer: true},
	{Tag: TagReasoningCount, Header: "Reasoning Token Count", ShortHeader: "Reasoning Tokens",
		Unit: unitTokens, DisplayUnit: unitTokens,
		Flags:   sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter | sdk.FlagSupportsReasoning | sdk.FlagNoConsole,
		Integer: true},
	{Tag: TagISL, Header: "Input Sequence Length", ShortHeader: "ISL",
		Unit: unitTokens, DisplayUnit: unitTokens,
		Flags: sdk.FlagTokenizesInputOnly | sdk.FlagLargerIsBetter, DisplayOrder: 700, Integer: true},
	{Tag: TagErrorISL, Header: "Error Input Sequence Length", ShortHeader: "Error ISL",
		Unit: unitTokens, DisplayUnit: unitTokens,
		Flags:   sdk.FlagTokenizesInputOnly | sdk.FlagLargerIsBetter | sdk.FlagNoConsole | sdk.FlagErrorOnly,
		Integer: true},
	{Tag: TagScheduleLag, Header: "Schedule Lag", ShortHeader: "Sched Lag",
		Unit: unitNs, DisplayUnit: unitMs,
		Flags: sdk.FlagNoConsole},
}
