package sdk

import (
	"strings"
	"testing"
)

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
		if got, ok := LookupCategory(c.Name); !ok || got.Name != c.Name || got.Interface != c.Interface {
			t.Errorf("LookupCategory(%s) = %+v, %v", c.Name, got, ok)
		}
	}
	if _, ok := LookupCategory("nope"); ok {
		t.Error("unknown category found")
	}
}

func TestCategoryDescriptors(t *testing.T) {
	if len(Categories) != 20 {
		t.Errorf("%d categories registered", len(Categories))
	}
	for i, c := range Categories {
		if i > 0 && c.Order <= Categories[i-1].Order {
			t.Errorf("%s (order %d) listed after %s (order %d): orders must be unique and sorted", c.Name, c.Order, Categories[i-1].Name, Categories[i-1].Order)
		}
		if c.Interface == nil || c.Interface.Kind().String() != "interface" {
			t.Errorf("%s: interface %v", c.Name, c.Interface)
		}
		if c.BuiltinOnly() && c.BuiltinReason == "" {
			t.Errorf("%s is builtin-only without a reason", c.Name)
		}
		if !c.Accepts("builtin") {
			t.Errorf("%s refuses builtin plugins", c.Name)
		}
	}
	if Transports.Accepts(KindGRPC) || !Endpoints.Accepts(KindWASM) || DataExporters.Accepts(KindWASM) {
		t.Error("external kinds wrong")
	}
	var ui UI
	if Endpoints.Implements(ui) || Endpoints.Implements(nil) {
		t.Error("Implements accepted a non-endpoint")
	}
}

func TestDecodeConfigIsStrict(t *testing.T) {
	type cfg struct {
		Rate float64 `json:"rate"`
		Name string  `json:"name"`
	}
	c := cfg{Rate: 1, Name: "default"}
	if err := DecodeConfig([]byte(`{"rate": 2.5}`), &c); err != nil || c.Rate != 2.5 || c.Name != "default" {
		t.Fatalf("decode = %+v, %v", c, err)
	}
	if err := DecodeConfig(nil, &c); err != nil || c.Rate != 2.5 {
		t.Fatalf("empty input changed settings: %+v, %v", c, err)
	}
	for in, want := range map[string]string{
		`{"rat": 1}`:     `unknown setting "rat"`,
		`{"rate": "x"}`:  `setting "rate": string is not a float64`,
		`[1]`:            "",
		`{"rate": 1} {}`: "more than one JSON value",
	} {
		err := DecodeConfig([]byte(in), &c)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("DecodeConfig(%s) = %v, want an error with %q", in, err, want)
		}
	}
}

type settingsPlugin struct {
	cfg struct {
		Rate float64 `json:"rate"`
	}
}

func (p *settingsPlugin) PluginConfig() any { return &p.cfg }

func TestApplyConfig(t *testing.T) {
	p := &settingsPlugin{}
	if err := ApplyConfig(p, "ramp.x", []byte(`{"rate": 3}`)); err != nil || p.cfg.Rate != 3 {
		t.Fatalf("ApplyConfig = %v, rate %v", err, p.cfg.Rate)
	}
	if err := ApplyConfig(p, "ramp.x", []byte(`{"rat": 3}`)); err == nil || err.Error() != `unknown setting "rat"` {
		t.Errorf("unknown key: %v", err)
	}
	for _, empty := range []string{"", " null ", "{}"} {
		if err := ApplyConfig(struct{}{}, "ramp.y", []byte(empty)); err != nil {
			t.Errorf("no settings %q: %v", empty, err)
		}
	}
	err := ApplyConfig(struct{}{}, "ramp.y", []byte(` {"z": 1, "a": {"nested": true}} `))
	if err == nil || err.Error() != `plugin ramp.y takes no settings (got "a", "z")` {
		t.Errorf("plugin without settings: %v", err)
	}
	if err := ApplyConfig(struct{}{}, "ramp.y", []byte(`[1]`)); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Errorf("non-object: %v", err)
	}
}
