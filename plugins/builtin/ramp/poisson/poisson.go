// Package poisson is AIPerf's "poisson" ramp: the value climbs from start
// to target in equal steps at Poisson-distributed times, normalised so the
// last step lands exactly at the end of the ramp. The event count is
// random (about |target-start|+1) and fixed by the seed.
package poisson

import (
	"math"
	"sort"
	"sync"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/ramp/internal/span"
)

// Name is the plugin name.
const Name = "poisson"

// maxCached bounds the trajectory cache. A run ramps at most a handful of
// distinct ranges (concurrency, prefill, rate, and their warmup variants).
const maxCached = 8

// Ramp implements sdk.Ramp. It is safe for concurrent use: one ramp may
// shape the concurrency, prefill and rate ramps of a phase at once.
type Ramp struct {
	seed int64

	mu    sync.Mutex
	cache map[float64][]float64 // |target-start| → unit-time event times
}

var _ sdk.Ramp = (*Ramp)(nil)

// New returns the ramp with seed 0.
func New() *Ramp { return NewSeeded(0) }

// NewSeeded returns the ramp whose event times are fixed by seed
// (--random-seed): the same seed and range give the same trajectory.
func NewSeeded(seed int64) *Ramp {
	return &Ramp{seed: seed, cache: make(map[float64][]float64)}
}

// Value returns the step-function value at t: start plus one step of
// (target-start)/n for each of the n events at or before t/d. It is start
// before the first event and target once t >= d or d <= 0.
func (r *Ramp) Value(t, d time.Duration, start, target float64) float64 {
	p, done := span.Progress(t, d)
	valueRange := math.Abs(target - start)
	if done || !(valueRange > 0) || math.IsInf(valueRange, 0) {
		return target
	}
	events := r.events(valueRange)
	// Events at or before p have fired (AIPerf's bisect_right).
	k := sort.Search(len(events), func(i int) bool { return events[i] > p })
	if k == len(events) {
		return target
	}
	return start + (target-start)*float64(k)/float64(len(events))
}

// events returns the cached trajectory for valueRange, drawing it once.
func (r *Ramp) events(valueRange float64) []float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cache == nil { // zero-value Ramp
		r.cache = make(map[float64][]float64)
	}
	if ev, ok := r.cache[valueRange]; ok {
		return ev
	}
	if len(r.cache) >= maxCached {
		clear(r.cache) // regenerating is deterministic, so eviction is safe
	}
	ev := trajectory(r.seed, valueRange)
	r.cache[valueRange] = ev
	return ev
}
