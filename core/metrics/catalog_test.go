package metrics

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/core/internal/testfixtures"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// The core's run-level metrics, with AIPerf's headers, units, kinds, flags
// and orders (docs/METRICS.md §2).
func TestRunLevelDefinitions(t *testing.T) {
	cat := newCatalog(t, streamingInfo())
	cases := []struct {
		tag, header, short, unit, display string
		kind                              Kind
		flags                             sdk.MetricFlags
		order                             int
		requires                          []string
	}{
		{TagOutputThroughput, "Output Token Throughput", "Output TPS", "tokens/sec", "tokens/sec", KindDerived,
			sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter, 800, []string{TagTotalOSL, TagBenchmarkDuration}},
		{TagRequestThroughput, "Request Throughput", "Req/sec", "requests/sec", "requests/sec", KindDerived,
			sdk.FlagLargerIsBetter, 900, []string{TagRequestCount, TagBenchmarkDuration}},
		{TagGoodput, "Goodput", "Goodput", "requests/sec", "requests/sec", KindDerived,
			sdk.FlagGoodput, 1000, []string{TagGoodRequestCount, TagBenchmarkDuration}},
		{TagRequestCount, "Request Count", "Requests", "requests", "requests", KindAggregate,
			sdk.FlagLargerIsBetter | sdk.FlagNoIndividualRecords, 1100, nil},
		{TagErrorRequestCount, "Error Request Count", "Error Count", "requests", "requests", KindAggregate,
			sdk.FlagErrorOnly | sdk.FlagNoIndividualRecords, 0, nil},
		{TagGoodRequestCount, "Good Request Count", "Good Request Count", "requests", "requests", KindAggregate,
			sdk.FlagGoodput | sdk.FlagNoConsole, 0, nil},
		{TagMinRequestTS, "Minimum Request Timestamp", "Min Req", "ns", "ns", KindAggregate,
			sdk.FlagNoConsole | sdk.FlagNoIndividualRecords | sdk.FlagInternal, 0, nil},
		{TagMaxResponseTS, "Maximum Response Timestamp", "Max Resp", "ns", "ns", KindAggregate,
			sdk.FlagNoConsole | sdk.FlagNoIndividualRecords | sdk.FlagInternal, 0, []string{TagRequestLatency}},
		{TagBenchmarkDuration, "Benchmark Duration", "Duration", "ns", "sec", KindDerived,
			sdk.FlagNoConsole, 0, []string{TagMinRequestTS, TagMaxResponseTS}},
		{TagTotalOSL, "Total Output Sequence Length", "Total OSL", "tokens", "tokens", KindDerived,
			sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter | sdk.FlagNoConsole, 0, []string{TagOSL}},
		{TagTotalISL, "Total Input Sequence Length", "Total ISL", "tokens", "tokens", KindDerived,
			sdk.FlagTokenizesInputOnly | sdk.FlagLargerIsBetter | sdk.FlagNoConsole, 0, []string{TagISL}},
		// AIPerf 0.13's families (docs/METRICS.md §2.4). NO_CONSOLE stands
		// for console group NONE; the groups are checked below.
		{TagTotalOutputTokens, "Total Output Tokens", "Total Output", "tokens", "tokens", KindDerived,
			sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter | sdk.FlagNoConsole, 0, []string{TagOutputTokenCount}},
		{TagTotalReasoningTokens, "Total Reasoning Tokens", "Total Reasoning", "tokens", "tokens", KindDerived,
			sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter | sdk.FlagNoConsole, 0, []string{TagReasoningTokenCount}},
		{TagTotalUsagePrompt, "Total Usage Prompt Tokens", "Total Usage Prompt", "tokens", "tokens", KindDerived,
			sdk.FlagTokenizesInputOnly | sdk.FlagLargerIsBetter, 2000, []string{TagUsagePromptTokens}},
		{TagTotalUsageCompletion, "Total Usage Completion Tokens", "Total Usage Completion", "tokens", "tokens", KindDerived,
			sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter, 2100, []string{TagUsageCompletionTokens}},
		{TagTotalUsageTotal, "Total Usage Total Tokens", "Total Usage Total", "tokens", "tokens", KindDerived,
			sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter, 2200, []string{TagUsageTotalTokens}},
		{TagTotalUsageReasoning, "Total Usage Reasoning Tokens", "Total Usage Reasoning", "tokens", "tokens", KindDerived,
			sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter, 2110, []string{TagUsageReasoningTokens}},
		{TagTotalErrorISL, "Total Error Input Sequence Length", "Total Error ISL", "tokens", "tokens", KindDerived,
			sdk.FlagTokenizesInputOnly | sdk.FlagLargerIsBetter | sdk.FlagErrorOnly | sdk.FlagNoConsole, 0, []string{TagErrorISL}},
		{TagOSLMismatchCount, "OSL Mismatch Count", "OSL Mismatches", "requests", "requests", KindAggregate,
			sdk.FlagProducesTokensOnly | sdk.FlagNoIndividualRecords | sdk.FlagNoConsole, 0, []string{TagOSLMismatchDiff, TagOSL}},
		{TagUsageDiscrepancyCount, "Usage Discrepancy Count", "Discrepancies", "requests", "requests", KindAggregate,
			sdk.FlagUsageDiffOnly | sdk.FlagNoIndividualRecords | sdk.FlagNoConsole, 0, []string{TagUsagePromptDiff, TagUsageCompletionDiff}},
		{TagContextOverflowCount, "Context Overflow Count", "Ctx Overflow", "requests", "requests", KindAggregate,
			sdk.FlagErrorOnly | sdk.FlagNoIndividualRecords, 0, nil},
		{TagCompletedRequestCount, "Completed Requests (Success + Error)", "Completed", "requests", "requests", KindDerived,
			sdk.FlagNoIndividualRecords, 1075, nil},
		{TagRequestErrorRate, "Request Error Rate", "Err %", "%", "%", KindDerived,
			sdk.FlagNoIndividualRecords, 1080, nil},
		{TagGoodRequestFraction, "GoodRequestFraction", "GoodReqFrac", "ratio", "ratio", KindDerived,
			sdk.FlagGoodput | sdk.FlagLargerIsBetter | sdk.FlagNoConsole, 0, nil},
		{TagInputThroughput, "Input Token Throughput", "Input TPS", "tokens/sec", "tokens/sec", KindDerived,
			sdk.FlagLargerIsBetter, 805, []string{TagTotalISL, TagBenchmarkDuration}},
		{TagTotalThroughput, "Total Token Throughput", "Total TPS", "tokens/sec", "tokens/sec", KindDerived,
			sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter | sdk.FlagNoConsole, 0, []string{TagTotalISL, TagTotalOSL, TagBenchmarkDuration}},
		{TagCreditToStartLatency, "Credit-to-Start Latency", "", "ns", "ms", KindRecordTiming, sdk.FlagNoConsole, SweepDisplayOrder + 100, nil},
		{TagEffectiveLatency, "Effective Latency (CO-aware)", "", "ns", "ms", KindRecordTiming, 0, SweepDisplayOrder + 101, nil},
		{TagReplaySchedLagP50, "Replay Schedule Lag p50", "Sched Lag p50", "ms", "ms", KindDerived, sdk.FlagFixedScheduleOnly | sdk.FlagNoConsole, 0, nil},
		{TagReplaySchedLagP90, "Replay Schedule Lag p90", "Sched Lag p90", "ms", "ms", KindDerived, sdk.FlagFixedScheduleOnly | sdk.FlagNoConsole, 0, nil},
		{TagReplaySchedLagP99, "Replay Schedule Lag p99", "Sched Lag p99", "ms", "ms", KindDerived, sdk.FlagFixedScheduleOnly | sdk.FlagNoConsole, 0, nil},
		{TagReplaySchedDegraded, "Replay Schedule Degraded", "Sched Degraded", "count", "count", KindDerived, sdk.FlagFixedScheduleOnly | sdk.FlagNoConsole, 0, nil},
	}
	if len(cases) != int(numRunLevel) {
		t.Fatalf("%d run-level metrics, the test knows %d", numRunLevel, len(cases))
	}
	for _, tc := range cases {
		d, ok := cat.Lookup(tc.tag)
		if !ok || d.Header != tc.header || d.ShortHeader != tc.short || d.Unit != tc.unit || d.DisplayUnit != tc.display ||
			d.Kind != tc.kind || d.Flags != tc.flags || d.DisplayOrder != tc.order || !slices.Equal(d.Requires, tc.requires) || d.Plugin != "" {
			t.Errorf("Lookup(%s) = %+v", tc.tag, d)
		}
		if !IsRunLevel(tc.tag) {
			t.Errorf("IsRunLevel(%s) = false", tc.tag)
		}
		group := map[string]string{TagTotalUsagePrompt: sdk.ConsoleGroupUsage, TagTotalUsageCompletion: sdk.ConsoleGroupUsage,
			TagTotalUsageTotal: sdk.ConsoleGroupUsage, TagTotalUsageReasoning: sdk.ConsoleGroupUsage,
			TagEffectiveLatency: sdk.ConsoleGroupEffective}[tc.tag]
		if d.ConsoleGroup != group {
			t.Errorf("%s console group %q, want %q (AIPerf's)", tc.tag, d.ConsoleGroup, group)
		}
	}
	if IsRunLevel(TagRequestLatency) {
		t.Error("request_latency is a record metric")
	}
	if d, _ := cat.Lookup(TagTTFT); d.Kind != KindRecord || d.Plugin != "metric_record" {
		t.Errorf("declared TTFT = %+v", d)
	}
	if _, ok := cat.Lookup("nope"); ok {
		t.Error("Lookup of an unknown tag succeeded")
	}
}

