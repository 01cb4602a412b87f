package mooncaketrace

import (
	"errors"
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// PromptBuilder builds the prompts of one trace file from input lengths and
// hash ids, for every hash-id trace loader (mooncake_trace, bailian_trace,
// burst_gpt_trace): the same hash id gives the same block text for the
// whole file, and every prompt re-encodes to exactly its input length
// under the run's tokenizer. The tokenizer is only needed (and the corpus
// alignment only built) on the first Prompt call, so traces of literal
// prompts load without one. Not safe for concurrent use; use one per Load.
type PromptBuilder struct {
	opts      sdk.DatasetOptions
	blockSize int
	warn      func(string)
	pb        *prompts
}

// NewPromptBuilder returns a builder with hash-id blocks of blockSize
// tokens (at least 1), drawing from opts.Tokenizer's corpus stream seeded
// by opts.RandomSeed. warn, when set, is told about each prompt that could
// not be made exact.
func NewPromptBuilder(opts sdk.DatasetOptions, blockSize int, warn func(string)) *PromptBuilder {
	return &PromptBuilder{opts: opts, blockSize: blockSize, warn: warn}
}

// Prompt returns a prompt of exactly n tokens (n ≥ 1) for the hash ids
// (see prompts.hashed for the layouts; none gives a fresh window). Errors
// name the field at fault (input_length, hash_ids); the caller adds the
// file and line.
func (b *PromptBuilder) Prompt(n int, ids []int) (string, error) {
	if n < 1 {
		return "", fmt.Errorf("input_length: %d, must be at least 1", n)
	}
	if b.pb == nil {
		if b.blockSize < 1 {
			return "", fmt.Errorf("block size %d, want at least 1", b.blockSize)
		}
		if b.opts.Tokenizer == nil {
			return "", errors.New("input_length: building prompts needs a tokenizer, none was given")
		}
		al, err := alignmentFor(b.opts.Tokenizer)
		if err != nil {
			return "", err
		}
		b.pb = newPrompts(b.opts.Tokenizer, al, b.blockSize, b.opts.RandomSeed, b.warn)
	}
	return b.pb.prompt(n, ids)
}
