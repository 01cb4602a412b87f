// Package corpus embeds the public-domain English text that synthetic prompts
// are cut from (Shakespeare's Sonnets and The Tempest; see README.md for the
// source and licence). Embedding it keeps the binary self-contained.
package corpus

import _ "embed"

//go:embed shakespeare.txt
var text string

// Name identifies the corpus, as AIPerf's default "sonnet" corpus.
const Name = "sonnet"

// Text returns the whole corpus.
func Text() string { return text }
