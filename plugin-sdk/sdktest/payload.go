package sdktest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Distinctive values the payload checks look for in formatted bodies.
const (
	textAlpha      = "sdktest prompt alpha"
	textBeta       = "sdktest prompt beta"
	textGamma      = "sdktest prompt gamma"
	textSpecial    = "quote \" backslash \\ newline \n tab \t unicode é 漢字 🙂 </script> \u2028"
	turnModel      = "sdktest-turn-model"
	maxTokensValue = 4321
	extraKey       = "sdktest_extra"
	turnExtraKey   = "sdktest_turn_extra"
	sharedExtraKey = "sdktest_shared"
)

// payloadCase is one representative request and what its body must show.
type payloadCase struct {
	name string
	req  sdk.RequestInfo
	// texts must each appear inside a string value of the body.
	texts []string
}

func intPtr(v int) *int { return &v }

func payloadCases(c EndpointCase, m sdk.EndpointMetadata) []payloadCase {
	model := c.Model
	turn := func(texts ...string) sdk.Turn {
		if c.Turn != nil {
			return c.Turn(texts)
		}
		return sdk.Turn{Texts: texts}
	}
	with := func(t sdk.Turn, edit func(*sdk.Turn)) sdk.Turn { edit(&t); return t }
	single := turn(textAlpha)
	cases := []payloadCase{
		{name: "single text", req: sdk.RequestInfo{Model: model, Turn: single}, texts: []string{textAlpha}},
		{name: "several texts", req: sdk.RequestInfo{Model: model, Turn: turn(textAlpha, textBeta, textGamma)},
			texts: severalTexts(c)},
		{name: "max tokens", req: sdk.RequestInfo{Model: model, Turn: with(single, func(t *sdk.Turn) { t.MaxTokens = intPtr(maxTokensValue) })},
			texts: []string{textAlpha}},
		{name: "legacy max tokens", req: sdk.RequestInfo{Model: model, UseLegacyMaxTokens: true,
			Turn: with(single, func(t *sdk.Turn) { t.MaxTokens = intPtr(maxTokensValue) })}, texts: []string{textAlpha}},
		{name: "extra inputs", req: sdk.RequestInfo{Model: model,
			ExtraInputs: map[string]any{extraKey: "from-extra-inputs", sharedExtraKey: "from-extra-inputs"},
			Turn: with(single, func(t *sdk.Turn) {
				t.Extra = map[string]any{turnExtraKey: 7, sharedExtraKey: "from-turn"}
			})},
			texts: []string{textAlpha}},
		{name: "turn model", req: sdk.RequestInfo{Model: model, Turn: with(single, func(t *sdk.Turn) { t.Model = turnModel })},
			texts: []string{textAlpha}},
		{name: "special characters", req: sdk.RequestInfo{Model: model, Turn: turn(textSpecial)},
			texts: []string{textSpecial}},
	}
	if !c.SingleTurn {
		cases = append(cases, payloadCase{name: "history", req: sdk.RequestInfo{Model: model, Turn: turn(textGamma),
			History: []sdk.HistoryEntry{{Role: "user", Text: textAlpha}, {Role: "assistant", Text: textBeta}}},
			texts: []string{textGamma}})
	}
	if m.SupportsStreaming {
		cases = append(cases, payloadCase{name: "single text, streaming",
			req: sdk.RequestInfo{Model: model, Streaming: true, IncludeUsage: true, Turn: single}, texts: []string{textAlpha}})
	}
	for i := range cases {
		cases[i].req.ExtraInputs = withExtras(c.ExtraInputs, cases[i].req.ExtraInputs)
	}
	return cases
}

// severalTexts are the texts the several-texts request must carry: all
// three, or the first for a one-prompt API.
func severalTexts(c EndpointCase) []string {
	if c.FirstTextOnly {
		return []string{textAlpha}
	}
	return []string{textAlpha, textBeta, textGamma}
}

// withExtras merges the case's own extra inputs over the endpoint's
// settings; nil when both are empty.
func withExtras(settings, own map[string]any) map[string]any {
	if len(settings) == 0 {
		return own
	}
	out := make(map[string]any, len(settings)+len(own))
	for k, v := range settings {
		out[k] = v
	}
	for k, v := range own {
		out[k] = v
	}
	return out
}

// oddRequests may be refused with an error but must not panic, and what
// they return, if anything, must be JSON.
func oddRequests(model string) map[string]sdk.RequestInfo {
	return map[string]sdk.RequestInfo{
		"zero RequestInfo":     {},
		"no texts":             {Model: model},
		"one empty text":       {Model: model, Turn: sdk.Turn{Texts: []string{""}}},
		"empty history entry":  {Model: model, Turn: sdk.Turn{Texts: []string{textAlpha}}, History: []sdk.HistoryEntry{{}}},
		"max tokens 0":         {Model: model, Turn: sdk.Turn{Texts: []string{textAlpha}, MaxTokens: intPtr(0)}},
		"nested extra inputs":  {Model: model, Turn: sdk.Turn{Texts: []string{textAlpha}}, ExtraInputs: map[string]any{"nested": map[string]any{"a": []any{1.5, "b", nil}}}},
		"streaming, no usage":  {Model: model, Streaming: true, Turn: sdk.Turn{Texts: []string{textAlpha}}},
		"role system, no text": {Model: model, Turn: sdk.Turn{Role: "system"}},
	}
}