func TestNewCatalogRejects(t *testing.T) {
	spec := func(tag string) sdk.MetricSpec {
		return sdk.MetricSpec{Tag: tag, Header: tag, Unit: "ns", DisplayUnit: "ms"}
	}
	cases := []struct {
		name    string
		decl    []Declared
		wantErr []string
	}{
		{"empty tag", []Declared{{Plugin: "p", Specs: []sdk.MetricSpec{spec(" ")}}}, []string{`"p"`, "empty tag"}},
		{"duplicate across processors", []Declared{{Plugin: "metric_record", Specs: testfixtures.RecordSpecs()},
			{Plugin: "latency_plus", Specs: []sdk.MetricSpec{spec(TagRequestLatency)}}},
			[]string{`"request_latency"`, `"metric_record"`, `"latency_plus"`}},
		{"duplicate in one processor", []Declared{{Plugin: "p", Specs: []sdk.MetricSpec{spec("x"), spec("x")}}}, []string{`"x"`, "twice"}},
		{"run-level tag", []Declared{{Plugin: "p", Specs: []sdk.MetricSpec{spec(TagRequestThroughput)}}},
			[]string{`"request_throughput"`, "run-level"}},
		{"unknown conversion", []Declared{{Plugin: "p", Specs: []sdk.MetricSpec{{Tag: "x", Unit: "tokens", DisplayUnit: "ms"}}}},
			[]string{`"x"`, `"tokens"`, `"ms"`, "no conversion"}},
		{"time to non-time", []Declared{{Plugin: "p", Specs: []sdk.MetricSpec{{Tag: "x", Unit: "ns", DisplayUnit: "tokens"}}}},
			[]string{"no conversion"}},
		{"undeclared requirement", []Declared{{Plugin: "p", Specs: []sdk.MetricSpec{{Tag: "x", Unit: "ns", Requires: []string{"y"}}}}},
			[]string{`"x"`, `"p"`, `"y"`, "no record processor declares"}},
		{"requires a run-level metric", []Declared{{Plugin: "p", Specs: []sdk.MetricSpec{{Tag: "x", Requires: []string{TagRequestCount}}}}},
			[]string{`"request_count"`, "no record processor declares"}},
		{"cycle", []Declared{{Plugin: "p", Specs: []sdk.MetricSpec{{Tag: "a", Requires: []string{"b"}}, {Tag: "b", Requires: []string{"a"}}}}},
			[]string{"cycle", "a -> b -> a"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cat, err := NewCatalog(tc.decl, streamingInfo())
			if err == nil {
				t.Fatalf("NewCatalog = %v, want an error", cat.Specs())
			}
			for _, sub := range tc.wantErr {
				if !strings.Contains(err.Error(), sub) {
					t.Errorf("error %q does not mention %s", err, sub)
				}
			}
		})
	}
}

