// Package metricrecord is the built-in record processor: it turns each
// parsed request into AIPerf's per-record metric values using the core
// metrics engine.
package metricrecord

import (
	"errors"

	"github.com/aiperf-go/aiperf/core/metrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Name is the plugin's registered name.
const Name = "metric_record"

// Processor implements sdk.RecordProcessor. Process is safe from many
// goroutines once Init returned.
type Processor struct {
	engine *metrics.RecordProcessor
}

var _ sdk.RecordProcessor = (*Processor)(nil)

// New returns an uninitialised processor; call Init before Process.
func New() *Processor { return &Processor{} }

// errNotInitialised guards against Process before Init.
var errNotInitialised = errors.New("metricrecord: Process called before Init")

// Init resolves which metrics apply to the run (endpoint capabilities,
// streaming, goodput).
func (p *Processor) Init(info sdk.RunInfo) error {
	p.engine = metrics.NewRecordProcessor(info)
	return nil
}

// Process computes one record's metric values in base units.
func (p *Processor) Process(rec *sdk.ParsedRecord) (*sdk.RecordMetrics, error) {
	if p.engine == nil {
		return nil, errNotInitialised
	}
	return p.engine.Process(rec)
}