func checkFormatPayload(t testing.TB, ep sdk.Endpoint, m sdk.EndpointMetadata, c EndpointCase) {
	t.Helper()
	model := c.Model
	bodies := map[string]map[string]any{}
	for _, pc := range payloadCases(c, m) {
		what := fmt.Sprintf("FormatPayload(%s)", pc.name)
		raw, ok, err := call(t, what, func() ([]byte, error) { return ep.FormatPayload(pc.req) })
		if !ok {
			continue
		}
		if err != nil {
			t.Errorf("sdktest: %s returned error: %v", what, err)
			continue
		}
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("sdktest: %s = %s is not a JSON object: %v", what, quote(raw), err)
			continue
		}
		bodies[pc.name] = body
		strs := stringValues(body, nil)
		for _, text := range pc.texts {
			if !containsSubstring(strs, text) {
				t.Errorf("sdktest: %s = %s does not carry the prompt text %q", what, quote(raw), text)
			}
		}
	}
	for name, req := range oddRequests(model) {
		what := fmt.Sprintf("FormatPayload(%s)", name)
		raw, ok, err := call(t, what, func() ([]byte, error) { return ep.FormatPayload(req) })
		if ok && err == nil && !json.Valid(raw) {
			t.Errorf("sdktest: %s = %s is not valid JSON (return an error instead)", what, quote(raw))
		}
	}
	if c.SingleTurn {
		// A single-turn API must refuse history rather than drop it.
		req := sdk.RequestInfo{Model: model, Turn: payloadCases(c, m)[0].req.Turn, ExtraInputs: c.ExtraInputs,
			History: []sdk.HistoryEntry{{Role: "user", Text: textAlpha}, {Role: "assistant", Text: textBeta}}}
		if _, ok, err := call(t, "FormatPayload(history)", func() ([]byte, error) { return ep.FormatPayload(req) }); ok && err == nil {
			t.Errorf("sdktest: FormatPayload(history) succeeded, but EndpointCase.SingleTurn says the API takes no history: return an error")
		}
	}
	checkPayloadSemantics(t, m, c, bodies)
}

// checkPayloadSemantics compares bodies across cases: extras merged last,
// max tokens sent, the turn's model used, streaming requested.
func checkPayloadSemantics(t testing.TB, m sdk.EndpointMetadata, c EndpointCase, bodies map[string]map[string]any) {
	t.Helper()
	model := c.Model
	if b, ok := bodies["extra inputs"]; ok {
		checkExtras(t, b, c.ExtrasAt)
	}
	if m.ProducesTokens && !c.NoMaxTokens {
		for _, name := range []string{"max tokens", "legacy max tokens"} {
			if b, ok := bodies[name]; ok && !containsNumber(b, maxTokensValue) {
				t.Errorf("sdktest: FormatPayload(%s): Turn.MaxTokens %d does not appear in the body", name, maxTokensValue)
			}
		}
		if b, ok := bodies["single text"]; ok && containsNumber(b, maxTokensValue) {
			t.Errorf("sdktest: FormatPayload(single text): the body carries %d although Turn.MaxTokens is nil", maxTokensValue)
		}
	}
	// An API without a model field in the body cannot show either model.
	if b, ok := bodies["single text"]; ok && containsSubstring(stringValues(b, nil), model) {
		if tb, ok := bodies["turn model"]; ok && !containsSubstring(stringValues(tb, nil), turnModel) {
			t.Errorf("sdktest: FormatPayload(turn model): Turn.Model %q does not appear in the body (it overrides the run's model)", turnModel)
		}
	}
	// With one path for both modes only the body can ask for a stream,
	// unless the API streams by its Accept header.
	if m.SupportsStreaming && m.StreamingPath == m.EndpointPath && !c.StreamByHeader {
		s, okS := bodies["single text, streaming"]
		n, okN := bodies["single text"]
		if okS && okN && reflect.DeepEqual(s, n) {
			t.Errorf("sdktest: FormatPayload: streaming and non-streaming bodies are identical, but StreamingPath equals EndpointPath (%q): the body must ask the server to stream", m.EndpointPath)
		}
	}
}

// checkExtras checks the extra inputs case: --extra-inputs merged into the
// body (or the object ExtrasAt names), the turn's Extra over them at the top
// level.
func checkExtras(t testing.TB, b map[string]any, at string) {
	t.Helper()
	into, where := b, "top-level"
	if at != "" {
		obj, ok := b[at].(map[string]any)
		if !ok {
			t.Errorf("sdktest: FormatPayload(extra inputs): no %q object for --extra-inputs (EndpointCase.ExtrasAt)", at)
			return
		}
		into, where = obj, at
	}
	if into[extraKey] != "from-extra-inputs" {
		t.Errorf("sdktest: FormatPayload(extra inputs): %s %q = %v, want %q (--extra-inputs merge there)", where, extraKey, into[extraKey], "from-extra-inputs")
	}
	want := map[string]any{turnExtraKey: float64(7), sharedExtraKey: "from-turn"}
	for k, v := range want {
		if b[k] != v {
			t.Errorf("sdktest: FormatPayload(extra inputs): top-level %q = %v, want %v (the turn's Extra merges into the body last)", k, b[k], v)
		}
	}
}

// stringValues collects every string in a decoded JSON value.
func stringValues(v any, acc []string) []string {
	switch x := v.(type) {
	case string:
		acc = append(acc, x)
	case map[string]any:
		for _, e := range x {
			acc = stringValues(e, acc)
		}
	case []any:
		for _, e := range x {
			acc = stringValues(e, acc)
		}
	}
	return acc
}

func containsSubstring(strs []string, sub string) bool {
	for _, s := range strs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// containsNumber reports whether n appears as a number anywhere in v.
func containsNumber(v any, n float64) bool {
	switch x := v.(type) {
	case float64:
		return x == n
	case map[string]any:
		for _, e := range x {
			if containsNumber(e, n) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if containsNumber(e, n) {
				return true
			}
		}
	}
	return false
}