func TestNewCatalogDefaults(t *testing.T) {
	cat, err := NewCatalog([]Declared{{Plugin: "p", Specs: []sdk.MetricSpec{{Tag: "score"}}}}, streamingInfo())
	if err != nil {
		t.Fatal(err)
	}
	// A header defaults to the tag; no requirement needs no declaration.
	if d, _ := cat.Lookup("score"); d.Header != "score" || d.Display() != "" || !cat.Applies("score") {
		t.Errorf("score = %+v", d)
	}
	// Run-level metrics on request_latency and the lengths do not apply.
	for _, tag := range []string{TagMaxResponseTS, TagBenchmarkDuration, TagTotalOSL, TagTotalISL, TagRequestThroughput, TagOutputThroughput} {
		if cat.Applies(tag) {
			t.Errorf("%s applies without its record metric", tag)
		}
	}
	for _, tag := range []string{TagRequestCount, TagErrorRequestCount, TagMinRequestTS} {
		if !cat.Applies(tag) {
			t.Errorf("%s does not apply", tag)
		}
	}
}

// Specs is what MetricsAware plugins get; a catalog rebuilt from it is the
// same catalog.
func TestSpecsRoundTrip(t *testing.T) {
	info := streamingInfo()
	info.Goodput = map[string]float64{TagRequestLatency: 10}
	cat := newCatalog(t, info)
	specs := cat.Specs()
	if len(specs) != len(testfixtures.RecordSpecs())+int(numRunLevel)+int(numSweep) {
		t.Fatalf("%d specs", len(specs))
	}
	if specs[0].Tag != TagTTFT || specs[len(specs)-1].Tag != TagActiveTotalThroughput {
		t.Errorf("specs are not declared-then-run-level-then-sweep: first %s, last %s", specs[0].Tag, specs[len(specs)-1].Tag)
	}
	specs[4].Requires[0] = "mutated" // a copy: the catalog is untouched
	again, err := NewCatalogFromSpecs(cat.Specs(), info)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(again.Specs(), cat.Specs(), specEqual) {
		t.Errorf("rebuilt specs differ:\n%+v\n%+v", again.Specs(), cat.Specs())
	}
	for _, d := range cat.Applicable() {
		if !again.Applies(d.Tag) {
			t.Errorf("%s applies to the original only", d.Tag)
		}
	}
}

