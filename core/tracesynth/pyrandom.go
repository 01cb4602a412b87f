package tracesynth

import (
	"crypto/sha256"
	"encoding/binary"
	"math/bits"
	"strconv"
)

// rngIdentifier is the name AIPerf's Synthesizer derives its generator
// from (rng.derive("dataset.synthesis.synthesizer")).
const rngIdentifier = "dataset.synthesis.synthesizer"

// deriveSeed is AIPerf's _RNGManager.derive: the first 8 bytes, big-endian,
// of sha256("<root>:<identifier>").
func deriveSeed(root int64, identifier string) uint64 {
	sum := sha256.Sum256([]byte(strconv.FormatInt(root, 10) + ":" + identifier))
	return binary.BigEndian.Uint64(sum[:8])
}

// pyRandom is CPython's random.Random (MT19937) seeded with a non-negative
// int, so the trees the root multiplier picks are AIPerf's own for the same
// --random-seed.
type pyRandom struct {
	mt [624]uint32
	i  int
}

const mtN, mtM = 624, 397

// newPyRandom is random.Random(seed): init_by_array over the seed's 32-bit
// words, least significant first (one word when the seed fits in 32 bits).
func newPyRandom(seed uint64) *pyRandom {
	key := []uint32{uint32(seed)}
	if hi := uint32(seed >> 32); hi != 0 {
		key = append(key, hi)
	}
	r := &pyRandom{}
	r.initGenrand(19650218)
	i, j := 1, 0
	for k := max(mtN, len(key)); k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= mtN {
			r.mt[0] = r.mt[mtN-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k := mtN - 1; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= mtN {
			r.mt[0] = r.mt[mtN-1]
			i = 1
		}
	}
	r.mt[0] = 0x80000000
	return r
}

func (r *pyRandom) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < mtN; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.i = mtN
}

func (r *pyRandom) uint32() uint32 {
	if r.i >= mtN {
		for k := 0; k < mtN; k++ {
			y := (r.mt[k] & 0x80000000) | (r.mt[(k+1)%mtN] & 0x7fffffff)
			v := r.mt[(k+mtM)%mtN] ^ (y >> 1)
			if y&1 != 0 {
				v ^= 0x9908b0df
			}
			r.mt[k] = v
		}
		r.i = 0
	}
	y := r.mt[r.i]
	r.i++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// getrandbits is random.getrandbits(k) for 1 ≤ k ≤ 64: 32-bit words,
// least significant first, the last one shifted down to its width.
func (r *pyRandom) getrandbits(k int) uint64 {
	if k <= 32 {
		return uint64(r.uint32() >> (32 - k))
	}
	lo := uint64(r.uint32())
	return lo | uint64(r.uint32()>>(64-k))<<32
}

// intn is random.randint(0, n-1) (n ≥ 1): _randbelow's rejection sampling
// over n.bit_length() bits.
func (r *pyRandom) intn(n uint64) uint64 {
	k := bits.Len64(n)
	v := r.getrandbits(k)
	for v >= n {
		v = r.getrandbits(k)
	}
	return v
}
