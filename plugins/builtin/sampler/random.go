package sampler

import (
	"math/rand/v2"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Random is the plugin name (--dataset-sampling-strategy random).
const Random = "random"

// RandomSampler draws sessions uniformly with replacement. It is stateless
// and safe for concurrent use.
type RandomSampler struct{}

var _ sdk.DatasetSampler = (*RandomSampler)(nil)

// NewRandom returns the random sampler.
func NewRandom() *RandomSampler { return &RandomSampler{} }

// Order implements sdk.DatasetSampler. Each credit's draw comes from its own
// generator keyed by (seed, credit), so it needs no shared state or lock.
func (*RandomSampler) Order(n int, seed int64) func(credit int) int {
	return func(credit int) int {
		return rand.New(rand.NewPCG(uint64(seed), uint64(credit)^0x7a6e)).IntN(n)
	}
}