func specEqual(a, b sdk.MetricSpec) bool {
	return a.Tag == b.Tag && a.Header == b.Header && a.ShortHeader == b.ShortHeader && a.Unit == b.Unit &&
		a.DisplayUnit == b.DisplayUnit && a.Flags == b.Flags && a.DisplayOrder == b.DisplayOrder &&
		a.Integer == b.Integer && a.List == b.List && slices.Equal(a.Requires, b.Requires)
}

func TestApplicabilityFollowsRunFacts(t *testing.T) {
	nonStreaming := streamingInfo()
	nonStreaming.Streaming = false
	embeddings := sdk.RunInfo{Endpoint: sdk.EndpointMetadata{TokenizesInput: true}}
	noTokenizer := streamingInfo()
	noTokenizer.Endpoint.TokenizesInput = false
	withGoodput := streamingInfo()
	withGoodput.Goodput = map[string]float64{TagRequestLatency: 1}
	streamingOnly := []string{TagTTFT, TagTTST, TagTTFO, TagITL, TagICL, TagTPSPerUser}

	cases := []struct {
		name     string
		info     sdk.RunInfo
		include  []string
		excluded []string
	}{
		{"streaming chat", streamingInfo(),
			append([]string{TagOSL, TagISL, TagOutputThroughput, TagErrorISL, TagScheduleLag, TagBenchmarkDuration}, streamingOnly...),
			[]string{TagGoodput, TagGoodRequestCount}},
		{"non-streaming chat", nonStreaming, []string{TagRequestLatency, TagOSL, TagTotalOSL}, streamingOnly},
		{"embeddings", embeddings, []string{TagRequestLatency, TagISL, TagTotalISL, TagRequestThroughput},
			append([]string{TagOSL, TagTotalOSL, TagOutputThroughput, TagOutputTokenCount, TagReasoningCount}, streamingOnly...)},
		{"tokenizes_input=false", noTokenizer, []string{TagRequestLatency, TagOSL, TagTTFT}, []string{TagISL, TagTotalISL, TagErrorISL}},
		{"goodput", withGoodput, []string{TagGoodput, TagGoodRequestCount}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cat := newCatalog(t, tc.info)
			var applicable []string
			for _, d := range cat.Applicable() {
				applicable = append(applicable, d.Tag)
			}
			for _, tag := range tc.include {
				if !cat.Applies(tag) || !slices.Contains(applicable, tag) {
					t.Errorf("%s does not apply", tag)
				}
			}
			for _, tag := range tc.excluded {
				if cat.Applies(tag) || slices.Contains(applicable, tag) {
					t.Errorf("%s applies, want disallowed", tag)
				}
			}
		})
	}
	// Capabilities this build never has disallow a declared metric.
	cat, err := NewCatalog([]Declared{{Plugin: "p", Specs: []sdk.MetricSpec{{Tag: "rtfx", Flags: sdk.FlagSupportsAudioOnly}}}}, streamingInfo())
	if err != nil || cat.Applies("rtfx") {
		t.Errorf("audio-only metric applies (%v)", err)
	}
	var nilCat *Catalog
	if nilCat.Applies(TagTTFT) || nilCat.Known(TagTTFT) {
		t.Error("a nil catalog knows metrics")
	}
}

