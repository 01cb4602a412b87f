package sdk

import (
	"errors"
	"time"
)

// ArrivalOptions configure an arrival pattern for one phase.
type ArrivalOptions struct {
	// Seed makes the gap sequence reproducible (--random-seed).
	Seed int64
	// Smoothness is the gamma shape (--arrival-smoothness); 0 means 1.
	Smoothness float64
}

// ArrivalPattern generates the gaps of a renewal process (category
// arrival_pattern): the strategy adds each gap to an absolute schedule, so
// issuance latency never accumulates into drift.
type ArrivalPattern interface {
	Init(opts ArrivalOptions) error
	// NextGap returns the time to the next arrival at rate requests/s. It is
	// called from one goroutine.
	NextGap(rate float64) time.Duration
}

// Ramp shapes how a value grows from its start to its target (category
// ramp): concurrency, prefill concurrency and request rate ramps.
type Ramp interface {
	// Value returns the ramped value at elapsed time t of a ramp lasting d.
	// At t >= d it returns target.
	Value(t, d time.Duration, start, target float64) float64
}

// ErrGraceExpired is the cancellation cause of requests still in flight
// when a duration-bound phase's grace period ends; such requests are
// cancelled and excluded from results.
var ErrGraceExpired = errors.New("benchmark grace period expired")
