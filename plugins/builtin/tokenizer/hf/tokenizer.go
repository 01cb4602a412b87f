//go:build hf

package hf

import (
	"runtime"
	"strings"
	"sync"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/daulet/tokenizers"
)

// Tokenizer is one loaded tokenizer.json. The Rust tokenizer is Sync (encode
// and decode take &self; its BPE cache has its own lock), so one Tokenizer
// serves every goroutine.
type Tokenizer struct {
	name string
	// mu guards rust against Close: methods hold it shared, so Close never
	// frees the Rust object under a running call.
	mu      sync.RWMutex
	rust    *tokenizers.Tokenizer
	vocab   uint32
	cleanup runtime.Cleanup
}

var _ sdk.Tokenizer = (*Tokenizer)(nil)

func newTokenizer(name string, rust *tokenizers.Tokenizer) *Tokenizer {
	t := &Tokenizer{name: name, rust: rust, vocab: rust.VocabSize()}
	// A tokenizer that is dropped without Close still frees its Rust memory.
	t.cleanup = runtime.AddCleanup(t, func(r *tokenizers.Tokenizer) { _ = r.Close() }, rust)
	return t
}

// Name implements sdk.Tokenizer: the source name it was loaded from.
func (t *Tokenizer) Name() string { return t.name }

// VocabSize is the vocabulary size including added tokens.
func (t *Tokenizer) VocabSize() int { return int(t.vocab) }

// Encode implements sdk.Tokenizer (add_special_tokens=False). Special-token
// text such as "<|im_end|>" inside the input is still recognised as that
// token, as transformers does by default.
func (t *Tokenizer) Encode(text string) []int {
	var out []int
	t.encode(text, func(ids []uint32) {
		if out == nil {
			out = make([]int, 0, len(ids))
		}
		for _, id := range ids {
			out = append(out, int(id))
		}
	})
	if out == nil {
		out = []int{}
	}
	return out
}

// Count implements sdk.Tokenizer.
func (t *Tokenizer) Count(text string) int {
	n := 0
	t.encode(text, func(ids []uint32) { n += len(ids) })
	return n
}

// encode hands the ids of text to emit, one call per NUL-free segment. The
// text crosses into Rust as a C string, which would silently end at the first
// NUL byte; encoding the segments around NULs keeps the rest of the text
// (the NUL bytes themselves contribute no tokens).
func (t *Tokenizer) encode(text string, emit func([]uint32)) {
	if text == "" {
		return
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.rust == nil {
		return
	}
	for text != "" {
		seg := text
		if i := strings.IndexByte(text, 0); i >= 0 {
			seg, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		if seg == "" {
			continue
		}
		// No Return* options: only ids cross the boundary, not token strings.
		if ids := t.rust.EncodeWithOptions(seg, false).IDs; len(ids) > 0 {
			emit(ids)
		}
	}
}

// Decode implements sdk.Tokenizer (skip_special_tokens=False). Ids outside
// the vocabulary are skipped, as the Rust decoder does for unknown ids.
func (t *Tokenizer) Decode(ids []int) string {
	if len(ids) == 0 {
		return ""
	}
	u := make([]uint32, 0, len(ids))
	for _, id := range ids {
		if id >= 0 && uint64(id) < uint64(t.vocab) {
			u = append(u, uint32(id))
		}
	}
	if len(u) == 0 {
		return ""
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.rust == nil {
		return ""
	}
	return t.rust.Decode(u, false)
}

// Close frees the Rust tokenizer now rather than at garbage collection.
// Afterwards Encode and Decode return nothing and Count returns 0.
func (t *Tokenizer) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rust == nil {
		return nil
	}
	t.cleanup.Stop()
	err := t.rust.Close()
	t.rust = nil
	return err
}
