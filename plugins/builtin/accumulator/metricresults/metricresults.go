// Package metricresults is the built-in accumulator: it keeps every metric
// value of a phase exactly and summarises them into AIPerf's results (full
// stats for record metrics, run-level aggregates and rates, error summary).
package metricresults

import (
	"errors"

	"github.com/aiperf-go/aiperf/core/metrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Name is the plugin's registered name.
const Name = "metric_results"

// Accumulator implements sdk.Accumulator. Add is called from one goroutine
// at a time; Snapshot may be polled concurrently for live progress.
type Accumulator struct {
	engine *metrics.Accumulator
}

var _ sdk.Accumulator = (*Accumulator)(nil)

// New returns an uninitialised accumulator; call Init before Add.
func New() *Accumulator { return &Accumulator{} }

var errNotInitialised = errors.New("metricresults: Summarize called before Init")

// Init prepares the accumulator; it fails when a goodput SLO names a metric
// that cannot be a target or does not apply to the run.
func (a *Accumulator) Init(info sdk.RunInfo) error {
	engine, err := metrics.NewAccumulator(info)
	if err != nil {
		return err
	}
	a.engine = engine
	return nil
}

// Add folds one processed record in. Before Init it is a no-op: Add has no
// error return, and Summarize reports the missing Init instead.
func (a *Accumulator) Add(rec *sdk.RecordMetrics) {
	if a.engine != nil {
		a.engine.Add(rec)
	}
}

// Summarize returns the results of everything added so far.
func (a *Accumulator) Summarize() (*sdk.Results, error) {
	if a.engine == nil {
		return nil, errNotInitialised
	}
	return a.engine.Summarize(), nil
}

// Snapshot returns live counts (records, valid, errors, good); zero before Init.
func (a *Accumulator) Snapshot() metrics.Counts {
	if a.engine == nil {
		return metrics.Counts{}
	}
	return a.engine.Snapshot()
}
