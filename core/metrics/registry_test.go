package metrics

import (
	"slices"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func TestRegistryDefinitions(t *testing.T) {
	all := All()
	if len(all) != 24 {
		t.Fatalf("registry has %d metrics, want AIPerf's 23 of this slice plus schedule_lag", len(all))
	}
	seen := map[string]bool{}
	for _, d := range all {
		if seen[d.Tag] {
			t.Errorf("duplicate tag %s", d.Tag)
		}
		seen[d.Tag] = true
		if d.Header == "" || d.ShortHeader == "" || d.Unit == "" || d.DisplayUnit == "" || d.Kind == 0 {
			t.Errorf("%s is incomplete: %+v", d.Tag, d)
		}
		for _, req := range d.Required {
			if _, ok := Lookup(req); !ok {
				t.Errorf("%s requires unknown %s", d.Tag, req)
			}
		}
	}
	// AIPerf's display orders (facts §1.2) set the console row order.
	orders := map[string]int{
		TagTTFT: 100, TagTTST: 200, TagTTFO: 210, TagRequestLatency: 300, TagITL: 400,
		TagTPSPerUser: 500, TagOSL: 600, TagISL: 700, TagOutputThroughput: 800,
		TagRequestThroughput: 900, TagGoodput: 1000, TagRequestCount: 1100,
		TagICL: NoDisplayOrder, TagBenchmarkDuration: NoDisplayOrder,
	}
	for tag, want := range orders {
		if d, _ := Lookup(tag); d.DisplayOrder != want {
			t.Errorf("%s display order = %d, want %d", tag, d.DisplayOrder, want)
		}
	}
	cases := []struct {
		tag         string
		header      string
		short       string
		displayUnit string
		kind        Kind
		flags       sdk.MetricFlags
	}{
		{TagTTFT, "Time to First Token", "TTFT", "ms", KindRecord, sdk.FlagStreamingTokensOnly | sdk.FlagPercentileIncludesFailedRequests},
		{TagICL, "Inter Chunk Latency", "ICL", "ms", KindRecord, sdk.FlagStreamingTokensOnly | sdk.FlagNoConsole},
		{TagTPSPerUser, "Output Token Throughput Per User", "Output TPS/User", "tokens/sec/user", KindRecord, sdk.FlagStreamingTokensOnly | sdk.FlagLargerIsBetter},
		{TagBenchmarkDuration, "Benchmark Duration", "Duration", "sec", KindDerived, sdk.FlagNoConsole},
		{TagRequestCount, "Request Count", "Requests", "requests", KindAggregate, sdk.FlagLargerIsBetter | sdk.FlagNoIndividualRecords},
		{TagErrorISL, "Error Input Sequence Length", "Error ISL", "tokens", KindRecord,
			sdk.FlagTokenizesInputOnly | sdk.FlagLargerIsBetter | sdk.FlagNoConsole | sdk.FlagErrorOnly},
		{TagGoodput, "Goodput", "Goodput", "requests/sec", KindDerived, sdk.FlagGoodput},
	}
	for _, tc := range cases {
		d, ok := Lookup(tc.tag)
		if !ok || d.Header != tc.header || d.ShortHeader != tc.short || d.DisplayUnit != tc.displayUnit || d.Kind != tc.kind || d.Flags != tc.flags {
			t.Errorf("Lookup(%s) = %+v", tc.tag, d)
		}
	}
	if _, ok := Lookup("nope"); ok {
		t.Error("Lookup of an unknown tag succeeded")
	}
}

func TestEnabledFollowsRunFacts(t *testing.T) {
	tags := func(info sdk.RunInfo) []string {
		var out []string
		for _, d := range Enabled(info) {
			out = append(out, d.Tag)
		}
		return out
	}
	nonStreaming := streamingInfo()
	nonStreaming.Streaming = false
	embeddings := sdk.RunInfo{Endpoint: sdk.EndpointMetadata{TokenizesInput: true}}
	withGoodput := streamingInfo()
	withGoodput.Goodput = map[string]float64{TagRequestLatency: 1}

	cases := []struct {
		name     string
		info     sdk.RunInfo
		include  []string
		excluded []string
	}{
		{"streaming chat", streamingInfo(), []string{TagTTFT, TagICL, TagOutputThroughput, TagErrorISL},
			[]string{TagGoodput, TagGoodRequestCount}},
		{"non-streaming chat", nonStreaming, []string{TagRequestLatency, TagOSL},
			[]string{TagTTFT, TagTTST, TagTTFO, TagITL, TagICL, TagTPSPerUser}},
		{"embeddings", embeddings, []string{TagRequestLatency, TagISL, TagTotalISL, TagRequestThroughput},
			[]string{TagOSL, TagTotalOSL, TagOutputThroughput, TagOutputTokenCount}},
		{"goodput", withGoodput, []string{TagGoodput, TagGoodRequestCount}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := tags(tc.info)
			for _, tag := range tc.include {
				if !slices.Contains(got, tag) {
					t.Errorf("%s not enabled", tag)
				}
				if d, _ := Lookup(tag); !Applies(d, tc.info) {
					t.Errorf("Applies(%s) = false", tag)
				}
			}
			for _, tag := range tc.excluded {
				if slices.Contains(got, tag) {
					t.Errorf("%s enabled, want disallowed", tag)
				}
			}
		})
	}
}

func TestToDisplay(t *testing.T) {
	ttft, _ := Lookup(TagTTFT)
	dur, _ := Lookup(TagBenchmarkDuration)
	osl, _ := Lookup(TagOSL)
	if got := ttft.ToDisplay(255886568); got != 255.886568 {
		t.Errorf("TTFT display = %v", got)
	}
	if got := dur.ToDisplay(15_196_000_000); got != 15.196 {
		t.Errorf("duration display = %v", got)
	}
	if got := osl.ToDisplay(9); got != 9 {
		t.Errorf("OSL display = %v", got)
	}
}
