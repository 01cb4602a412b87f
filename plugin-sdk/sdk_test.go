package sdk

import "testing"

func TestContentResponsesSkipsRoleAndUsageOnlyUnits(t *testing.T) {
	n := 3
	pr := &ParsedRecord{Responses: []ParsedResponse{
		{PerfNs: 1},                                 // role-only delta
		{PerfNs: 2, Reasoning: "think"},             // reasoning counts as content
		{PerfNs: 3, Text: "answer"},                 // answer text
		{PerfNs: 4, Usage: &Usage{TotalTokens: &n}}, // usage-only chunk
	}}
	got := pr.ContentResponses()
	if len(got) != 2 || got[0].PerfNs != 2 || got[1].PerfNs != 3 {
		t.Fatalf("ContentResponses = %+v, want the reasoning and text units", got)
	}
}

func TestMetricFlags(t *testing.T) {
	f := FlagStreamingTokensOnly | FlagLargerIsBetter
	if !f.Has(FlagStreamingOnly) || !f.Has(FlagProducesTokensOnly) || !f.Has(FlagStreamingTokensOnly) {
		t.Errorf("%b should have the streaming-tokens bits", f)
	}
	if f.Has(FlagErrorOnly) || !f.HasAny(FlagErrorOnly|FlagLargerIsBetter) || f.HasAny(FlagGoodput) {
		t.Errorf("Has/HasAny wrong for %b", f)
	}
	// Bit values are AIPerf's and appear in exports; they must not move.
	if FlagGoodput != 1<<10 || FlagPercentileIncludesFailedRequests != 1<<17 {
		t.Error("flag bit values changed")
	}
}

func TestCategoriesAreUniqueAndLookupable(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Categories {
		if seen[c.Name] {
			t.Errorf("duplicate category %s", c.Name)
		}
		seen[c.Name] = true
		if got, ok := LookupCategory(c.Name); !ok || got != c {
			t.Errorf("LookupCategory(%s) = %+v, %v", c.Name, got, ok)
		}
	}
	if _, ok := LookupCategory("nope"); ok {
		t.Error("unknown category found")
	}
}