func TestFilter(t *testing.T) {
	nonStreaming := streamingInfo()
	nonStreaming.Streaming = false
	cases := []struct {
		name       string
		info       sdk.RunInfo
		valid      bool
		in         map[string]float64
		want       []string
		undeclared bool
	}{
		{"streaming run keeps everything applicable", streamingInfo(), true,
			map[string]float64{TagTTFT: 1, TagRequestLatency: 2, TagOSL: 3}, []string{TagOSL, TagRequestLatency, TagTTFT}, false},
		// Today's processor computed TTFT/ITL only on streaming runs; now the
		// core drops them, with the same outcome.
		{"non-streaming run drops streaming-only", nonStreaming, true,
			map[string]float64{TagTTFT: 1, TagITL: 1, TagTTFO: 1, TagRequestLatency: 2}, []string{TagRequestLatency}, false},
		{"error-only value on a valid record", streamingInfo(), true,
			map[string]float64{TagErrorISL: 5, TagISL: 5}, []string{TagISL}, false},
		{"normal value on a failed record", streamingInfo(), false,
			map[string]float64{TagErrorISL: 5, TagISL: 5, TagRequestLatency: 1}, []string{TagErrorISL}, false},
		{"run-level tags are the core's", streamingInfo(), true,
			map[string]float64{TagRequestCount: 1, TagGoodput: 1, TagRequestLatency: 1}, []string{TagRequestLatency}, false},
		{"undeclared tags are kept and reported", streamingInfo(), true,
			map[string]float64{"custom_score": 1, TagTTFT: 1}, []string{"custom_score", TagTTFT}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := vals(tc.in)
			undeclared := newCatalog(t, tc.info).Filter(v, tc.valid)
			if got := slices.Sorted(maps.Keys(v)); !slices.Equal(got, tc.want) || undeclared != tc.undeclared {
				t.Errorf("kept %v (undeclared %v), want %v (%v)", got, undeclared, tc.want, tc.undeclared)
			}
		})
	}
	var nilCat *Catalog
	v := vals(map[string]float64{TagTTFT: 1})
	if !nilCat.Filter(v, true) || len(v) != 1 {
		t.Error("a nil catalog must keep values as undeclared")
	}
}

