package ramp

import (
	"context"
	"math"
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Poisson is the plugin name (--ramp-type poisson), AIPerf's stochastic
// ramp: the value climbs from start to target in equal steps at
// Poisson-distributed times, normalised so the last step lands exactly at
// the end of the ramp. The event count is random (about |target-start|+1)
// and fixed by the seed.
const Poisson = "poisson"

// maxCached bounds the trajectory cache. A run ramps at most a handful of
// distinct ranges (concurrency, prefill, rate, and their warmup variants).
const maxCached = 8

// maxEvents caps a trajectory's length (512 KiB of float64). Ranges above
// it (a rate ramp to 100k req/s) keep Poisson-spaced jumps, each of size
// range/events, instead of one jump per unit.
const maxEvents = 1 << 16

// pcgStream is a fixed PCG stream selector so one seed means one sequence.
const pcgStream = 0xda3e39cb94b95bdb

// PoissonRamp implements sdk.Ramp. It is safe for concurrent use: one ramp
// may shape the concurrency, prefill and rate ramps of a phase at once.
type PoissonRamp struct {
	mu    sync.Mutex
	seed  int64
	cache map[float64][]float64 // |target-start| → unit-time event times
}

var (
	_ sdk.Ramp        = (*PoissonRamp)(nil)
	_ sdk.Initializer = (*PoissonRamp)(nil)
)

// NewPoisson returns the ramp with seed 0; Init reseeds it.
func NewPoisson() *PoissonRamp { return &PoissonRamp{cache: make(map[float64][]float64)} }

// Init takes the seed from run.Seed (--random-seed), so the same seed and
// range give the same trajectory, and drops trajectories of an earlier seed.
func (r *PoissonRamp) Init(_ context.Context, run sdk.RunInfo) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seed = run.Seed
	clear(r.cache)
	return nil
}

// Value returns the step-function value at t: start plus one step of
// (target-start)/n for each of the n events at or before t/d. It is start
// before the first event and target once t >= d or d <= 0.
func (r *PoissonRamp) Value(t, d time.Duration, start, target float64) float64 {
	p, done := progress(t, d)
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
func (r *PoissonRamp) events(valueRange float64) []float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cache == nil { // zero-value ramp
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

// trajectory draws the event times of AIPerf's Poisson ramp in unit time:
// exponential gaps at rate λ = |target-start| (per ramp duration), drawn
// until their sum reaches the end, then scaled so the last event lands
// exactly at 1. That is AIPerf's construction with time divided by the
// duration, which leaves the event sequence unchanged, so one trajectory
// serves every duration. There is always at least one event.
func trajectory(seed int64, valueRange float64) []float64 {
	lambda := min(valueRange, maxEvents)
	r := rand.New(rand.NewPCG(uint64(seed), pcgStream))
	// Expected count is λ+1; the margin avoids regrowth in the common case.
	events := make([]float64, 0, int(lambda)+int(lambda)/8+8)
	sum := 0.0
	for sum < 1 && len(events) < maxEvents {
		sum += r.ExpFloat64() / lambda
		events = append(events, sum)
	}
	scale := 1 / sum
	for i := range events {
		events[i] *= scale
	}
	events[len(events)-1] = 1 // no float drift on the final event
	return events
}
