package poisson

import (
	"math/rand/v2"
)

// maxEvents caps a trajectory's length (512 KiB of float64). Ranges above
// it (a rate ramp to 100k req/s) keep Poisson-spaced jumps, each of size
// range/events, instead of one jump per unit.
const maxEvents = 1 << 16

// pcgStream is a fixed PCG stream selector so one seed means one sequence.
const pcgStream = 0xda3e39cb94b95bdb

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
