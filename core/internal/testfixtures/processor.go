package testfixtures

import (
	"errors"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Processor is a record processor computing a few AIPerf metrics with their
// plain formulas: request_latency and time_to_first_token (first and last
// content response minus start), output_sequence_length (output + reasoning
// tokens), input_sequence_length and, for failed records, error_isl. It
// computes them whatever the run is; the core drops what does not apply.
type Processor struct{}

var _ sdk.RecordProcessor = Processor{}

// ProcessorTags are the metrics Processor declares.
var ProcessorTags = []string{TagTTFT, TagRequestLatency, TagOSL, TagISL, TagErrorISL}

// Metrics declares ProcessorTags.
func (Processor) Metrics() []sdk.MetricSpec { return Specs(ProcessorTags...) }

// Process computes the values.
func (Processor) Process(pr *sdk.ParsedRecord) (*sdk.RecordMetrics, error) {
	if pr == nil || pr.Record == nil {
		return nil, errors.New("fixture processor: no record")
	}
	v := map[string]sdk.MetricValue{}
	rm := &sdk.RecordMetrics{Record: pr.Record, Values: v, InputTokens: pr.InputTokens}
	if !pr.Record.Valid() {
		if pr.InputTokens != nil {
			v[TagErrorISL] = sdk.MetricValue{Scalar: float64(*pr.InputTokens)}
		}
		return rm, nil
	}
	content := pr.ContentResponses()
	if n := len(content); n > 0 {
		start := pr.Record.StartPerfNs
		v[TagRequestLatency] = sdk.MetricValue{Scalar: float64(content[n-1].PerfNs - start)}
		v[TagTTFT] = sdk.MetricValue{Scalar: float64(content[0].PerfNs - start)}
	}
	if pr.OutputTokens != nil || pr.ReasoningTokens != nil {
		n := 0
		for _, c := range []*int{pr.OutputTokens, pr.ReasoningTokens} {
			if c != nil {
				n += *c
			}
		}
		v[TagOSL] = sdk.MetricValue{Scalar: float64(n)}
	}
	if pr.InputTokens != nil {
		v[TagISL] = sdk.MetricValue{Scalar: float64(*pr.InputTokens)}
	}
	return rm, nil
}
