package gate

import (
	"fmt"
	"sync/atomic"

	"github.com/aiperf-go/aiperf/core/metrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// MinGraceFloor is the fewest profiling records AIPerf 0.13 waits for
// before --failed-request-threshold may abort (build_failed_request_abort_config:
// max(concurrency, 10)), so one early failure cannot end a run.
const MinGraceFloor = 10

// GraceFloor is AIPerf's arming floor for a profiling phase with the given
// concurrency (0 or less: none set, counted as 1).
func GraceFloor(concurrency int) int64 {
	return int64(max(concurrency, 1, MinGraceFloor))
}

// Live reports whether --abort-on-threshold-breach can act on t while the
// run executes: an upper bound (< or <=) on error_request_count:avg, which
// only grows (a breach is final), or on request_error_rate:avg, checked like
// --failed-request-threshold once the grace floor is reached. Every other
// threshold is checked once, after the run.
func Live(t Threshold) bool {
	return t.Stat == "avg" && t.Op.upper() &&
		(t.Metric == metrics.TagErrorRequestCount || t.Metric == metrics.TagRequestErrorRate)
}

// WatchConfig says what a Watch checks.
type WatchConfig struct {
	// FailedRequestThreshold is --failed-request-threshold, a ratio in
	// [0, 1]; nil disables it.
	FailedRequestThreshold *float64
	// Concurrency is the profiling phase's concurrency (for the floor).
	Concurrency int
	// Thresholds are checked live with AbortOnBreach (only those Live).
	Thresholds    []Threshold
	AbortOnBreach bool
}

// Abort says why a Watch stopped the run.
type Abort struct {
	// Flag is "--failed-request-threshold" or "--abort-on-threshold-breach".
	Flag string
	// Threshold is the breached threshold (--abort-on-threshold-breach).
	Threshold *Threshold
	// Limit is the --failed-request-threshold ratio.
	Limit float64
	// Errors and Records are the profiling records seen when it tripped.
	Errors, Records int64
	// Floor is the grace floor that had been reached (0: none applies).
	Floor int64
	// AfterRun marks a verdict reached on a finished run's counts (a
	// sharded run's merged result) rather than by stopping it.
	AfterRun bool
}

// Ratio is the failed share of the records seen when the watch tripped.
func (a *Abort) Ratio() float64 {
	if a.Records == 0 {
		return 0
	}
	return float64(a.Errors) / float64(a.Records)
}

// Error is the message of the run's cancellation cause, AIPerf's warning
// for the failed-request threshold.
func (a *Abort) Error() string {
	if a.Threshold != nil {
		return fmt.Sprintf("%s: threshold %s breached during the run (%d of %d profiling requests failed); the run was stopped",
			a.Flag, a.Threshold, a.Errors, a.Records)
	}
	if a.AfterRun {
		return fmt.Sprintf("%s exceeded over the whole run: %d/%d = %.3f > %.3f", a.Flag, a.Errors, a.Records, a.Ratio(), a.Limit)
	}
	return fmt.Sprintf("%s exceeded: %d/%d = %.3f > %.3f (grace floor %d); the run was stopped",
		a.Flag, a.Errors, a.Records, a.Ratio(), a.Limit, a.Floor)
}

// Watch counts the profiling phase's records as the record collector sees
// them and calls abort once, the first time a limit is exceeded. Add runs
// on the collector goroutine (never on the timed path); Tripped may be read
// from any goroutine.
type Watch struct {
	limit   *float64
	floor   int64
	live    []Threshold
	abort   func(cause error)
	records int64
	errors  int64
	tripped atomic.Pointer[Abort]
}

// NewWatch returns a watch for cfg, or nil when it has nothing to check (a
// nil *Watch ignores Add). abort is called at most once, with the *Abort.
func NewWatch(cfg WatchConfig, abort func(cause error)) *Watch {
	w := &Watch{limit: cfg.FailedRequestThreshold, floor: GraceFloor(cfg.Concurrency), abort: abort}
	if cfg.AbortOnBreach {
		for _, t := range cfg.Thresholds {
			if Live(t) {
				w.live = append(w.live, t)
			}
		}
	}
	if w.limit == nil && len(w.live) == 0 {
		return nil
	}
	return w
}

// Add counts one processed record; warmup records do not count (AIPerf:
// only PROFILING records). After the watch tripped it does nothing.
func (w *Watch) Add(rm *sdk.RecordMetrics) {
	if w == nil || rm == nil || rm.Record == nil || rm.Record.Phase != sdk.PhaseProfiling || w.tripped.Load() != nil {
		return
	}
	w.records++
	if !rm.Record.Valid() {
		w.errors++
	}
	if a := w.check(); a != nil {
		w.tripped.Store(a)
		if w.abort != nil {
			w.abort(a)
		}
	}
}

// check applies AIPerf's rule (a ratio strictly above the threshold, once
// the floor is reached), then the live thresholds.
func (w *Watch) check() *Abort {
	armed := w.records >= w.floor
	if w.limit != nil && armed {
		if ratio := float64(w.errors) / float64(w.records); ratio > *w.limit {
			return &Abort{Flag: "--failed-request-threshold", Limit: *w.limit, Errors: w.errors, Records: w.records, Floor: w.floor}
		}
	}
	for i := range w.live {
		t := &w.live[i]
		switch t.Metric {
		case metrics.TagErrorRequestCount:
			if !t.Op.holds(float64(w.errors), t.Value) {
				return &Abort{Flag: "--abort-on-threshold-breach", Threshold: t, Errors: w.errors, Records: w.records}
			}
		case metrics.TagRequestErrorRate:
			// The export's unit: percent of the completed requests.
			if armed && !t.Op.holds(100*float64(w.errors)/float64(w.records), t.Value) {
				return &Abort{Flag: "--abort-on-threshold-breach", Threshold: t, Errors: w.errors, Records: w.records, Floor: w.floor}
			}
		}
	}
	return nil
}

// Tripped returns why the watch stopped the run, or nil.
func (w *Watch) Tripped() *Abort {
	if w == nil {
		return nil
	}
	return w.tripped.Load()
}
