package mooncaketrace

import (
	"math/rand/v2"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/synthetic"
)

// alignment is the corpus token stream plus where pre-token boundaries fall
// in it, for one tokenizer.
//
// Why: a trace prompt is the concatenation of cached block texts, and
// re-encoding it must give exactly input_length tokens. Re-encoding every
// prompt would be far too slow for large traces, so blocks are cut where
// concatenation cannot merge tokens: each block starts with a token that
// begins with one space followed by a non-space, after a token that does not
// end in whitespace, and ends right before such a token. For regex
// pre-tokenizing BPE tokenizers (tiktoken, GPT-2/Llama-3 style tokenizer.json)
// that is always a pre-token boundary, so a window's text re-encodes to the
// window itself and concatenated windows to the sum of their lengths. A
// self-check at build time verifies the property on sample windows; where it
// fails (an unusual tokenizer), exact is false and every prompt is verified
// and repaired instead.
type alignment struct {
	tokens []int
	// text is the whole corpus decoded and off[p] the byte offset of
	// tokens[p] in it (off[len] = len(text)), so a window's text is a
	// substring: no decoding and no copy per block.
	text string
	off  []int
	// boundary[p] reports a safe cut before tokens[p]; boundary[len] is true
	// (the end of the corpus), boundary[0] is false (nothing precedes it).
	boundary []bool
	exact    bool
	err      error
}

// window returns the text of tokens[p : p+n] (no wrap-around).
func (al *alignment) window(p, n int) string { return al.text[al.off[p]:al.off[p+n]] }

var (
	alignMu    sync.Mutex
	alignCache = map[string]*alignEntry{}
)

type alignEntry struct {
	once sync.Once
	al   *alignment
}

// alignmentFor returns the alignment for tok, computed once per tokenizer
// name for the life of the process.
func alignmentFor(tok sdk.Tokenizer) (*alignment, error) {
	alignMu.Lock()
	e, ok := alignCache[tok.Name()]
	if !ok {
		e = &alignEntry{}
		alignCache[tok.Name()] = e
	}
	alignMu.Unlock()
	e.once.Do(func() { e.al = buildAlignment(tok) })
	return e.al, e.al.err
}

func buildAlignment(tok sdk.Tokenizer) *alignment {
	tokens, err := synthetic.CorpusTokens(tok)
	if err != nil {
		return &alignment{err: err}
	}
	al := &alignment{
		tokens:   tokens,
		text:     tok.Decode(tokens),
		off:      make([]int, len(tokens)+1),
		boundary: make([]bool, len(tokens)+1),
	}
	al.boundary[len(tokens)] = true
	// Decoding each token after its predecessor gives its text in context
	// (tokenizers that mark word starts, like SentencePiece's "▁", only
	// render the space after another token).
	pair := make([]int, 2)
	prev := tok.Decode(tokens[:1])
	sliceable := strings.HasPrefix(al.text, prev)
	at := len(prev)
	for p := 1; p < len(tokens); p++ {
		pair[0], pair[1] = tokens[p-1], tokens[p]
		cur, ok := strings.CutPrefix(tok.Decode(pair), prev)
		if !ok { // a character split across tokens: no clean cut here
			cur = tok.Decode(tokens[p : p+1])
		}
		al.off[p] = at
		sliceable = sliceable && strings.HasPrefix(al.text[at:], cur)
		at += len(cur)
		al.boundary[p] = ok && startsWord(cur) && !endsSpace(prev)
		prev = cur
	}
	al.off[len(tokens)] = len(al.text)
	// Substrings stand for decoded windows only if the pieces tile the text.
	al.exact = sliceable && at == len(al.text) && al.selfCheck(tok)
	return al
}

// startsWord reports text that begins with one space and then a non-space.
func startsWord(s string) bool {
	if len(s) < 2 || s[0] != ' ' {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[1:])
	return !unicode.IsSpace(r)
}

func endsSpace(s string) bool {
	if s == "" {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsSpace(r)
}

// selfCheck verifies on fixed sample windows that aligned windows re-encode
// to their own length, alone and concatenated.
func (al *alignment) selfCheck(tok sdk.Tokenizer) bool {
	r := rand.New(rand.NewPCG(1, 2))
	var prevText string
	prevLen := 0
	for i, n := range []int{1, 2, 3, 5, 8, 13, 21, 64, 128, 300, 512, 1, 7, 33, 90, 257} {
		p, ok := al.sample(r, n)
		if !ok {
			return false
		}
		text := al.window(p, n)
		if text != tok.Decode(al.tokens[p:p+n]) || tok.Count(text) != n {
			return false
		}
		if i > 0 && tok.Count(prevText+text) != prevLen+n {
			return false
		}
		prevText, prevLen = text, n
	}
	return true
}

// maxScan bounds the search for an aligned start. About half the corpus
// positions qualify with the builtin tokenizer, so a few steps suffice; the
// bound keeps a tokenizer without such positions from costing O(corpus) per
// block.
const maxScan = 4096

// sample picks a start p for a window of n tokens with safe cuts at p and
// at p+m for every m in also (sizes the block may later be cut to). It draws
// a uniform position, then takes the first start from there (wrapping) that
// fits; false (with the drawn position) when none is found.
func (al *alignment) sample(r *rand.Rand, n int, also ...int) (int, bool) {
	span := len(al.tokens) - n + 1
	if span < 1 {
		return 0, false
	}
	p0 := r.IntN(span)
	for k := range min(span, maxScan) {
		p := p0 + k
		if p >= span {
			p -= span
		}
		if al.fits(p, n, also) {
			return p, true
		}
	}
	return p0, false
}

func (al *alignment) fits(p, n int, also []int) bool {
	if !al.boundary[p] || !al.boundary[p+n] {
		return false
	}
	for _, m := range also {
		if m > n || !al.boundary[p+m] {
			return false
		}
	}
	return true
}
