package synthetic

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

// PositiveNormalInt is AIPerf's sample_positive_normal_integer: the rounded
// mean when stddev <= 0, else ceil of a normal sample truncated at 0; never
// below 1.
func PositiveNormalInt(r *rand.Rand, mean, stddev float64) int {
	if stddev <= 0 {
		return max(1, int(math.RoundToEven(mean)))
	}
	v := math.Max(0, mean) // fallback when every draw is rejected
	for range maxRejections {
		if x := r.NormFloat64()*stddev + mean; x >= 0 {
			v = x
			break
		}
	}
	return max(1, int(math.Ceil(v)))
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
