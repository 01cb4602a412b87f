package sdktest

import (
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/sdktest/internal/fixtures"
)

func intp(v int) *int { return &v }

// fixtureCase holds sample units of the fixture API.
var fixtureCase = EndpointCase{SampleUnits: []SampleUnit{
	{Name: "delta", Data: []byte(`{"delta":" alpha"}`), Text: " alpha"},
	{Name: "reasoning", Data: []byte(`{"reasoning":"thinking…"}`), Reasoning: "thinking…"},
	{Name: "whole body", Data: []byte(`{"output":"one two","usage":{"input_tokens":5,"output_tokens":2}}`), Text: "one two",
		Usage: &sdk.Usage{PromptTokens: intp(5), CompletionTokens: intp(2), TotalTokens: intp(7)}},
	{Name: "usage only", Data: []byte(`{"usage":{"input_tokens":5,"output_tokens":3}}`),
		Usage: &sdk.Usage{PromptTokens: intp(5), CompletionTokens: intp(3), TotalTokens: intp(8)}},
}}

func TestEndpointAcceptsConformingEndpoints(t *testing.T) {
	for name, ep := range map[string]sdk.Endpoint{
		"with RecordParser":    &fixtures.Endpoint{},
		"without RecordParser": &fixtures.UnitEndpoint{},
	} {
		t.Run(name, func(t *testing.T) {
			runSuite(t, func(tb testing.TB) { Endpoint(tb, ep, fixtureCase) }).wantClean(t)
		})
	}
}

func TestEndpointReportsEachViolation(t *testing.T) {
	tests := []struct {
		fault string
		want  []string // parts of one reported failure
	}{
		{fixtures.EPRelativePath, []string{`EndpointPath = "v1/fixture" must start with '/'`}},
		{fixtures.EPNoServiceKind, []string{"ServiceKind is empty"}},
		{fixtures.EPRelativeStreamingPath, []string{`StreamingPath = "v1/stream" must start with '/'`}},
		{fixtures.EPUnescapedJSON, []string{"FormatPayload(special characters)", "is not a JSON object"}},
		{fixtures.EPPanicsWithoutTexts, []string{"FormatPayload(no texts) panicked", "index out of range"}},
		{fixtures.EPFirstTextOnly, []string{"FormatPayload(several texts)", `does not carry the prompt text "sdktest prompt beta"`}},
		{fixtures.EPExtrasWrongOrder, []string{`top-level "sdktest_shared" = from-extra-inputs, want from-turn`}},
		{fixtures.EPIgnoresMaxTokens, []string{"FormatPayload(legacy max tokens): Turn.MaxTokens 4321 does not appear"}},
		{fixtures.EPIgnoresTurnModel, []string{`Turn.Model "sdktest-turn-model" does not appear`}},
		{fixtures.EPNoStreamFlag, []string{"streaming and non-streaming bodies are identical"}},
		{fixtures.EPDoneIsError, []string{`ParseResponse("[DONE]") returned error`}},
		{fixtures.EPDoneHasContent, []string{`ParseResponse("[DONE]") = `, "want an empty response"}},
		{fixtures.EPAcceptsMalformed, []string{`ParseResponse("{\"")`, "malformed data must return an error"}},
		{fixtures.EPTrimsText, []string{"ParseResponse(delta)", `text "alpha"`, `want text " alpha"`}},
		{fixtures.EPDropsUsage, []string{"ParseResponse(whole body): usage nil, want {prompt 5, completion 2, total 7"}},
		{fixtures.EPRecordDropsPerfNs, []string{"ParseRecord(sample units)[0] (delta): PerfNs 0, want the unit's 1000000"}},
		{fixtures.EPRecordSkipsEmpty, []string{`ParseRecord(["", "[DONE]"]) returned 1 responses for 2 units`}},
		{fixtures.EPRecordUppercases, []string{"ParseRecord(sample units)[0] (delta)", "disagrees with ParseResponse"}},
		{fixtures.EPRecordAcceptsBroken, []string{"a record with a malformed unit must return an error"}},
	}
	for _, tc := range tests {
		t.Run(tc.fault, func(t *testing.T) {
			r := runSuite(t, func(tb testing.TB) { Endpoint(tb, &fixtures.Endpoint{Fault: tc.fault}, fixtureCase) })
			r.wantReport(t, tc.want...)
		})
	}
}

func TestEndpointRequiresSampleUnits(t *testing.T) {
	r := runSuite(t, func(tb testing.TB) { Endpoint(tb, &fixtures.Endpoint{}, EndpointCase{}) })
	r.wantReport(t, "EndpointCase.SampleUnits is empty")
	if n := len(r.all()); n != 1 {
		t.Errorf("reported %d failures, want only the missing samples: %q", n, r.all())
	}
}

func TestEndpointCustomMalformedUnits(t *testing.T) {
	// The fixture ignores unknown fields, so an author who declares such a
	// unit malformed sees the check fail, in ParseResponse and ParseRecord.
	c := fixtureCase
	c.MalformedUnits = [][]byte{[]byte(`{"unknown":true}`)}
	r := runSuite(t, func(tb testing.TB) { Endpoint(tb, &fixtures.Endpoint{}, c) })
	r.wantReport(t, `ParseResponse("{\"unknown\":true}")`, "malformed data must return an error")
	r.wantReport(t, `ParseRecord(["{\"unknown\":true}"])`, "a record with a malformed unit must return an error")
}

func TestEndpointReportsHangs(t *testing.T) {
	defer func(d time.Duration) { callTimeout = d }(callTimeout)
	callTimeout = 200 * time.Millisecond
	block := make(chan struct{})
	defer close(block) // releases the abandoned calls
	r := runSuite(t, func(tb testing.TB) {
		Endpoint(tb, &fixtures.Endpoint{Fault: fixtures.EPHangsOnMalformed, Block: block}, fixtureCase)
	})
	r.wantReport(t, `ParseResponse("{\"")`, "did not return within 200ms")
}

func TestEndpointNilIsFatal(t *testing.T) {
	r := runSuite(t, func(tb testing.TB) { Endpoint(tb, nil, fixtureCase) })
	r.wantReport(t, "the endpoint is nil")
	if !r.fatal {
		t.Error("a nil endpoint should stop the checks")
	}
}
