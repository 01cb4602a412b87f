package sampler

import (
	"math/rand/v2"
	"sync"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Shuffle is the plugin name (--dataset-sampling-strategy shuffle), AIPerf's
// default for synthetic data.
const Shuffle = "shuffle"

// ShuffleSampler walks a seeded permutation of the sessions without
// replacement and draws a new one for each pass. It is safe for concurrent
// use; the state of a phase lives in the function Order returns.
type ShuffleSampler struct{}

var _ sdk.DatasetSampler = (*ShuffleSampler)(nil)

// NewShuffle returns the shuffle sampler.
func NewShuffle() *ShuffleSampler { return &ShuffleSampler{} }

// Order implements sdk.DatasetSampler.
func (*ShuffleSampler) Order(n int, seed int64) func(credit int) int {
	o := &shuffleOrder{n: n, seed: seed, passes: map[int][]int{}}
	return o.at
}

// shuffleOrder caches the permutations of recent passes.
type shuffleOrder struct {
	n    int
	seed int64

	mu     sync.Mutex
	passes map[int][]int
}

func (o *shuffleOrder) at(credit int) int {
	pass, pos := credit/o.n, credit%o.n
	o.mu.Lock()
	defer o.mu.Unlock()
	perm, ok := o.passes[pass]
	if !ok {
		perm = permutation(o.n, o.seed, pass)
		o.passes[pass] = perm
		// Credits of a pass arrive roughly in order: older passes are done,
		// and a straggler only recomputes the same permutation.
		delete(o.passes, pass-3)
	}
	return perm[pos]
}

// permutation is pass's order of 0..n-1, fixed by (seed, pass).
func permutation(n int, seed int64, pass int) []int {
	perm := make([]int, n)
	for j := range perm {
		perm[j] = j
	}
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(pass)^0x5eed))
	rng.Shuffle(n, func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })
	return perm
}
