package engine

import (
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/payload"
)

// BodyInputs reads what a request body carries for ISL and the media
// metrics: the endpoint's own extraction when it has one, else AIPerf's
// generic walk with the OpenAI content-part types. A body that is not a
// JSON object carries nothing countable (AIPerf then has no ISL either).
func BodyInputs(ep sdk.Endpoint, body []byte) payload.Inputs {
	var in payload.Inputs
	var err error
	if x, ok := ep.(sdk.InputExtractor); ok {
		in, err = x.ExtractInputs(body)
	} else {
		in, err = payload.Extract(body, payload.OpenAI)
	}
	if err != nil {
		return payload.Inputs{}
	}
	return in
}

// InputText is the text ISL tokenizes: the body's texts joined with single
// spaces, in one encode, as AIPerf does.
func InputText(in payload.Inputs) string { return strings.Join(in.Texts, " ") }

// CountInput is the ISL of a body's inputs: the tokens of InputText plus
// any token ids sent as such; nil when the body carries nothing countable
// or there is no tokenizer.
func CountInput(tok sdk.Tokenizer, in payload.Inputs, text string) *int {
	if tok == nil || !in.HasInput() {
		return nil
	}
	n := in.Pretokenized
	if len(in.Texts) > 0 {
		n += tok.Count(text)
	}
	return &n
}
