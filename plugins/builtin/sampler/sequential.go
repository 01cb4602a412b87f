package sampler

import sdk "github.com/aiperf-go/aiperf/plugin-sdk"

// Sequential is the plugin name (--dataset-sampling-strategy sequential).
const Sequential = "sequential"

// SequentialSampler keeps dataset order, wrapping around: what trace replay
// needs. It is stateless and safe for concurrent use.
type SequentialSampler struct{}

var _ sdk.DatasetSampler = (*SequentialSampler)(nil)

// NewSequential returns the sequential sampler.
func NewSequential() *SequentialSampler { return &SequentialSampler{} }

// Order implements sdk.DatasetSampler: credit i sends session i mod n. The
// seed does not apply.
func (*SequentialSampler) Order(n int, _ int64) func(credit int) int {
	return func(credit int) int { return credit % n }
}
