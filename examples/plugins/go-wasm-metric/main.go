// Command go-wasm-metric is an aiperf record processor compiled to
// WebAssembly. For every successful request it reports two extra metrics:
//
//   - answer_characters: characters (Unicode code points) of the generated
//     answer text, reasoning excluded;
//   - characters_per_token: answer_characters / output tokens, a quick view
//     of how much text each generated token carries for this model and
//     tokenizer (only when the record has a positive output token count).
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o plugin.wasm .
package main

import (
	"unicode/utf8"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/wasmguest"
)

// Metric tags this plugin adds to every valid record.
const (
	TagAnswerCharacters   = "answer_characters"
	TagCharactersPerToken = "characters_per_token"
)

type processor struct{}

var _ sdk.RecordProcessor = processor{}

// Metrics declares both metrics, so aiperf labels, aggregates, exports and
// shows them like its own. They carry no flags: neither direction is
// "better", and they apply to any endpoint that returns text
// (characters_per_token simply has no value where no token count exists).
// Display order 0 places them after AIPerf's ordered metrics, by tag.
func (processor) Metrics() []sdk.MetricSpec {
	return []sdk.MetricSpec{
		{Tag: TagAnswerCharacters, Header: "Answer Characters", Unit: "characters", Integer: true},
		{Tag: TagCharactersPerToken, Header: "Characters Per Token", Unit: "characters/token"},
	}
}

// Process returns no values for failed requests: their answer, if any, is
// incomplete and would skew the distribution.
func (processor) Process(rec *sdk.ParsedRecord) (*sdk.RecordMetrics, error) {
	values := map[string]sdk.MetricValue{}
	if rec.Record != nil && !rec.Record.Valid() {
		return &sdk.RecordMetrics{Values: values}, nil
	}
	chars := 0
	for _, r := range rec.Responses {
		chars += utf8.RuneCountInString(r.Text)
	}
	values[TagAnswerCharacters] = sdk.MetricValue{Scalar: float64(chars)}
	if rec.OutputTokens != nil && *rec.OutputTokens > 0 {
		values[TagCharactersPerToken] = sdk.MetricValue{Scalar: float64(chars) / float64(*rec.OutputTokens)}
	}
	return &sdk.RecordMetrics{Values: values}, nil
}

func init() {
	wasmguest.Register(processor{},
		wasmguest.Name("go-wasm-metric"),
		wasmguest.Version("0.1.0"),
		wasmguest.Description("Answer characters and characters per output token, per request"))
}

// main never runs in a reactor module; the toolchain still requires it.
func main() {}
