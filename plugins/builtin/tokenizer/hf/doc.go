// Package hf is the "hf" tokenizer plugin: Hugging Face tokenizer.json files
// (the same Rust tokenizers library transformers' fast tokenizers use) through
// github.com/daulet/tokenizers, so ISL/OSL counts match AIPerf's
// AutoTokenizer for any model that ships a tokenizer.json.
//
// The binding needs cgo and the static Rust library libtokenizers.a, so the
// real implementation is behind the `hf` build tag (`make build` builds the
// library and sets the tag). Without the tag the package keeps the same API
// and Load returns ErrNotBuilt, so the pure-Go build keeps working.
package hf

import "errors"

// ErrNotBuilt is returned (wrapped) by Load in a binary built without the
// `hf` tag.
var ErrNotBuilt = errors.New("this aiperf was built without Hugging Face tokenizer support")
