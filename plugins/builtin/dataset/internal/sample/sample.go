// Package sample holds the seeded random draws every dataset builder
// shares: one independent stream per concern (AIPerf's rng.derive names),
// AIPerf's truncated normal samples, and UUIDs drawn from a stream.
package sample

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
)

// maxRejections bounds the truncated-normal rejection loop, as in AIPerf.
const maxRejections = 10_000

// NewStream returns an independent RNG for one concern, so that changing one
// option (say the output length) does not shift the prompts another draws.
func NewStream(seed int64, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
}

// Normal is AIPerf's sample_normal: a normal sample at or above lower by
// rejection, the clamped mean if every draw is rejected.
func Normal(r *rand.Rand, mean, stddev, lower float64) float64 {
	for range maxRejections {
		if x := r.NormFloat64()*stddev + mean; x >= lower {
			return x
		}
	}
	return math.Max(lower, mean)
}

// PositiveNormalInt is AIPerf's sample_positive_normal_integer: the rounded
// mean when stddev <= 0, else ceil of a normal sample truncated at 0; never
// below 1.
func PositiveNormalInt(r *rand.Rand, mean, stddev float64) int {
	if stddev <= 0 {
		return max(1, int(math.RoundToEven(mean)))
	}
	return max(1, int(math.Ceil(Normal(r, mean, stddev, 0))))
}

// NewUUID draws a version 4 UUID from r.
func NewUUID(r *rand.Rand) string {
	var b [16]byte
	for i := 0; i < 16; i += 8 {
		u := r.Uint64()
		for j := range 8 {
			b[i+j] = byte(u >> (8 * j))
		}
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	const hex = "0123456789abcdef"
	out := make([]byte, 0, 36)
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hex[c>>4], hex[c&0xf])
	}
	return string(out)
}
