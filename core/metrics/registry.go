package metrics

import (
	"math"
	"slices"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Kind says how a metric is computed (facts §1.1).
type Kind int

const (
	// KindRecord is one value (or list) per request, aggregated into stats.
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

// NoDisplayOrder is the display order of metrics AIPerf gives none; they sort
// after every ordered metric.
const NoDisplayOrder = math.MaxInt32

// Metric tags of this slice, exactly as AIPerf names them.
const (
	TagTTFT              = "time_to_first_token"
	TagTTST              = "time_to_second_token"
	TagTTFO              = "time_to_first_output_token"
	TagRequestLatency    = "request_latency"
	TagITL               = "inter_token_latency"
	TagICL               = "inter_chunk_latency"
	TagTPSPerUser        = "output_token_throughput_per_user"
	TagOSL               = "output_sequence_length"
	TagOutputTokenCount  = "output_token_count"
	TagReasoningCount    = "reasoning_token_count"
	TagISL               = "input_sequence_length"
	TagOutputThroughput  = "output_token_throughput"
	TagRequestThroughput = "request_throughput"
	TagRequestCount      = "request_count"
	TagErrorRequestCount = "error_request_count"
	TagBenchmarkDuration = "benchmark_duration"
	TagMinRequestTS      = "min_request_timestamp"
	TagMaxResponseTS     = "max_response_timestamp"
	TagTotalOSL          = "total_osl"
	TagTotalISL          = "total_isl"
	TagGoodRequestCount  = "good_request_count"
	TagGoodput           = "goodput"
	TagErrorISL          = "error_isl"
	// TagScheduleLag is ours (not AIPerf's): how late a scheduled request
	// was actually sent, so timing precision is visible per record.
	TagScheduleLag = "schedule_lag"
)

const (
	streamingTokensOnly   = sdk.FlagStreamingTokensOnly
	percentileWithFailure = sdk.FlagPercentileIncludesFailedRequests
)

// Def is one metric's definition.
type Def struct {
	Tag         string
	Header      string
	ShortHeader string
	// Unit is the base unit values are computed in; DisplayUnit is what
	// exports and the console show.
	Unit         string
	DisplayUnit  string
	Kind         Kind
	Flags        sdk.MetricFlags
	DisplayOrder int
	// Integer marks whole-number per-record values (token counts).
	Integer bool
	// List marks metrics with a list of values per record (ICL).
	List bool
	// Required are the metrics this one is computed from.
	Required []string

	id metricID
}

// ToDisplay converts a base-unit value to the display unit.
func (d Def) ToDisplay(v float64) float64 {
	if div := displayDivisor(d.Unit, d.DisplayUnit); div != 1 {
		return v / div
	}
	return v
}

// metricID indexes the registry table, so hot paths use arrays, not maps.
type metricID uint8

const (
	idTTFT metricID = iota
	idTTST
	idTTFO
	idRequestLatency
	idITL
	idICL
	idTPSPerUser
	idOSL
	idOutputTokenCount
	idReasoningCount
	idISL
	idOutputThroughput
	idRequestThroughput
	idRequestCount
	idErrorRequestCount
	idBenchmarkDuration
	idMinRequestTS
	idMaxResponseTS
	idTotalOSL
	idTotalISL
	idGoodRequestCount
	idGoodput
	idErrorISL
	idScheduleLag
	numMetrics
)

// registry is the one place metric definitions live. Headers, short headers,
// units, flags and orders are AIPerf's (facts §1.2, checked against AIPerf's
// metric classes).
var registry = [numMetrics]Def{
	idTTFT: {Tag: TagTTFT, Header: "Time to First Token", ShortHeader: "TTFT",
		Unit: UnitNanoseconds, DisplayUnit: UnitMilliseconds, Kind: KindRecord,
		Flags: streamingTokensOnly | percentileWithFailure, DisplayOrder: 100},
	idTTST: {Tag: TagTTST, Header: "Time to Second Token", ShortHeader: "TTST",
		Unit: UnitNanoseconds, DisplayUnit: UnitMilliseconds, Kind: KindRecord,
		Flags: streamingTokensOnly, DisplayOrder: 200},
	idTTFO: {Tag: TagTTFO, Header: "Time to First Output Token", ShortHeader: "TTFO",
		Unit: UnitNanoseconds, DisplayUnit: UnitMilliseconds, Kind: KindRecord,
		Flags: streamingTokensOnly | sdk.FlagSupportsReasoning, DisplayOrder: 210},
	idRequestLatency: {Tag: TagRequestLatency, Header: "Request Latency", ShortHeader: "Req Latency",
		Unit: UnitNanoseconds, DisplayUnit: UnitMilliseconds, Kind: KindRecord,
		Flags: percentileWithFailure, DisplayOrder: 300},
	idITL: {Tag: TagITL, Header: "Inter Token Latency", ShortHeader: "ITL",
		Unit: UnitNanoseconds, DisplayUnit: UnitMilliseconds, Kind: KindRecord,
		Flags: streamingTokensOnly | percentileWithFailure, DisplayOrder: 400,
		Required: []string{TagRequestLatency, TagTTFT, TagOSL}},
	idICL: {Tag: TagICL, Header: "Inter Chunk Latency", ShortHeader: "ICL",
		Unit: UnitNanoseconds, DisplayUnit: UnitMilliseconds, Kind: KindRecord,
		Flags: streamingTokensOnly | sdk.FlagNoConsole, DisplayOrder: NoDisplayOrder, List: true},
	idTPSPerUser: {Tag: TagTPSPerUser, Header: "Output Token Throughput Per User", ShortHeader: "Output TPS/User",
		Unit: UnitTokensPerUser, DisplayUnit: UnitTokensPerUser, Kind: KindRecord,
		Flags: streamingTokensOnly | sdk.FlagLargerIsBetter, DisplayOrder: 500,
		Required: []string{TagITL}},
	idOSL: {Tag: TagOSL, Header: "Output Sequence Length", ShortHeader: "OSL",
		Unit: UnitTokens, DisplayUnit: UnitTokens, Kind: KindRecord,
		Flags: sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter, DisplayOrder: 600, Integer: true},
	idOutputTokenCount: {Tag: TagOutputTokenCount, Header: "Output Token Count", ShortHeader: "Output Tokens",
		Unit: UnitTokens, DisplayUnit: UnitTokens, Kind: KindRecord,
		Flags:        sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter | sdk.FlagNoConsole,
		DisplayOrder: NoDisplayOrder, Integer: true},
	idReasoningCount: {Tag: TagReasoningCount, Header: "Reasoning Token Count", ShortHeader: "Reasoning Tokens",
		Unit: UnitTokens, DisplayUnit: UnitTokens, Kind: KindRecord,
		Flags:        sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter | sdk.FlagSupportsReasoning | sdk.FlagNoConsole,
		DisplayOrder: NoDisplayOrder, Integer: true},
	idISL: {Tag: TagISL, Header: "Input Sequence Length", ShortHeader: "ISL",
		Unit: UnitTokens, DisplayUnit: UnitTokens, Kind: KindRecord,
		Flags: sdk.FlagTokenizesInputOnly | sdk.FlagLargerIsBetter, DisplayOrder: 700, Integer: true},
	idOutputThroughput: {Tag: TagOutputThroughput, Header: "Output Token Throughput", ShortHeader: "Output TPS",
		Unit: UnitTokensPerSec, DisplayUnit: UnitTokensPerSec, Kind: KindDerived,
		Flags: sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter, DisplayOrder: 800,
		Required: []string{TagTotalOSL, TagBenchmarkDuration}},
	idRequestThroughput: {Tag: TagRequestThroughput, Header: "Request Throughput", ShortHeader: "Req/sec",
		Unit: UnitRequestsPerS, DisplayUnit: UnitRequestsPerS, Kind: KindDerived,
		Flags: sdk.FlagLargerIsBetter, DisplayOrder: 900,
		Required: []string{TagRequestCount, TagBenchmarkDuration}},
	idGoodput: {Tag: TagGoodput, Header: "Goodput", ShortHeader: "Goodput",
		Unit: UnitRequestsPerS, DisplayUnit: UnitRequestsPerS, Kind: KindDerived,
		Flags: sdk.FlagGoodput, DisplayOrder: 1000,
		Required: []string{TagGoodRequestCount, TagBenchmarkDuration}},
	idRequestCount: {Tag: TagRequestCount, Header: "Request Count", ShortHeader: "Requests",
		Unit: UnitRequests, DisplayUnit: UnitRequests, Kind: KindAggregate,
		Flags: sdk.FlagLargerIsBetter | sdk.FlagNoIndividualRecords, DisplayOrder: 1100},
	idErrorRequestCount: {Tag: TagErrorRequestCount, Header: "Error Request Count", ShortHeader: "Error Count",
		Unit: UnitRequests, DisplayUnit: UnitRequests, Kind: KindAggregate,
		Flags: sdk.FlagErrorOnly | sdk.FlagNoIndividualRecords, DisplayOrder: NoDisplayOrder},
	idGoodRequestCount: {Tag: TagGoodRequestCount, Header: "Good Request Count", ShortHeader: "Good Request Count",
		Unit: UnitRequests, DisplayUnit: UnitRequests, Kind: KindAggregate,
		// NO_CONSOLE stands in for AIPerf's console_group NONE: the count is
		// exported but never a console row.
		Flags: sdk.FlagGoodput | sdk.FlagNoConsole, DisplayOrder: NoDisplayOrder},
	idMinRequestTS: {Tag: TagMinRequestTS, Header: "Minimum Request Timestamp", ShortHeader: "Min Req",
		Unit: UnitNanoseconds, DisplayUnit: UnitNanoseconds, Kind: KindAggregate,
		Flags:        sdk.FlagNoConsole | sdk.FlagNoIndividualRecords | sdk.FlagInternal,
		DisplayOrder: NoDisplayOrder},
	idMaxResponseTS: {Tag: TagMaxResponseTS, Header: "Maximum Response Timestamp", ShortHeader: "Max Resp",
		Unit: UnitNanoseconds, DisplayUnit: UnitNanoseconds, Kind: KindAggregate,
		Flags:        sdk.FlagNoConsole | sdk.FlagNoIndividualRecords | sdk.FlagInternal,
		DisplayOrder: NoDisplayOrder, Required: []string{TagRequestLatency}},
	idBenchmarkDuration: {Tag: TagBenchmarkDuration, Header: "Benchmark Duration", ShortHeader: "Duration",
		Unit: UnitNanoseconds, DisplayUnit: UnitSeconds, Kind: KindDerived,
		Flags: sdk.FlagNoConsole, DisplayOrder: NoDisplayOrder,
		Required: []string{TagMinRequestTS, TagMaxResponseTS}},
	idTotalOSL: {Tag: TagTotalOSL, Header: "Total Output Sequence Length", ShortHeader: "Total OSL",
		Unit: UnitTokens, DisplayUnit: UnitTokens, Kind: KindDerived,
		Flags:        sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter | sdk.FlagNoConsole,
		DisplayOrder: NoDisplayOrder, Required: []string{TagOSL}},
	idTotalISL: {Tag: TagTotalISL, Header: "Total Input Sequence Length", ShortHeader: "Total ISL",
		Unit: UnitTokens, DisplayUnit: UnitTokens, Kind: KindDerived,
		Flags:        sdk.FlagTokenizesInputOnly | sdk.FlagLargerIsBetter | sdk.FlagNoConsole,
		DisplayOrder: NoDisplayOrder, Required: []string{TagISL}},
	idErrorISL: {Tag: TagErrorISL, Header: "Error Input Sequence Length", ShortHeader: "Error ISL",
		Unit: UnitTokens, DisplayUnit: UnitTokens, Kind: KindRecord,
		Flags:        sdk.FlagTokenizesInputOnly | sdk.FlagLargerIsBetter | sdk.FlagNoConsole | sdk.FlagErrorOnly,
		DisplayOrder: NoDisplayOrder, Integer: true},
	idScheduleLag: {Tag: TagScheduleLag, Header: "Schedule Lag", ShortHeader: "Sched Lag",
		Unit: UnitNanoseconds, DisplayUnit: UnitMilliseconds, Kind: KindRecord,
		Flags: sdk.FlagNoConsole, DisplayOrder: NoDisplayOrder},
}

// byTag maps a tag to its registry index.
var byTag = func() map[string]metricID {
	m := make(map[string]metricID, numMetrics)
	for i := range registry {
		registry[i].id = metricID(i)
		m[registry[i].Tag] = metricID(i)
	}
	return m
}()

// Lookup returns the definition of a metric tag (a copy: callers cannot
// change the registry).
func Lookup(tag string) (Def, bool) {
	id, ok := byTag[tag]
	if !ok {
		return Def{}, false
	}
	return registry[id].clone(), true
}

// All returns a copy of every metric definition in registry order.
func All() []Def {
	out := make([]Def, numMetrics)
	for i := range registry {
		out[i] = registry[i].clone()
	}
	return out
}

func (d Def) clone() Def {
	d.Required = slices.Clone(d.Required)
	return d
}
