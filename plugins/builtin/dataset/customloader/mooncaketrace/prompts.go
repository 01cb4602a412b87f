package mooncaketrace

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/internal/sample"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/synthetic"
)

// block is the corpus window a hash id stands for.
type block struct {
	start   int
	aligned bool // safe cuts at start, start+blockSize and any first-use size
	full    string
	hasFull bool
}

// prompts builds trace prompts for one Load: hash ids map to the same block
// text for the whole file, and identical (input_length, hash_ids) requests
// share one prompt string. Not safe for concurrent use.
type prompts struct {
	tok       sdk.Tokenizer
	al        *alignment
	blockSize int
	rng       *rand.Rand
	warn      func(string)

	blocks map[int]*block
	cache  map[string]string
	key    []byte
	parts  []string
}

func newPrompts(tok sdk.Tokenizer, al *alignment, blockSize int, seed int64, warn func(string)) *prompts {
	return &prompts{
		tok: tok, al: al, blockSize: blockSize, warn: warn,
		rng:    sample.NewStream(seed, "dataset.prompt.corpus"),
		blocks: map[int]*block{},
		cache:  map[string]string{},
	}
}

// errFinalBlock is wrapped by hash-id prompts whose input_length does not
// fit their hash ids.
var errFinalBlock = errors.New("input_length does not fit hash_ids")

// hashed returns the prompt of n tokens made of one block per hash id, in
// AIPerf 0.13's three layouts (PromptGenerator._build_token_sequence):
//   - exact tile (len(ids)·blockSize == n): every block is full;
//   - last block partial (n < len(ids)·blockSize): the last block has the
//     rest, which must be 1..blockSize tokens;
//   - prefix only (n > len(ids)·blockSize, real captured traces such as
//     Bailian's, whose hash ids list only the cached prefix): every block is
//     full and a fresh window of the remaining tokens follows. The tail is
//     drawn anew for every request, as AIPerf does, so such prompts are not
//     cached.
func (pb *prompts) hashed(n int, ids []int) (string, error) {
	bs := pb.blockSize
	final, tail := bs, 0
	if covered := len(ids) * bs; covered > n {
		final = n - (len(ids)-1)*bs
		if final <= 0 {
			return "", fmt.Errorf("%w: input_length %d with %d hash_ids of block size %d leaves %d tokens for the final block, want 1..%d",
				errFinalBlock, n, len(ids), bs, final, bs)
		}
	} else {
		tail = n - covered
	}
	if tail == 0 {
		pb.key = binary.AppendUvarint(pb.key[:0], uint64(n))
		for _, id := range ids {
			pb.key = binary.AppendVarint(pb.key, int64(id))
		}
		if p, ok := pb.cache[string(pb.key)]; ok {
			return p, nil
		}
	}

	pb.parts = pb.parts[:0]
	exact, total := pb.al.exact, 0
	for i, id := range ids {
		size := bs
		if i == len(ids)-1 {
			size = final
		}
		blk := pb.blocks[id]
		if blk == nil {
			blk = pb.newBlock(size)
			pb.blocks[id] = blk
		}
		text, ok := pb.blockText(blk, size)
		exact = exact && ok
		pb.parts = append(pb.parts, text)
		total += len(text)
	}
	if tail > 0 {
		p, ok := pb.al.sample(pb.rng, tail)
		var text string
		if ok && pb.al.exact {
			text = pb.al.window(p, tail)
		} else {
			text, exact = pb.exactWindow(p, tail), false
		}
		pb.parts = append(pb.parts, text)
		total += len(text)
	}
	var sb strings.Builder
	sb.Grow(total)
	for _, s := range pb.parts {
		sb.WriteString(s)
	}
	prompt := sb.String()
	if !exact {
		prompt = pb.repair(prompt, n)
	}
	if tail == 0 {
		pb.cache[string(pb.key)] = prompt
	}
	return prompt, nil
}

// plain returns a fresh prompt of n tokens (trace lines without hash_ids).
func (pb *prompts) plain(n int) string {
	p, ok := pb.al.sample(pb.rng, n)
	if ok && pb.al.exact {
		return pb.al.window(p, n)
	}
	return pb.exactWindow(p, n)
}

// newBlock places a new hash id's window. A block first seen as a final
// block of size < blockSize also gets a safe cut at that size.
func (pb *prompts) newBlock(size int) *block {
	var also []int
	if size < pb.blockSize {
		also = []int{size}
	}
	p, ok := pb.al.sample(pb.rng, pb.blockSize, also...)
	if !ok && len(pb.al.tokens) < pb.blockSize {
		p = pb.rng.IntN(len(pb.al.tokens)) // longer than the corpus: wraps
	}
	return &block{start: p, aligned: ok}
}

// blockText returns the first size tokens of blk as text, and whether that
// text is known to be exact and safe to concatenate.
func (pb *prompts) blockText(blk *block, size int) (string, bool) {
	fast := blk.aligned && pb.al.exact && pb.al.boundary[blk.start+size]
	if size == pb.blockSize {
		if !blk.hasFull {
			if fast {
				blk.full = pb.al.window(blk.start, size)
			} else {
				blk.full = pb.exactWindow(blk.start, size)
			}
			blk.hasFull = true
		}
		return blk.full, fast
	}
	if fast {
		return pb.al.window(blk.start, size), true
	}
	return pb.exactWindow(blk.start, size), false
}

// exactWindow is the slow path: decode, re-encode and correct the end.
func (pb *prompts) exactWindow(start, n int) string {
	text, err := synthetic.ExactLengthPrompt(pb.tok, pb.al.tokens, start, n)
	if err != nil && pb.warn != nil {
		pb.warn(err.Error())
	}
	return text
}

// repair makes a prompt whose parts were not all on the fast path encode to
// exactly n tokens, changing only its end so shared block prefixes stay
// identical.
func (pb *prompts) repair(prompt string, n int) string {
	if pb.tok.Count(prompt) == n {
		return prompt
	}
	fixed, err := synthetic.FitLength(pb.tok, prompt, n, pb.al.tokens, pb.rng.IntN(len(pb.al.tokens)))
	if err != nil && pb.warn != nil {
		pb.warn(err.Error())
	}
	return fixed
}
