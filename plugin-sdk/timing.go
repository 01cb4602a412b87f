package sdk

import (
	"errors"
	"time"
)

// ArrivalPattern generates the gaps of a renewal process (category
// arrival_pattern): the strategy adds each gap to an absolute schedule, so
// issuance latency never accumulates into drift. A pattern is built per
// phase; its seed comes from Init (RunInfo.Seed), its shape from its
// configuration (e.g. gamma's smoothness, --arrival-smoothness).
type ArrivalPattern interface {
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
