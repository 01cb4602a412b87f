package mockserver

import (
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
)

func TestVocabularyWordsAreSingleTokens(t *testing.T) {
	tok := tiktoken.New()
	v, err := buildVocabulary(tok)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.tokens) < 200 {
		t.Fatalf("vocabulary has %d words, want at least 200 for varied output", len(v.tokens))
	}
	for _, w := range v.tokens {
		if w[0] != ' ' || !isLowerASCII(string(w[1:])) {
			t.Fatalf("word %q is not a space followed by lowercase letters", w)
		}
		if n := tok.Count(string(w)); n != 1 {
			t.Fatalf("word %q encodes to %d tokens, want 1", w, n)
		}
	}
}

// The client re-tokenizes the concatenated output; it must count exactly the
// tokens the server emitted, for any length and any prompt seed.
func TestConcatenatedOutputReencodesToEmittedCount(t *testing.T) {
	tok := tiktoken.New()
	v, err := buildVocabulary(tok)
	if err != nil {
		t.Fatal(err)
	}
	lengths := []int{1, 2, 3, 7, 16, 31, 64, 100, 128, 250, 500, 1000, 2048, 4096}
	seeds := []uint64{0, 1, 42, promptSeed("hello world"), promptSeed(strings.Repeat("x", 999))}
	for _, seed := range seeds {
		for _, salt := range []uint64{saltContent, saltReasoning} {
			for _, n := range lengths {
				text := string(appendWords(nil, v, seed, salt, n))
				if got := tok.Count(text); got != n {
					t.Fatalf("seed %d salt %x: %d words re-encode to %d tokens", seed, salt, n, got)
				}
			}
		}
	}
}

// byteTokenizer counts bytes: no word is one token, so no vocabulary.
type byteTokenizer struct{}

func (byteTokenizer) Name() string             { return "bytes" }
func (byteTokenizer) Encode(text string) []int { return make([]int, len(text)) }
func (byteTokenizer) Decode(ids []int) string  { return strings.Repeat("?", len(ids)) }
func (byteTokenizer) Count(text string) int    { return len(text) }

// mergingTokenizer claims each " word" is one token but counts a whole text
// as one token, like a tokenizer merging across words.
type mergingTokenizer struct{ byteTokenizer }

func (mergingTokenizer) Count(string) int { return 1 }

func TestBuildVocabularyRejectsUnusableTokenizers(t *testing.T) {
	cases := []struct {
		name    string
		tok     sdk.Tokenizer
		wantErr string
	}{
		{"no single-token words", byteTokenizer{}, "fewer than 2"},
		{"merges across words", mergingTokenizer{}, "re-encodes 512"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := buildVocabulary(tc.tok)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.wantErr)
			}
		})
	}
}

func TestWalkIsDeterministicAndVaried(t *testing.T) {
	v, err := buildVocabulary(tiktoken.New())
	if err != nil {
		t.Fatal(err)
	}
	a := string(appendWords(nil, v, 7, saltContent, 200))
	b := string(appendWords(nil, v, 7, saltContent, 200))
	c := string(appendWords(nil, v, 8, saltContent, 200))
	if a != b {
		t.Fatal("same seed produced different text")
	}
	if a == c {
		t.Fatal("different seeds produced identical text")
	}
	distinct := map[string]bool{}
	for _, w := range strings.Fields(a) {
		distinct[w] = true
	}
	if len(distinct) < 50 {
		t.Fatalf("200 words use only %d distinct words", len(distinct))
	}
}

var _ sdk.Tokenizer = byteTokenizer{}
