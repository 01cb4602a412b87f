// Package metricresults is the built-in accumulator: it keeps every metric
// value of a phase exactly and summarises them into AIPerf's results (full
// stats for record metrics, run-level aggregates and rates, error summary)
// over whatever metrics the run's record processors declared.
package metricresults

import (
	"context"
	"errors"
	"sync"

	"github.com/aiperf-go/aiperf/core/metrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Name is the plugin's registered name.
const Name = "metric_results"

// Accumulator implements sdk.Accumulator, sdk.Initializer,
// sdk.MetricsAware and sdk.PhaseObserver. Add is called from one goroutine
// at a time; Snapshot may be polled concurrently for live progress.
type Accumulator struct {
	info   sdk.RunInfo
	inited bool
	engine *metrics.Accumulator
	// phase keeps the profiling phase's bounds reported before SetMetrics
	// built the engine, so they are not lost.
	phaseMu              sync.Mutex
	phaseStart, phaseEnd *int64
}

var (
	_ sdk.Accumulator   = (*Accumulator)(nil)
	_ sdk.Initializer   = (*Accumulator)(nil)
	_ sdk.MetricsAware  = (*Accumulator)(nil)
	_ sdk.PhaseObserver = (*Accumulator)(nil)
)

// New returns an accumulator; the core calls Init, then SetMetrics.
func New() *Accumulator { return &Accumulator{} }

var (
	errNotReady       = errors.New("metricresults: Summarize called before Init and SetMetrics")
	errMetricsTooSoon = errors.New("metricresults: SetMetrics called before Init")
)

// Init keeps the run's facts; the metrics come with SetMetrics.
func (a *Accumulator) Init(_ context.Context, info sdk.RunInfo) error {
	a.info, a.inited = info, true
	return nil
}

// SetMetrics builds the run's catalog from every declared metric and
// prepares the accumulator. It fails when a goodput SLO names a metric
// that is not declared, cannot be a target or does not apply to the run.
func (a *Accumulator) SetMetrics(specs []sdk.MetricSpec) error {
	if !a.inited {
		return errMetricsTooSoon
	}
	cat, err := metrics.NewCatalogFromSpecs(specs, a.info)
	if err != nil {
		return err
	}
	engine, err := metrics.NewAccumulator(cat, a.info)
	if err != nil {
		return err
	}
	a.phaseMu.Lock()
	defer a.phaseMu.Unlock()
	if a.phaseStart != nil {
		engine.SetPhaseStart(*a.phaseStart)
	}
	if a.phaseEnd != nil {
		engine.SetPhaseEnd(*a.phaseEnd)
	}
	a.engine = engine
	return nil
}

// PhaseStarted takes the start of the phase this instance serves (profiling,
// or warmup for the warmup instance): the request, output-token and goodput
// throughputs are measured from it (AIPerf 0.13), not from the first
// request. Other phases are ignored: their records never come here.
func (a *Accumulator) PhaseStarted(phase string, wallNs int64) {
	a.observePhase(phase, wallNs, true)
}

// PhaseEnded takes the end of the instance's phase, where the throughputs'
// window closes.
func (a *Accumulator) PhaseEnded(phase string, wallNs int64) {
	a.observePhase(phase, wallNs, false)
}

func (a *Accumulator) observePhase(phase string, wallNs int64, start bool) {
	if phase != a.phase() {
		return
	}
	a.phaseMu.Lock()
	defer a.phaseMu.Unlock()
	switch {
	case a.engine != nil && start:
		a.engine.SetPhaseStart(wallNs)
	case a.engine != nil:
		a.engine.SetPhaseEnd(wallNs)
	case start:
		a.phaseStart = &wallNs
	default:
		a.phaseEnd = &wallNs
	}
}

// phase is the phase this instance accumulates: the one it was built for,
// profiling by default.
func (a *Accumulator) phase() string {
	if a.info.Phase != "" {
		return a.info.Phase
	}
	return sdk.PhaseProfiling
}

// Add folds one processed record in. Before SetMetrics it is a no-op: Add
// has no error return, and Summarize reports the missing setup instead.
func (a *Accumulator) Add(rec *sdk.RecordMetrics) {
	if a.engine != nil {
		a.engine.Add(rec)
	}
}

// Summarize returns the results of everything added so far.
func (a *Accumulator) Summarize() (*sdk.Results, error) {
	if a.engine == nil {
		return nil, errNotReady
	}
	return a.engine.Summarize(), nil
}

// Snapshot returns live counts (records, valid, errors, good); zero before
// SetMetrics.
func (a *Accumulator) Snapshot() metrics.Counts {
	if a.engine == nil {
		return metrics.Counts{}
	}
	return a.engine.Snapshot()
}
