package metrics

import sdk "github.com/aiperf-go/aiperf/plugin-sdk"

// Kind says how a metric is computed (docs/METRICS.md §2).
type Kind int

const (
	// KindRecord is one value (or list) per request, aggregated into stats:
	// every metric a record processor declares.
	KindRecord Kind = iota + 1
	// KindAggregate is folded across records (counter, min, max).
	KindAggregate
	// KindDerived is computed from other metrics' final values.
	KindDerived
	// KindRecordTiming is one value per record, successful or failed, that
	// the core derives from the record's own timestamps (credit issue, start,
	// end), summarised with full statistics like a record metric but never
	// written per record: AIPerf's derived latencies, which its accumulator
	// (not a record processor) reconstructs from every record's metadata.
	KindRecordTiming
	// KindSweep is a time-weighted statistic of a step function the core
	// builds from every record's start, first token, chunks and end over
	// the profiling phase (AIPerf's sweep-line metrics, sweep.go): avg, min,
	// max, p50, p90, p95, p99 and std, no count or sum.
	KindSweep
)

func (k Kind) String() string {
	switch k {
	case KindRecord:
		return "record"
	case KindAggregate:
		return "aggregate"
	case KindDerived:
		return "derived"
	case KindRecordTiming:
		return "record timing"
	case KindSweep:
		return "sweep"
	}
	return "unknown"
}

// Record metrics the run-level metrics are computed from, by tag. Whoever
// declares them (the built-in record processor) must produce them in these
// units: ns for the latency, tokens for the lengths.
const (
	TagRequestLatency = "request_latency"
	TagOSL            = "output_sequence_length"
	TagISL            = "input_sequence_length"

	TagOutputTokenCount      = "output_token_count"
	TagReasoningTokenCount   = "reasoning_token_count"
	TagErrorISL              = "error_isl"
	TagUsagePromptTokens     = "usage_prompt_tokens"
	TagUsageCompletionTokens = "usage_completion_tokens"
	TagUsageTotalTokens      = "usage_total_tokens"
	TagUsageReasoningTokens  = "usage_reasoning_tokens"
	// The difference metrics are percentages (unit %).
	TagUsagePromptDiff     = "usage_prompt_tokens_diff_pct"
	TagUsageCompletionDiff = "usage_completion_tokens_diff_pct"
	TagUsageReasoningDiff  = "usage_reasoning_tokens_diff_pct"
	TagOSLMismatchDiff     = "osl_mismatch_diff_pct"
)

// Run-level metrics: the accumulator computes them, no record processor may
// declare them.
const (
	TagRequestCount      = "request_count"
	TagErrorRequestCount = "error_request_count"
	TagGoodRequestCount  = "good_request_count"
	TagMinRequestTS      = "min_request_timestamp"
	TagMaxResponseTS     = "max_response_timestamp"
	TagBenchmarkDuration = "benchmark_duration"
	TagTotalOSL          = "total_osl"
	TagTotalISL          = "total_isl"
	TagOutputThroughput  = "output_token_throughput"
	TagRequestThroughput = "request_throughput"
	TagGoodput           = "goodput"

	TagTotalOutputTokens     = "total_output_tokens"
	TagTotalReasoningTokens  = "total_reasoning_tokens"
	TagTotalUsagePrompt      = "total_usage_prompt_tokens"
	TagTotalUsageCompletion  = "total_usage_completion_tokens"
	TagTotalUsageTotal       = "total_usage_total_tokens"
	TagTotalUsageReasoning   = "total_usage_reasoning_tokens"
	TagTotalErrorISL         = "total_error_isl"
	TagOSLMismatchCount      = "osl_mismatch_count"
	TagUsageDiscrepancyCount = "usage_discrepancy_count"
	TagContextOverflowCount  = "context_overflow_count"
	TagCompletedRequestCount = "completed_request_count"
	TagRequestErrorRate      = "request_error_rate"
	TagGoodRequestFraction   = "good_request_fraction"
	TagInputThroughput       = "input_token_throughput"
	TagTotalThroughput       = "total_token_throughput"
	TagCreditToStartLatency  = "credit_to_start_latency"
	TagEffectiveLatency      = "effective_latency"
)

