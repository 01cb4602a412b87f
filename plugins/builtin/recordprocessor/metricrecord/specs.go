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

	// AIPerf 0.13's usage, mismatch and per-request throughput families
	// (docs/METRICS.md §2.4).
	TagUsagePromptTokens     = "usage_prompt_tokens"
	TagUsageCompletionTokens = "usage_completion_tokens"
	TagUsageTotalTokens      = "usage_total_tokens"
	TagUsageReasoningTokens  = "usage_reasoning_tokens"
	TagUsagePromptDiff       = "usage_prompt_tokens_diff_pct"
	TagUsageCompletionDiff   = "usage_completion_tokens_diff_pct"
	TagUsageReasoningDiff    = "usage_reasoning_tokens_diff_pct"
	TagOSLMismatchDiff       = "osl_mismatch_diff_pct"
	TagE2EOutputTPS          = "e2e_output_token_throughput"
	TagPrefillTPSPerUser     = "prefill_throughput_per_user"
	TagDecodeDuration        = "decode_duration"
)

// Units values are produced and shown in.
const (
	unitNs            = "ns"
	unitMs            = "ms"
	unitTokens        = "tokens"
	unitTokensPerUser = "tokens/sec/user"
	unitPercent       = "%"
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

	// AIPerf 0.13's families (usage_metrics.py, usage_diff_metrics.py,
	// osl_mismatch_metrics.py, e2e_output_throughput_metric.py,
	// prefill_throughput_per_user.py, decode_duration_metric.py). NO_CONSOLE
	// stands for AIPerf's console group NONE; the usage counts are in its
	// USAGE table. DISABLE_ON_ACCURACY (osl_mismatch_diff_pct) has no
	// counterpart, this build has no accuracy mode.
	{Tag: TagUsagePromptTokens, Header: "Usage Prompt Tokens", ShortHeader: "Usage Prompt",
		Unit: unitTokens, DisplayUnit: unitTokens,
		Flags: sdk.FlagTokenizesInputOnly | sdk.FlagLargerIsBetter, DisplayOrder: 1000, ConsoleGroup: sdk.ConsoleGroupUsage, Integer: true},
	{Tag: TagUsageCompletionTokens, Header: "Usage Completion Tokens", ShortHeader: "Usage Completion",
		Unit: unitTokens, DisplayUnit: unitTokens,
		Flags: sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter, DisplayOrder: 1100, ConsoleGroup: sdk.ConsoleGroupUsage, Integer: true},
	{Tag: TagUsageTotalTokens, Header: "Usage Total Tokens", ShortHeader: "Usage Total",
		Unit: unitTokens, DisplayUnit: unitTokens,
		Flags: sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter, DisplayOrder: 1200, ConsoleGroup: sdk.ConsoleGroupUsage, Integer: true},
	{Tag: TagUsageReasoningTokens, Header: "Usage Reasoning Tokens", ShortHeader: "Usage Reasoning",
		Unit: unitTokens, DisplayUnit: unitTokens,
		Flags: sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter, DisplayOrder: 1110, ConsoleGroup: sdk.ConsoleGroupUsage, Integer: true},
	{Tag: TagUsagePromptDiff, Header: "Usage Prompt Diff %", ShortHeader: "Prompt Diff",
		Unit: unitPercent, DisplayUnit: unitPercent,
		Flags:    sdk.FlagTokenizesInputOnly | sdk.FlagUsageDiffOnly | sdk.FlagNoConsole,
		Requires: []string{TagUsagePromptTokens, TagISL}},
	{Tag: TagUsageCompletionDiff, Header: "Usage Completion Diff %", ShortHeader: "Completion Diff",
		Unit: unitPercent, DisplayUnit: unitPercent,
		Flags:    sdk.FlagProducesTokensOnly | sdk.FlagUsageDiffOnly | sdk.FlagNoConsole,
		Requires: []string{TagUsageCompletionTokens, TagOSL}},
	{Tag: TagUsageReasoningDiff, Header: "Usage Reasoning Diff %", ShortHeader: "Reasoning Diff",
		Unit: unitPercent, DisplayUnit: unitPercent,
		Flags:    sdk.FlagProducesTokensOnly | sdk.FlagSupportsReasoning | sdk.FlagUsageDiffOnly | sdk.FlagNoConsole,
		Requires: []string{TagUsageReasoningTokens, TagReasoningCount}},
	// AIPerf also requires its INTERNAL requested_osl metric; here the
	// requested max tokens come with the record (RequestedOutputTokens).
	{Tag: TagOSLMismatchDiff, Header: "OSL Mismatch Diff %", ShortHeader: "OSL Diff",
		Unit: unitPercent, DisplayUnit: unitPercent,
		Flags:    sdk.FlagProducesTokensOnly | sdk.FlagNoConsole,
		Requires: []string{TagOSL}},
	{Tag: TagE2EOutputTPS, Header: "E2E Output Token Throughput", ShortHeader: "E2E Output TPS/User",
		Unit: unitTokensPerUser, DisplayUnit: unitTokensPerUser,
		Flags: sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter, DisplayOrder: 510,
		Requires: []string{TagOSL, TagRequestLatency}},
	{Tag: TagPrefillTPSPerUser, Header: "Prefill Throughput Per User", ShortHeader: "Prefill TPS/User",
		Unit: unitTokensPerUser, DisplayUnit: unitTokensPerUser,
		Flags:    streamingTokensOnly | sdk.FlagTokenizesInputOnly | sdk.FlagLargerIsBetter | sdk.FlagNoConsole,
		Requires: []string{TagISL, TagTTFT}},
	{Tag: TagDecodeDuration, Header: "Decode Duration", ShortHeader: "Decode Duration",
		Unit: unitNs, DisplayUnit: unitMs,
		Flags: streamingTokensOnly | percentileWithFailure, DisplayOrder: 350,
		Requires: []string{TagRequestLatency, TagTTFT}},
}
