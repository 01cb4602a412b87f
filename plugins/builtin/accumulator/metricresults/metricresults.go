// Package metricresults is the built-in accumulator: it keeps every metric
// value of a phase exactly and summarises them into AIPerf's results (full
// stats for record metrics, run-level aggregates and rates, error summary)
// over whatever metrics the run's record processors declared.
//
// With its slice_duration setting (--slice-duration) the profiling phase's
// results also hold AIPerf's timeslices (Results.Timeslices), which the
// timeslices data exporter writes.
package metricresults

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/core/metrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Name is the plugin's registered name.
const Name = "metric_results"

// Settings are the accumulator's configuration.
type Settings struct {
	// SliceDuration is the timeslice width in seconds (--slice-duration);
	// 0, the default, computes no timeslices.
	SliceDuration float64 `json:"slice_duration"`
}

// Accumulator implements sdk.Accumulator, sdk.Initializer, sdk.Validator,
// sdk.Configurable, sdk.MetricsAware and sdk.PhaseObserver. Add is called
// from one goroutine at a time; Snapshot may be polled concurrently for
// live progress.
type Accumulator struct {
	settings Settings
	info     sdk.RunInfo
	inited   bool
	engine   *metrics.Accumulator
	// phase keeps the profiling phase's bounds reported before SetMetrics
	// built the engine, so they are not lost.
	phaseMu              sync.Mutex
	phaseStart, phaseEnd *int64
}

var (
	_ sdk.Accumulator   = (*Accumulator)(nil)
	_ sdk.Initializer   = (*Accumulator)(nil)
	_ sdk.Validator     = (*Accumulator)(nil)
	_ sdk.Configurable  = (*Accumulator)(nil)
	_ sdk.MetricsAware  = (*Accumulator)(nil)
	_ sdk.PhaseObserver = (*Accumulator)(nil)
)

// New returns an accumulator; the core calls Init, then SetMetrics.
func New() *Accumulator { return &Accumulator{} }

var (
	errNotReady       = errors.New("metricresults: Summarize called before Init and SetMetrics")
	errMetricsTooSoon = errors.New("metricresults: SetMetrics called before Init")
)

// PluginConfig exposes the settings for decoding.
func (a *Accumulator) PluginConfig() any { return &a.settings }

// Init keeps the run's facts; the metrics come with SetMetrics.
func (a *Accumulator) Init(_ context.Context, info sdk.RunInfo) error {
	a.info, a.inited = info, true
	return nil
}

// Validate checks the slice duration: finite, not negative, and at least
// 1 ns when set (AIPerf slices by its whole nanoseconds).
func (a *Accumulator) Validate() error {
	_, err := a.sliceDuration()
	return err
}

// sliceDuration is the slice width, AIPerf's int(slice_duration × 1e9) ns.
func (a *Accumulator) sliceDuration() (time.Duration, error) {
	sec := a.settings.SliceDuration
	if sec == 0 {
		return 0, nil
	}
	if math.IsNaN(sec) || math.IsInf(sec, 0) || sec < 0 || sec*1e9 >= math.MaxInt64 {
		return 0, fmt.Errorf("metricresults: slice_duration must be a positive number of seconds, got %v", sec)
	}
	d := time.Duration(sec * 1e9)
	if d == 0 {
		return 0, fmt.Errorf("metricresults: slice_duration %v s is shorter than 1 ns", sec)
	}
	return d, nil
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
	// Timeslices cut the profiling phase only: the warmup instance's
	// results are never sliced.
	if a.phase() == sdk.PhaseProfiling {
		d, err := a.sliceDuration()
		if err != nil {
			return err
		}
		if err := engine.SetSliceDuration(d); err != nil {
			return fmt.Errorf("metricresults: %w", err)
		}
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
	res := a.engine.Summarize()
	if err := a.engine.Err(); err != nil {
		return nil, err
	}
	return res, nil
}

// Snapshot returns live counts (records, valid, errors, good); zero before
// SetMetrics.
func (a *Accumulator) Snapshot() metrics.Counts {
	if a.engine == nil {
		return metrics.Counts{}
	}
	return a.engine.Snapshot()
}
