// Package metricrecord is the built-in record processor: it declares
// AIPerf's per-record metrics and turns each parsed request into their
// values. The core decides which of them apply to a run and drops the
// others, so the processor needs nothing from the run.
package metricrecord

import (
	"errors"
	"slices"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Name is the plugin's registered name.
const Name = "metric_record"

// Processor implements sdk.RecordProcessor. It is stateless, so Process is
// safe from many goroutines.
type Processor struct{}

var _ sdk.RecordProcessor = (*Processor)(nil)

// New returns the processor.
func New() *Processor { return &Processor{} }

// Metrics declares AIPerf's record metrics (a copy the caller may keep).
func (*Processor) Metrics() []sdk.MetricSpec {
	out := slices.Concat(specs, mediaSpecs, httpSpecs)
	for i := range out {
		out[i].Requires = slices.Clone(out[i].Requires)
	}
	return out
}

// errNilRecord is returned for a parsed record without its request record.
var errNilRecord = errors.New("metricrecord: parsed record has no request record")

// expectedValues sizes the per-record map so it never grows while filling:
// at most one value per declared metric.
var expectedValues = len(specs) + len(mediaSpecs) + len(httpSpecs)

// Process computes every record metric it can for one request, in the
// declared units (ns for latencies). Normal metrics are computed only for
// valid records and ERROR_ONLY metrics only for failed ones. Metrics that
// cannot be computed are missing from Values; invalid (negative) values are
// dropped, never an error.
func (*Processor) Process(pr *sdk.ParsedRecord) (*sdk.RecordMetrics, error) {
	if pr == nil || pr.Record == nil {
		return nil, errNilRecord
	}
	rm := &sdk.RecordMetrics{
		Record:      pr.Record,
		Values:      make(map[string]sdk.MetricValue, expectedValues),
		InputTokens: pr.InputTokens,
	}
	if !pr.Record.Valid() {
		errorMetrics(pr, rm.Values)
		return rm, nil
	}
	validMetrics(pr, rm.Values)
	httpMetrics(pr.Record, rm.Values)
	return rm, nil
}
