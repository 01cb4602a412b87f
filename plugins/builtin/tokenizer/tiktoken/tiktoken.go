// Package tiktoken is the "builtin" tokenizer: OpenAI's o200k_base BPE in pure
// Go with its vocabulary embedded, so it needs no network and no cgo.
package tiktoken

import (
	"context"
	"sync"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/tiktoken-go/tokenizer"
)

// Name is the name the tokenizer reports.
const Name = "builtin"

// Tokenizer wraps the o200k_base codec.
type Tokenizer struct {
	codec tokenizer.Codec
}

var _ sdk.Tokenizer = (*Tokenizer)(nil)

var (
	shared     *Tokenizer
	sharedOnce sync.Once
)

// New returns the process-wide o200k_base tokenizer. The vocabulary is large,
// so it is built once and shared; the codec is safe for concurrent use.
func New() *Tokenizer {
	sharedOnce.Do(func() {
		codec, err := tokenizer.Get(tokenizer.O200kBase)
		if err != nil {
			// O200kBase is compiled into the library; failure is a build defect.
			panic("tiktoken: o200k_base unavailable: " + err.Error())
		}
		shared = &Tokenizer{codec: codec}
	})
	return shared
}

// Name implements sdk.Tokenizer.
func (t *Tokenizer) Name() string { return Name }

// Encode implements sdk.Tokenizer. Special-token text is encoded as ordinary
// text, matching add_special_tokens=False.
func (t *Tokenizer) Encode(text string) []int {
	ids, _, _ := t.codec.Encode(text)
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = int(id)
	}
	return out
}

// Decode implements sdk.Tokenizer.
func (t *Tokenizer) Decode(ids []int) string {
	u := make([]uint, len(ids))
	for i, id := range ids {
		u[i] = uint(id)
	}
	s, _ := t.codec.Decode(u)
	return s
}

// Count implements sdk.Tokenizer.
func (t *Tokenizer) Count(text string) int {
	n, _ := t.codec.Count(text)
	return n
}

var _ sdk.TokenizerLoader = (*Tokenizer)(nil)

// Load implements sdk.TokenizerLoader, the tokenizer category's interface:
// the vocabulary is embedded, so every source gets the same tokenizer.
func (t *Tokenizer) Load(context.Context, sdk.TokenizerSource) (sdk.Tokenizer, error) { return t, nil }
