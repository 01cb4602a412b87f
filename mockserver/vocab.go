package mockserver

import (
	_ "embed"
	"fmt"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

//go:embed words.txt
var wordList string

// vocabulary holds the output words, each pre-rendered as " word" so the hot
// path copies bytes and never escapes or allocates.
type vocabulary struct {
	tokens [][]byte
	// ids maps a pre-rendered word to its token id, for APIs that report
	// ids (TGI streams).
	ids map[string]int
}

// selfCheckTokens is the length of the sample walk used to verify, at startup,
// that concatenated words re-encode to exactly one token each.
const selfCheckTokens = 512

// buildVocabulary keeps the words that encode to exactly one token as " word"
// under tok. Lowercase ASCII letters only: with a leading space each word is
// its own pre-token under tiktoken's split regex, so a concatenation of N
// words re-encodes to exactly N tokens.
func buildVocabulary(tok sdk.Tokenizer) (*vocabulary, error) {
	seen := make(map[string]bool)
	v := &vocabulary{ids: make(map[string]int)}
	for _, line := range strings.Split(wordList, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for _, w := range strings.Fields(line) {
			if seen[w] || !isLowerASCII(w) {
				continue
			}
			seen[w] = true
			piece := " " + w
			if tok.Count(piece) != 1 {
				continue
			}
			v.tokens = append(v.tokens, []byte(piece))
			if ids := tok.Encode(piece); len(ids) == 1 {
				v.ids[piece] = ids[0]
			}
		}
	}
	if len(v.tokens) < 2 {
		return nil, fmt.Errorf("mockserver: tokenizer %q encodes fewer than 2 of the built-in words as one token; cannot build an output vocabulary", tok.Name())
	}
	// A tokenizer that merges across word boundaries would break the exact
	// count guarantee; refuse it instead of reporting wrong usage.
	var sb strings.Builder
	w := newWalk(0x5eed, 0)
	for range selfCheckTokens {
		sb.Write(v.word(w.next()))
	}
	if got := tok.Count(sb.String()); got != selfCheckTokens {
		return nil, fmt.Errorf("mockserver: tokenizer %q re-encodes %d one-token words as %d tokens; exact output counts are impossible with it", tok.Name(), selfCheckTokens, got)
	}
	return v, nil
}

func isLowerASCII(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return w != ""
}

// tokenID returns the id of a pre-rendered word (-1 if it is not one).
func (v *vocabulary) tokenID(word []byte) int {
	if id, ok := v.ids[string(word)]; ok {
		return id
	}
	return -1
}

// word returns the pre-rendered " word" for a walk value.
func (v *vocabulary) word(x uint64) []byte {
	return v.tokens[x%uint64(len(v.tokens))]
}

// walk is a deterministic hash-based sequence: value i is splitmix64 of
// seed + i·γ, so any position can be produced without state beyond a counter.
type walk struct {
	state uint64
}

const golden = 0x9e3779b97f4a7c15

func newWalk(seed, salt uint64) walk {
	return walk{state: mix64(seed ^ salt)}
}

func (w *walk) next() uint64 {
	w.state += golden
	return mix64(w.state)
}

// mix64 is the splitmix64 finalizer.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
