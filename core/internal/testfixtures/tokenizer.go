package testfixtures

import (
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Words is a tokenizer with one token per whitespace-separated word, so
// counting pieces one by one differs from counting their concatenation.
type Words struct{}

var _ sdk.Tokenizer = Words{}

// Name names the tokenizer.
func (Words) Name() string { return "words" }

// Encode gives word i the id i.
func (w Words) Encode(text string) []int {
	ids := make([]int, w.Count(text))
	for i := range ids {
		ids[i] = i
	}
	return ids
}

// Decode cannot recover words from positions; it returns one "w" per id.
func (Words) Decode(ids []int) string { return strings.TrimSpace(strings.Repeat("w ", len(ids))) }

// Count counts words.
func (Words) Count(text string) int { return len(strings.Fields(text)) }