// runLevelIdx indexes runLevelDefs, so the accumulator fills arrays.
type runLevelIdx int

const (
	rlOutputThroughput runLevelIdx = iota
	rlRequestThroughput
	rlGoodput
	rlRequestCount
	rlErrorRequestCount
	rlGoodRequestCount
	rlMinRequestTS
	rlMaxResponseTS
	rlBenchmarkDuration
	rlTotalOSL
	rlTotalISL
	rlTotalOutputTokens
	rlTotalReasoningTokens
	rlTotalUsagePrompt
	rlTotalUsageCompletion
	rlTotalUsageTotal
	rlTotalUsageReasoning
	rlTotalErrorISL
	rlOSLMismatchCount
	rlUsageDiscrepancyCount
	rlContextOverflowCount
	rlCompletedRequestCount
	rlRequestErrorRate
	rlGoodRequestFraction
	rlInputThroughput
	rlTotalThroughput
	rlCreditToStartLatency
	rlEffectiveLatency
	rlReplaySchedLagP50
	rlReplaySchedLagP90
	rlReplaySchedLagP99
	rlReplaySchedDegraded
	numRunLevel
)

// runLevelDefs are AIPerf's aggregate and derived metrics of this slice, with
// its headers, units, flags and orders (docs/METRICS.md §2). Their Requires may name
// record metrics; a run-level metric whose record metric was not declared
// simply does not apply.
type runLevelDef struct {
	spec sdk.MetricSpec
	kind Kind
	// sumOf names the record metric a derived total sums (AIPerf's
	// DerivedSumMetric); it is also the total's only requirement.
	sumOf string
}

