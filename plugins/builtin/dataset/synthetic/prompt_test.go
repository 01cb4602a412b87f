package synthetic

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
)

func TestExactLengthPromptUnderBuiltinTokenizer(t *testing.T) {
	tok := tiktoken.New()
	tokens, err := CorpusTokens(tok)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 7, 100, 550, 3000} {
		starts := []int{0, len(tokens) - 1, len(tokens) - n/2 - 1}
		for range 25 {
			starts = append(starts, r.IntN(len(tokens)))
		}
		for _, start := range starts {
			start = max(0, start)
			text, err := ExactLengthPrompt(tok, tokens, start, n)
			if err != nil {
				t.Fatalf("n=%d start=%d: %v", n, start, err)
			}
			if got := len(tok.Encode(text)); got != n {
				t.Fatalf("n=%d start=%d: text re-encodes to %d tokens", n, start, got)
			}
		}
	}
}

func TestExactLengthPromptLongerThanCorpusWraps(t *testing.T) {
	tok := tiktoken.New()
	src := tok.Encode("Shall I compare thee to a summer's day?")
	text, err := ExactLengthPrompt(tok, src, 3, 100)
	if err != nil {
		t.Fatal(err)
	}
	if got := tok.Count(text); got != 100 {
		t.Fatalf("got %d tokens, want 100", got)
	}
	if !strings.Contains(text, "summer's day?Shall I compare") {
		t.Errorf("text should wrap around the source: %q", text)
	}
}

func TestExactLengthPromptBadInput(t *testing.T) {
	tok := tiktoken.New()
	src := []int{1, 2, 3}
	cases := []struct {
		name     string
		tok      sdk.Tokenizer
		tokens   []int
		start, n int
		want     string
	}{
		{"nil tokenizer", nil, src, 0, 1, "nil tokenizer"},
		{"empty source", tok, nil, 0, 1, "empty token source"},
		{"zero length", tok, src, 0, 0, "length 0"},
		{"negative start", tok, src, -1, 1, "start -1"},
		{"start past end", tok, src, 3, 1, "start 3"},
	}
	for _, c := range cases {
		_, err := ExactLengthPrompt(c.tok, c.tokens, c.start, c.n)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", c.name, err, c.want)
		}
	}
}

// stubbornTokenizer always encodes to one more token than asked for, so no
// correction can succeed: exactness failure must be reported, not hidden.
type stubbornTokenizer struct{}

func (stubbornTokenizer) Name() string            { return "stubborn" }
func (stubbornTokenizer) Encode(s string) []int   { return make([]int, len(s)+1) }
func (stubbornTokenizer) Decode(ids []int) string { return strings.Repeat("x", len(ids)) }
func (stubbornTokenizer) Count(s string) int      { return len(s) + 1 }

func TestExactLengthPromptReportsFailure(t *testing.T) {
	text, err := ExactLengthPrompt(stubbornTokenizer{}, []int{1, 2, 3, 4}, 0, 3)
	if !errors.Is(err, ErrInexact) {
		t.Fatalf("err = %v, want ErrInexact", err)
	}
	if text == "" || !strings.Contains(err.Error(), "want 3") {
		t.Errorf("want the closest text and a message with the target: %q, %v", text, err)
	}
}
