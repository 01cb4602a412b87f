package sdktest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// EndpointCase is what the endpoint checks need to know about the
// author's API.
type EndpointCase struct {
	// Model is the run's model in generated requests; "sdktest-model" when empty.
	Model string
	// SampleUnits are real response units of the API (an SSE event's data
	// or a whole non-streaming body) with what each must parse to. At least
	// one is required: without them nothing checks that parsing works.
	SampleUnits []SampleUnit
	// MalformedUnits must each make ParseResponse fail. Nil means the
	// defaults, `{"` and `{not json}`, which any JSON API must reject.
	MalformedUnits [][]byte

	// What the API is like, where it differs from a chat API. Each one
	// changes what the payload checks expect; none switches a check off.
	//
	// Turn builds the turn of each generated request from its prompt
	// texts; nil puts them in Turn.Texts. An API whose turns carry named
	// text groups (rankings: a query and passages) sets it.
	Turn func(texts []string) sdk.Turn
	// SingleTurn declares an API without conversation history: a request
	// with history must then be refused with an error.
	SingleTurn bool
	// ExtrasAt names the object --extra-inputs merge into; "" is the
	// body's top level (TGI: "parameters").
	ExtrasAt string
	// NoMaxTokens declares an API with no output length field.
	NoMaxTokens bool
	// FirstTextOnly declares an API that takes one prompt per request
	// (image and video generation): of several texts only the first must
	// be sent.
	FirstTextOnly bool
	// StreamByHeader declares an API whose streaming request differs from
	// the non-streaming one only in its Accept header (same path, same
	// body).
	StreamByHeader bool
	// ExtraInputs are settings every generated request carries in
	// --extra-inputs, for an endpoint configured through them (a template
	// endpoint's payload_template).
	ExtraInputs map[string]any
}

// SampleUnit is one response unit and what it must parse to.
type SampleUnit struct {
	// Name labels the unit in failure messages; the data when empty.
	Name      string
	Data      []byte
	Text      string
	Reasoning string
	// Usage, when set, is the usage the unit must report: equal counts,
	// and nil where the unit carries none.
	Usage *sdk.Usage
}

func (u SampleUnit) label() string {
	if u.Name != "" {
		return u.Name
	}
	return quote(u.Data)
}

var defaultMalformedUnits = [][]byte{[]byte(`{"`), []byte(`{not json}`)}

// Endpoint checks an sdk.Endpoint (and its sdk.RecordParser, when it has
// one) in process. See the package documentation for what is checked.
func Endpoint(t testing.TB, ep sdk.Endpoint, c EndpointCase) {
	t.Helper()
	if ep == nil {
		t.Fatalf("sdktest: Endpoint: the endpoint is nil")
	}
	if c.Model == "" {
		c.Model = "sdktest-model"
	}
	if cfg, ok := ep.(sdk.Configurable); ok {
		checkConfigurable(t, cfg)
	}
	meta, ok := callNoErr(t, "Metadata()", ep.Metadata)
	if !ok {
		return
	}
	checkMetadata(t, meta)
	checkFormatPayload(t, ep, meta, c)
	checkParseResponse(t, ep, c)
	if rp, ok := ep.(sdk.RecordParser); ok {
		checkParseRecord(t, ep, rp, c)
	}
}

func checkMetadata(t testing.TB, m sdk.EndpointMetadata) {
	t.Helper()
	// An empty path posts to --url as given (AIPerf's template endpoint);
	// an empty streaming path streams on EndpointPath.
	if m.EndpointPath != "" {
		checkPath(t, "EndpointPath", m.EndpointPath)
	}
	if m.ServiceKind == "" {
		t.Errorf("sdktest: Metadata().ServiceKind is empty: name the API family (e.g. \"openai\")")
	}
	if m.StreamingPath != "" {
		checkPath(t, "StreamingPath", m.StreamingPath)
	}
}

func checkPath(t testing.TB, field, p string) {
	t.Helper()
	switch {
	case p == "":
		t.Errorf("sdktest: Metadata().%s is empty", field)
	case !strings.HasPrefix(p, "/"):
		t.Errorf("sdktest: Metadata().%s = %q must start with '/' (a path appended to --url, not a URL)", field, p)
	case strings.ContainsAny(p, " \t\r\n"):
		t.Errorf("sdktest: Metadata().%s = %q contains whitespace", field, p)
	}
}

// checkParseResponse covers the units every endpoint sees: the "[DONE]"
// sentinel and empty data (both carry nothing), malformed data and the
// author's samples.
func checkParseResponse(t testing.TB, ep sdk.Endpoint, c EndpointCase) {
	t.Helper()
	for _, data := range [][]byte{[]byte("[DONE]"), {}} {
		what := fmt.Sprintf("ParseResponse(%q)", data)
		p, ok, err := call(t, what, func() (sdk.ParsedResponse, error) { return ep.ParseResponse(data) })
		switch {
		case !ok:
		case err != nil:
			t.Errorf("sdktest: %s returned error %v: a unit that carries nothing must parse to an empty response", what, err)
		case p.HasContent() || p.Usage != nil:
			t.Errorf("sdktest: %s = %+v, want an empty response (no text, no reasoning, nil usage)", what, p)
		}
	}
	malformed := c.MalformedUnits
	if malformed == nil {
		malformed = defaultMalformedUnits
	}
	for _, data := range malformed {
		what := "ParseResponse(" + quote(data) + ")"
		p, ok, err := call(t, what, func() (sdk.ParsedResponse, error) { return ep.ParseResponse(data) })
		if ok && err == nil {
			t.Errorf("sdktest: %s = %+v with no error: malformed data must return an error", what, p)
		}
	}
	if len(c.SampleUnits) == 0 {
		t.Errorf("sdktest: EndpointCase.SampleUnits is empty: give at least one response unit of your API and the text it carries")
	}
	for _, u := range c.SampleUnits {
		what := "ParseResponse(" + u.label() + ")"
		p, ok, err := call(t, what, func() (sdk.ParsedResponse, error) { return ep.ParseResponse(u.Data) })
		switch {
		case !ok:
		case err != nil:
			t.Errorf("sdktest: %s returned error: %v", what, err)
		default:
			checkParsed(t, what, p, u)
		}
	}
}

