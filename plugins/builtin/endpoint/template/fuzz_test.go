package template

import (
	"testing"

	"github.com/aiperf-go/aiperf/internal/fuzzcheck"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

var templateSeeds = []string{
	`{"text": "Hello from the fake server.", "custom": {"answer": "Hello from the fake server."}}`,
	`{"text": ["A", "B", "C"]}`, `{"choices": [{"message": {"role": "assistant", "content": "chat"}}]}`,
	`{"choices": [{"delta": {"content": "delta"}}]}`, `{"choices": ["x"]}`, `{"text": 5, "output": ["x", "y"]}`,
	`{"data": [{"embedding": [0.1, 0.2]}, {"embedding": [0.3, 0.4]}]}`, `{"results": [{"index": 0, "score": 0.5}]}`,
	`{"out": {"ranked": [{"i": 0}, {"i": 1}]}}`, `not json`,
}

func FuzzParseAutoDetect(f *testing.F) {
	fuzzcheck.Endpoint(f, New(), templateSeeds...)
}

// FuzzParseResponseField parses with a JMESPath response_field set.
func FuzzParseResponseField(f *testing.F) {
	ep := New()
	extra := map[string]any{KeyPayloadTemplate: `{}`, KeyResponseField: "out.ranked || data[*].embedding || custom.answer"}
	if _, err := ep.FormatPayload(sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"x"}}, ExtraInputs: extra}); err != nil {
		f.Fatal(err)
	}
	fuzzcheck.Endpoint(f, ep, templateSeeds...)
}