var runLevelDefs = [numRunLevel]runLevelDef{
	rlOutputThroughput: {sdk.MetricSpec{Tag: TagOutputThroughput, Header: "Output Token Throughput", ShortHeader: "Output TPS",
		Unit: UnitTokensPerSec, DisplayUnit: UnitTokensPerSec,
		Flags: sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter, DisplayOrder: 800,
		Requires: []string{TagTotalOSL, TagBenchmarkDuration}}, KindDerived, ""},
	rlRequestThroughput: {sdk.MetricSpec{Tag: TagRequestThroughput, Header: "Request Throughput", ShortHeader: "Req/sec",
		Unit: UnitRequestsPerS, DisplayUnit: UnitRequestsPerS,
		Flags: sdk.FlagLargerIsBetter, DisplayOrder: 900,
		Requires: []string{TagRequestCount, TagBenchmarkDuration}}, KindDerived, ""},
	rlGoodput: {sdk.MetricSpec{Tag: TagGoodput, Header: "Goodput", ShortHeader: "Goodput",
		Unit: UnitRequestsPerS, DisplayUnit: UnitRequestsPerS,
		Flags: sdk.FlagGoodput, DisplayOrder: 1000,
		Requires: []string{TagGoodRequestCount, TagBenchmarkDuration}}, KindDerived, ""},
	rlRequestCount: {sdk.MetricSpec{Tag: TagRequestCount, Header: "Request Count", ShortHeader: "Requests",
		Unit: UnitRequests, DisplayUnit: UnitRequests,
		Flags: sdk.FlagLargerIsBetter | sdk.FlagNoIndividualRecords, DisplayOrder: 1100}, KindAggregate, ""},
	rlErrorRequestCount: {sdk.MetricSpec{Tag: TagErrorRequestCount, Header: "Error Request Count", ShortHeader: "Error Count",
		Unit: UnitRequests, DisplayUnit: UnitRequests,
		Flags: sdk.FlagErrorOnly | sdk.FlagNoIndividualRecords}, KindAggregate, ""},
	// NO_CONSOLE stands in for AIPerf's console_group NONE: the count is
	// exported but never a console row.
	rlGoodRequestCount: {sdk.MetricSpec{Tag: TagGoodRequestCount, Header: "Good Request Count", ShortHeader: "Good Request Count",
		Unit: UnitRequests, DisplayUnit: UnitRequests,
		Flags: sdk.FlagGoodput | sdk.FlagNoConsole}, KindAggregate, ""},
	rlMinRequestTS: {sdk.MetricSpec{Tag: TagMinRequestTS, Header: "Minimum Request Timestamp", ShortHeader: "Min Req",
		Unit: UnitNanoseconds, DisplayUnit: UnitNanoseconds,
		Flags: sdk.FlagNoConsole | sdk.FlagNoIndividualRecords | sdk.FlagInternal}, KindAggregate, ""},
	rlMaxResponseTS: {sdk.MetricSpec{Tag: TagMaxResponseTS, Header: "Maximum Response Timestamp", ShortHeader: "Max Resp",
		Unit: UnitNanoseconds, DisplayUnit: UnitNanoseconds,
		Flags:    sdk.FlagNoConsole | sdk.FlagNoIndividualRecords | sdk.FlagInternal,
		Requires: []string{TagRequestLatency}}, KindAggregate, ""},
	rlBenchmarkDuration: {sdk.MetricSpec{Tag: TagBenchmarkDuration, Header: "Benchmark Duration", ShortHeader: "Duration",
		Unit: UnitNanoseconds, DisplayUnit: UnitSeconds,
		Flags:    sdk.FlagNoConsole,
		Requires: []string{TagMinRequestTS, TagMaxResponseTS}}, KindDerived, ""},
	rlTotalOSL: {sdk.MetricSpec{Tag: TagTotalOSL, Header: "Total Output Sequence Length", ShortHeader: "Total OSL",
		Unit: UnitTokens, DisplayUnit: UnitTokens,
		Flags:    sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter | sdk.FlagNoConsole,
		Requires: []string{TagOSL}}, KindDerived, TagOSL},
	rlTotalISL: {sdk.MetricSpec{Tag: TagTotalISL, Header: "Total Input Sequence Length", ShortHeader: "Total ISL",
		Unit: UnitTokens, DisplayUnit: UnitTokens,
		Flags:    sdk.FlagTokenizesInputOnly | sdk.FlagLargerIsBetter | sdk.FlagNoConsole,
		Requires: []string{TagISL}}, KindDerived, TagISL},
	// The families below are AIPerf 0.13's (docs/METRICS.md §2.4): totals
	// (DerivedSumMetric: a total carries its own flags when it declares
	// them, else its record metric's), counters, rates and the derived
	// latencies. NO_CONSOLE stands for console_group NONE and for the
	// groups our console does not render as tables of their own (USAGE,
	// EFFECTIVE).
	rlTotalOutputTokens: totalOf(TagTotalOutputTokens, "Total Output Tokens", "Total Output", TagOutputTokenCount,
		sdk.FlagProducesTokensOnly|sdk.FlagLargerIsBetter, 0),
	rlTotalReasoningTokens: totalOf(TagTotalReasoningTokens, "Total Reasoning Tokens", "Total Reasoning", TagReasoningTokenCount,
		sdk.FlagProducesTokensOnly|sdk.FlagLargerIsBetter, 0),
	rlTotalUsagePrompt: usageTotalOf(TagTotalUsagePrompt, "Total Usage Prompt Tokens", "Total Usage Prompt", TagUsagePromptTokens,
		sdk.FlagTokenizesInputOnly|sdk.FlagLargerIsBetter, 2000),
	rlTotalUsageCompletion: usageTotalOf(TagTotalUsageCompletion, "Total Usage Completion Tokens", "Total Usage Completion", TagUsageCompletionTokens,
		sdk.FlagProducesTokensOnly|sdk.FlagLargerIsBetter, 2100),
	rlTotalUsageTotal: usageTotalOf(TagTotalUsageTotal, "Total Usage Total Tokens", "Total Usage Total", TagUsageTotalTokens,
		sdk.FlagProducesTokensOnly|sdk.FlagLargerIsBetter, 2200),
	rlTotalUsageReasoning: usageTotalOf(TagTotalUsageReasoning, "Total Usage Reasoning Tokens", "Total Usage Reasoning", TagUsageReasoningTokens,
		sdk.FlagProducesTokensOnly|sdk.FlagLargerIsBetter, 2110),
	rlTotalErrorISL: totalOf(TagTotalErrorISL, "Total Error Input Sequence Length", "Total Error ISL", TagErrorISL,
		sdk.FlagTokenizesInputOnly|sdk.FlagLargerIsBetter|sdk.FlagErrorOnly, 0),
	rlOSLMismatchCount: {spec: sdk.MetricSpec{Tag: TagOSLMismatchCount, Header: "OSL Mismatch Count", ShortHeader: "OSL Mismatches",
		Unit: UnitRequests, DisplayUnit: UnitRequests,
		Flags:    sdk.FlagProducesTokensOnly | sdk.FlagNoIndividualRecords | sdk.FlagNoConsole,
		Requires: []string{TagOSLMismatchDiff, TagOSL}}, kind: KindAggregate},
	rlUsageDiscrepancyCount: {spec: sdk.MetricSpec{Tag: TagUsageDiscrepancyCount, Header: "Usage Discrepancy Count", ShortHeader: "Discrepancies",
		Unit: UnitRequests, DisplayUnit: UnitRequests,
		Flags:    sdk.FlagUsageDiffOnly | sdk.FlagNoIndividualRecords | sdk.FlagNoConsole,
		Requires: []string{TagUsagePromptDiff, TagUsageCompletionDiff}}, kind: KindAggregate},
	rlContextOverflowCount: {spec: sdk.MetricSpec{Tag: TagContextOverflowCount, Header: "Context Overflow Count", ShortHeader: "Ctx Overflow",
		Unit: UnitRequests, DisplayUnit: UnitRequests,
		Flags: sdk.FlagErrorOnly | sdk.FlagNoIndividualRecords}, kind: KindAggregate},
	rlCompletedRequestCount: {spec: sdk.MetricSpec{Tag: TagCompletedRequestCount, Header: "Completed Requests (Success + Error)", ShortHeader: "Completed",
		Unit: UnitRequests, DisplayUnit: UnitRequests,
		Flags: sdk.FlagNoIndividualRecords, DisplayOrder: 1075}, kind: KindDerived},
	rlRequestErrorRate: {spec: sdk.MetricSpec{Tag: TagRequestErrorRate, Header: "Request Error Rate", ShortHeader: "Err %",
		Unit: UnitPercent, DisplayUnit: UnitPercent,
		Flags: sdk.FlagNoIndividualRecords, DisplayOrder: 1080}, kind: KindDerived},
	// The header is AIPerf's, CamelCase included.
	rlGoodRequestFraction: {spec: sdk.MetricSpec{Tag: TagGoodRequestFraction, Header: "GoodRequestFraction", ShortHeader: "GoodReqFrac",
		Unit: UnitRatio, DisplayUnit: UnitRatio,
		Flags: sdk.FlagGoodput | sdk.FlagLargerIsBetter | sdk.FlagNoConsole}, kind: KindDerived},
	rlInputThroughput: {spec: sdk.MetricSpec{Tag: TagInputThroughput, Header: "Input Token Throughput", ShortHeader: "Input TPS",
		Unit: UnitTokensPerSec, DisplayUnit: UnitTokensPerSec,
		Flags: sdk.FlagLargerIsBetter, DisplayOrder: 805,
		Requires: []string{TagTotalISL, TagBenchmarkDuration}}, kind: KindDerived},
	rlTotalThroughput: {spec: sdk.MetricSpec{Tag: TagTotalThroughput, Header: "Total Token Throughput", ShortHeader: "Total TPS",
		Unit: UnitTokensPerSec, DisplayUnit: UnitTokensPerSec,
		Flags:    sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter | sdk.FlagNoConsole,
		Requires: []string{TagTotalISL, TagTotalOSL, TagBenchmarkDuration}}, kind: KindDerived},
	// AIPerf builds these two outside its metric registry (no flags, no
	// short header, no display order); console groups NONE and EFFECTIVE.
	// Their display orders keep AIPerf's order: after the sweep metrics.
	rlCreditToStartLatency: {spec: sdk.MetricSpec{Tag: TagCreditToStartLatency, Header: "Credit-to-Start Latency",
		Unit: UnitNanoseconds, DisplayUnit: UnitMilliseconds, Flags: sdk.FlagNoConsole,
		DisplayOrder: SweepDisplayOrder + 100}, kind: KindRecordTiming},
	rlEffectiveLatency: {spec: sdk.MetricSpec{Tag: TagEffectiveLatency, Header: "Effective Latency (CO-aware)",
		Unit: UnitNanoseconds, DisplayUnit: UnitMilliseconds, ConsoleGroup: sdk.ConsoleGroupEffective,
		DisplayOrder: SweepDisplayOrder + 101}, kind: KindRecordTiming},
	// AIPerf injects these after aggregation (replay_sched_lag_analyzer.py):
	// run-scoped, never per timeslice, console group NONE. Computed in
	// replaylag.go, in their display units.
	rlReplaySchedLagP50: replayLagDef(TagReplaySchedLagP50, "Replay Schedule Lag p50", "Sched Lag p50"),
	rlReplaySchedLagP90: replayLagDef(TagReplaySchedLagP90, "Replay Schedule Lag p90", "Sched Lag p90"),
	rlReplaySchedLagP99: replayLagDef(TagReplaySchedLagP99, "Replay Schedule Lag p99", "Sched Lag p99"),
	rlReplaySchedDegraded: {spec: sdk.MetricSpec{Tag: TagReplaySchedDegraded, Header: "Replay Schedule Degraded", ShortHeader: "Sched Degraded",
		Unit: UnitCount, DisplayUnit: UnitCount, Flags: sdk.FlagFixedScheduleOnly | sdk.FlagNoConsole}, kind: KindDerived},
}