func checkParsed(t testing.TB, what string, got sdk.ParsedResponse, want SampleUnit) {
	t.Helper()
	if got.Text != want.Text || got.Reasoning != want.Reasoning {
		t.Errorf("sdktest: %s: text %q, reasoning %q; want text %q, reasoning %q", what, got.Text, got.Reasoning, want.Text, want.Reasoning)
	}
	if want.Usage != nil && !reflect.DeepEqual(usageOf(got.Usage), usageOf(want.Usage)) {
		t.Errorf("sdktest: %s: usage %s, want %s", what, usageOf(got.Usage), usageOf(want.Usage))
	}
}

// usageView is sdk.Usage with values instead of pointers, for comparing
// and printing; -1 marks an absent count.
type usageView struct{ Prompt, Completion, Total, Reasoning int }

func usageOf(u *sdk.Usage) *usageView {
	if u == nil {
		return nil
	}
	v := func(p *int) int {
		if p == nil {
			return -1
		}
		return *p
	}
	return &usageView{v(u.PromptTokens), v(u.CompletionTokens), v(u.TotalTokens), v(u.ReasoningTokens)}
}

func (u *usageView) String() string {
	if u == nil {
		return "nil"
	}
	return fmt.Sprintf("{prompt %d, completion %d, total %d, reasoning %d (-1 = absent)}", u.Prompt, u.Completion, u.Total, u.Reasoning)
}

// checkParseRecord checks the one-call-per-record path against
// ParseResponse, unit by unit.
func checkParseRecord(t testing.TB, ep sdk.Endpoint, rp sdk.RecordParser, c EndpointCase) {
	t.Helper()
	if len(c.SampleUnits) > 0 {
		units := make([]sdk.Response, len(c.SampleUnits))
		for i, u := range c.SampleUnits {
			units[i] = sdk.Response{PerfNs: 1_000_000 + int64(i)*7_919, Data: u.Data}
		}
		if out, ok := parseRecord(t, rp, "ParseRecord(sample units)", units); ok {
			for i, u := range c.SampleUnits {
				what := fmt.Sprintf("ParseRecord(sample units)[%d] (%s)", i, u.label())
				if out[i].PerfNs != units[i].PerfNs {
					t.Errorf("sdktest: %s: PerfNs %d, want the unit's %d", what, out[i].PerfNs, units[i].PerfNs)
				}
				checkParsed(t, what, out[i], u)
				single, ok, err := call(t, "ParseResponse("+u.label()+")", func() (sdk.ParsedResponse, error) { return ep.ParseResponse(u.Data) })
				if ok && err == nil && !sameContent(single, out[i]) {
					t.Errorf("sdktest: %s = %+v disagrees with ParseResponse = %+v", what, out[i], single)
				}
			}
		}
	}
	empty := []sdk.Response{{PerfNs: 11, Data: nil}, {PerfNs: 12, Data: []byte("[DONE]")}}
	if out, ok := parseRecord(t, rp, `ParseRecord(["", "[DONE]"])`, empty); ok {
		for i := range out {
			if out[i].HasContent() || out[i].Usage != nil || out[i].PerfNs != empty[i].PerfNs {
				t.Errorf("sdktest: ParseRecord([\"\", \"[DONE]\"])[%d] = %+v, want an empty response with PerfNs %d", i, out[i], empty[i].PerfNs)
			}
		}
	}
	malformed := c.MalformedUnits
	if malformed == nil {
		malformed = defaultMalformedUnits
	}
	if len(malformed) > 0 {
		units := []sdk.Response{{PerfNs: 1, Data: malformed[0]}}
		what := "ParseRecord([" + quote(malformed[0]) + "])"
		out, ok, err := call(t, what, func() ([]sdk.ParsedResponse, error) { return rp.ParseRecord(units) })
		if ok && err == nil {
			t.Errorf("sdktest: %s = %+v with no error: a record with a malformed unit must return an error", what, out)
		}
	}
	out, ok, err := call(t, "ParseRecord(no units)", func() ([]sdk.ParsedResponse, error) { return rp.ParseRecord(nil) })
	if ok && err == nil && len(out) != 0 {
		t.Errorf("sdktest: ParseRecord(no units) returned %d responses, want 0", len(out))
	}
}

// parseRecord calls ParseRecord and checks it returned one response per unit.
func parseRecord(t testing.TB, rp sdk.RecordParser, what string, units []sdk.Response) ([]sdk.ParsedResponse, bool) {
	t.Helper()
	out, ok, err := call(t, what, func() ([]sdk.ParsedResponse, error) { return rp.ParseRecord(units) })
	switch {
	case !ok:
		return nil, false
	case err != nil:
		t.Errorf("sdktest: %s returned error: %v", what, err)
		return nil, false
	case len(out) != len(units):
		t.Errorf("sdktest: %s returned %d responses for %d units, want one per unit", what, len(out), len(units))
		return nil, false
	}
	return out, true
}

func sameContent(a, b sdk.ParsedResponse) bool {
	return a.Text == b.Text && a.Reasoning == b.Reasoning && reflect.DeepEqual(usageOf(a.Usage), usageOf(b.Usage))
}