func TestDisplayConversion(t *testing.T) {
	cases := []struct {
		base, display string
		div           float64
		ok            bool
	}{
		{"ns", "ms", 1e6, true}, {"ns", "sec", 1e9, true}, {"ns", "us", 1e3, true}, {"ns", "s", 1e9, true},
		{"ns", "ns", 1, true}, {"ns", "", 1, true}, {"ms", "sec", 1e3, true}, {"us", "ms", 1e3, true},
		{"tokens", "tokens", 1, true}, {"%", "", 1, true}, {"", "", 1, true},
		{"tokens", "ms", 0, false}, {"ns", "tokens", 0, false}, {"requests", "requests/sec", 0, false},
	}
	for _, tc := range cases {
		div, err := displayDivisor(tc.base, tc.display)
		if (err == nil) != tc.ok || div != tc.div {
			t.Errorf("displayDivisor(%q, %q) = %v, %v; want %v ok=%v", tc.base, tc.display, div, err, tc.div, tc.ok)
		}
	}
	cat := newCatalog(t, streamingInfo())
	ttft, _ := cat.Lookup(TagTTFT)
	dur, _ := cat.Lookup(TagBenchmarkDuration)
	osl, _ := cat.Lookup(TagOSL)
	lag, _ := cat.Lookup(TagScheduleLag)
	for _, tc := range []struct {
		d       Def
		in, out float64
	}{{ttft, 255886568, 255.886568}, {dur, 15_196_000_000, 15.196}, {osl, 9, 9}, {lag, 250_000, 0.25}} {
		if got := tc.d.ToDisplay(tc.in); got != tc.out {
			t.Errorf("%s: ToDisplay(%v) = %v, want %v", tc.d.Tag, tc.in, got, tc.out)
		}
	}
}

func TestTagIndex(t *testing.T) {
	cat := newCatalog(t, streamingInfo())
	if cat.index.fallback != nil {
		t.Error("AIPerf's tags should not need the map fallback")
	}
	probes := []string{"", "x", "request_latencx", "Request_latency", "time_to_first_tokens", "custom_score"}
	for tag, want := range cat.byTag {
		if got, ok := cat.index.lookup(tag); !ok || got != want {
			t.Errorf("lookup(%s) = %d, %v; want %d", tag, got, ok, want)
		}
		// Same length, first, middle and last byte: a key collision the
		// string compare must catch.
		b := []byte(tag)
		if len(b) > 3 {
			b[1] ^= 0x20
			probes = append(probes, string(b))
		}
	}
	for _, p := range probes {
		if id, ok := cat.index.lookup(p); ok {
			t.Errorf("lookup(%q) = %d, want a miss", p, id)
		}
	}
	// Tags the cheap key cannot tell apart fall back to the map.
	twins := map[string]metricID{"total_osl": 0, "tXtal_osl": 1}
	x := newTagIndex(twins)
	if x.fallback == nil {
		t.Fatal("colliding keys did not fall back to the map")
	}
	if id, ok := x.lookup("tXtal_osl"); !ok || id != 1 {
		t.Errorf("fallback lookup = %d, %v", id, ok)
	}
}
