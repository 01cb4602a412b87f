// Package metricrecord is the built-in record processor: it declares
// AIPerf's per-record metrics and turns each parsed request into their
// values. The core decides which of them apply to a run and drops the
// others, so the processor needs nothing from the run.
package metricrecord

import (
	"errors"
	"slices"
	"sync"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Name is the plugin's registered name.
const Name = "metric_record"

// Processor implements sdk.RecordProcessor. It keeps no per-run state, so
// Process is safe from many goroutines; Recycle pools what it returned.
type Processor struct{}

var (
	_ sdk.RecordProcessor = (*Processor)(nil)
	_ sdk.RecordRecycler  = (*Processor)(nil)
)

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

// recordPool holds RecordMetrics the core handed back (Recycle), each with
// its emptied map: a map of ~50 values is the largest allocation per record.
var recordPool sync.Pool

// Recycle takes back a RecordMetrics this processor returned, after the
// core is done with it.
func (*Processor) Recycle(rm *sdk.RecordMetrics) {
	if rm == nil || rm.Values == nil {
		return
	}
	clear(rm.Values)
	rm.Record, rm.InputTokens = nil, nil
	recordPool.Put(rm)
}

// Process computes every record metric it can for one request, in the
// declared units (ns for latencies). Normal metrics are computed only for
// valid records and ERROR_ONLY metrics only for failed ones. Metrics that
// cannot be computed are missing from Values; invalid (negative) values are
// dropped, never an error.
func (*Processor) Process(pr *sdk.ParsedRecord) (*sdk.RecordMetrics, error) {
	if pr == nil || pr.Record == nil {
		return nil, errNilRecord
	}
	rm, _ := recordPool.Get().(*sdk.RecordMetrics)
	if rm == nil {
		rm = &sdk.RecordMetrics{Values: make(map[string]sdk.MetricValue, expectedValues)}
	}
	rm.Record, rm.InputTokens = pr.Record, pr.InputTokens
	if !pr.Record.Valid() {
		errorMetrics(pr, rm.Values)
		return rm, nil
	}
	validMetrics(pr, rm.Values)
	httpMetrics(pr.Record, rm.Values)
	return rm, nil
}
