package media

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
)

// maxRejections bounds the truncated-normal rejection loop, as in AIPerf.
const maxRejections = 10_000

// newStream returns an independent RNG for one concern, named after
// AIPerf's rng.derive names. It mirrors synthetic.NewStream (which this
// package cannot import: the composer imports us).
func newStream(seed int64, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
}

// sampleNormal is AIPerf's sample_normal: a normal sample at or above
// lower by rejection, the clamped mean if every draw is rejected.
func sampleNormal(r *rand.Rand, mean, stddev, lower float64) float64 {
	for range maxRejections {
		if x := r.NormFloat64()*stddev + mean; x >= lower {
			return x
		}
	}
	return math.Max(lower, mean)
}

// positiveNormalInt is AIPerf's sample_positive_normal_integer for the
// integer mean and stddev AIPerf passes (it truncates both with int()):
// the mean when stddev <= 0, else ceil of a normal sample truncated at 0;
// never below 1.
func positiveNormalInt(r *rand.Rand, mean, stddev int) int {
	if stddev <= 0 {
		return max(1, mean)
	}
	return max(1, int(math.Ceil(sampleNormal(r, float64(mean), float64(stddev), 0))))
}