// totalOf declares a derived total of a record metric, in tokens.
func totalOf(tag, header, short, of string, flags sdk.MetricFlags, order int) runLevelDef {
	return runLevelDef{sdk.MetricSpec{Tag: tag, Header: header, ShortHeader: short, Unit: UnitTokens, DisplayUnit: UnitTokens,
		Flags: flags | sdk.FlagNoConsole, DisplayOrder: order, Requires: []string{of}}, KindDerived, of}
}

// replayLagDef declares one of the anchored replay send-lag percentiles.
func replayLagDef(tag, header, short string) runLevelDef {
	return runLevelDef{spec: sdk.MetricSpec{Tag: tag, Header: header, ShortHeader: short, Unit: UnitMilliseconds,
		DisplayUnit: UnitMilliseconds, Flags: sdk.FlagFixedScheduleOnly | sdk.FlagNoConsole}, kind: KindDerived}
}

// usageTotalOf declares a total of a usage metric, shown in AIPerf's Usage
// console table.
func usageTotalOf(tag, header, short, of string, flags sdk.MetricFlags, order int) runLevelDef {
	d := totalOf(tag, header, short, of, flags, order)
	d.spec.Flags &^= sdk.FlagNoConsole
	d.spec.ConsoleGroup = sdk.ConsoleGroupUsage
	return d
}

// runLevelByTag finds a run-level metric by tag.
var runLevelByTag = func() map[string]runLevelIdx {
	m := make(map[string]runLevelIdx, numRunLevel)
	for i := range runLevelDefs {
		m[runLevelDefs[i].spec.Tag] = runLevelIdx(i)
	}
	return m
}()

// IsRunLevel reports whether tag is one of the core's run-level metrics,
// which no record processor may declare.
func IsRunLevel(tag string) bool {
	if _, ok := runLevelByTag[tag]; ok {
		return true
	}
	_, ok := sweepByTag[tag]
	return ok
}
