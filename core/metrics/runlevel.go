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
)

func (k Kind) String() string {
	switch k {
	case KindRecord:
		return "record"
	case KindAggregate:
		return "aggregate"
	case KindDerived:
		return "derived"
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
	numRunLevel
)

// runLevelDefs are AIPerf's aggregate and derived metrics of this slice, with
// its headers, units, flags and orders (docs/METRICS.md §2). Their Requires may name
// record metrics; a run-level metric whose record metric was not declared
// simply does not apply.
var runLevelDefs = [numRunLevel]struct {
	spec sdk.MetricSpec
	kind Kind
}{
	rlOutputThroughput: {sdk.MetricSpec{Tag: TagOutputThroughput, Header: "Output Token Throughput", ShortHeader: "Output TPS",
		Unit: UnitTokensPerSec, DisplayUnit: UnitTokensPerSec,
		Flags: sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter, DisplayOrder: 800,
		Requires: []string{TagTotalOSL, TagBenchmarkDuration}}, KindDerived},
	rlRequestThroughput: {sdk.MetricSpec{Tag: TagRequestThroughput, Header: "Request Throughput", ShortHeader: "Req/sec",
		Unit: UnitRequestsPerS, DisplayUnit: UnitRequestsPerS,
		Flags: sdk.FlagLargerIsBetter, DisplayOrder: 900,
		Requires: []string{TagRequestCount, TagBenchmarkDuration}}, KindDerived},
	rlGoodput: {sdk.MetricSpec{Tag: TagGoodput, Header: "Goodput", ShortHeader: "Goodput",
		Unit: UnitRequestsPerS, DisplayUnit: UnitRequestsPerS,
		Flags: sdk.FlagGoodput, DisplayOrder: 1000,
		Requires: []string{TagGoodRequestCount, TagBenchmarkDuration}}, KindDerived},
	rlRequestCount: {sdk.MetricSpec{Tag: TagRequestCount, Header: "Request Count", ShortHeader: "Requests",
		Unit: UnitRequests, DisplayUnit: UnitRequests,
		Flags: sdk.FlagLargerIsBetter | sdk.FlagNoIndividualRecords, DisplayOrder: 1100}, KindAggregate},
	rlErrorRequestCount: {sdk.MetricSpec{Tag: TagErrorRequestCount, Header: "Error Request Count", ShortHeader: "Error Count",
		Unit: UnitRequests, DisplayUnit: UnitRequests,
		Flags: sdk.FlagErrorOnly | sdk.FlagNoIndividualRecords}, KindAggregate},
	// NO_CONSOLE stands in for AIPerf's console_group NONE: the count is
	// exported but never a console row.
	rlGoodRequestCount: {sdk.MetricSpec{Tag: TagGoodRequestCount, Header: "Good Request Count", ShortHeader: "Good Request Count",
		Unit: UnitRequests, DisplayUnit: UnitRequests,
		Flags: sdk.FlagGoodput | sdk.FlagNoConsole}, KindAggregate},
	rlMinRequestTS: {sdk.MetricSpec{Tag: TagMinRequestTS, Header: "Minimum Request Timestamp", ShortHeader: "Min Req",
		Unit: UnitNanoseconds, DisplayUnit: UnitNanoseconds,
		Flags: sdk.FlagNoConsole | sdk.FlagNoIndividualRecords | sdk.FlagInternal}, KindAggregate},
	rlMaxResponseTS: {sdk.MetricSpec{Tag: TagMaxResponseTS, Header: "Maximum Response Timestamp", ShortHeader: "Max Resp",
		Unit: UnitNanoseconds, DisplayUnit: UnitNanoseconds,
		Flags:    sdk.FlagNoConsole | sdk.FlagNoIndividualRecords | sdk.FlagInternal,
		Requires: []string{TagRequestLatency}}, KindAggregate},
	rlBenchmarkDuration: {sdk.MetricSpec{Tag: TagBenchmarkDuration, Header: "Benchmark Duration", ShortHeader: "Duration",
		Unit: UnitNanoseconds, DisplayUnit: UnitSeconds,
		Flags:    sdk.FlagNoConsole,
		Requires: []string{TagMinRequestTS, TagMaxResponseTS}}, KindDerived},
	rlTotalOSL: {sdk.MetricSpec{Tag: TagTotalOSL, Header: "Total Output Sequence Length", ShortHeader: "Total OSL",
		Unit: UnitTokens, DisplayUnit: UnitTokens,
		Flags:    sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter | sdk.FlagNoConsole,
		Requires: []string{TagOSL}}, KindDerived},
	rlTotalISL: {sdk.MetricSpec{Tag: TagTotalISL, Header: "Total Input Sequence Length", ShortHeader: "Total ISL",
		Unit: UnitTokens, DisplayUnit: UnitTokens,
		Flags:    sdk.FlagTokenizesInputOnly | sdk.FlagLargerIsBetter | sdk.FlagNoConsole,
		Requires: []string{TagISL}}, KindDerived},
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
	_, ok := runLevelByTag[tag]
	return ok
}
