package synthetic

import (
	"errors"
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// exactTries is how many decode/re-encode corrections a prompt gets (AIPerf
// uses the same bound).
const exactTries = 10

// ErrInexact reports a prompt that did not re-encode to the requested length
// within the allowed corrections; the closest text is returned with it.
var ErrInexact = errors.New("prompt does not re-encode to the requested token count")

// ExactLengthPrompt returns text that tok encodes to exactly n tokens: the
// window of n tokens starting at tokens[start] (wrapping around the end),
// decoded, then re-encoded and trimmed or topped up with the tokens that
// follow the window until the count is exact. Decoding can merge or split
// tokens at the window's edges, which is why the first decode is not enough.
// On failure it returns the closest text and an error wrapping ErrInexact.
func ExactLengthPrompt(tok sdk.Tokenizer, tokens []int, start, n int) (string, error) {
	switch {
	case tok == nil:
		return "", errors.New("synthetic: exact-length prompt: nil tokenizer")
	case len(tokens) == 0:
		return "", errors.New("synthetic: exact-length prompt: empty token source")
	case n < 1:
		return "", fmt.Errorf("synthetic: exact-length prompt: length %d, want at least 1", n)
	case start < 0 || start >= len(tokens):
		return "", fmt.Errorf("synthetic: exact-length prompt: start %d outside [0, %d)", start, len(tokens))
	}
	return FitLength(tok, tok.Decode(window(tokens, start, n)), n, tokens, (start+n)%len(tokens))
}

// FitLength makes text encode to exactly n tokens under tok by changing only
// its end: re-encode, then trim to n tokens or append the tokens of source
// that follow position next (wrapping), up to exactTries times. Callers that
// build a prompt from parts use it to repair the tail while keeping the
// parts' shared prefix text intact. On failure it returns the closest text
// and an error wrapping ErrInexact.
func FitLength(tok sdk.Tokenizer, text string, n int, source []int, next int) (string, error) {
	switch {
	case tok == nil:
		return "", errors.New("synthetic: fit length: nil tokenizer")
	case len(source) == 0:
		return "", errors.New("synthetic: fit length: empty token source")
	case n < 1:
		return "", fmt.Errorf("synthetic: fit length: length %d, want at least 1", n)
	case next < 0 || next >= len(source):
		return "", fmt.Errorf("synthetic: fit length: next %d outside [0, %d)", next, len(source))
	}
	got := -1
	for range exactTries {
		ids := tok.Encode(text)
		got = len(ids)
		switch {
		case got == n:
			return text, nil
		case got > n:
			text = tok.Decode(ids[:n])
		default:
			missing := n - got
			text += tok.Decode(window(source, next, missing))
			next = (next + missing) % len(source)
		}
	}
	if got = tok.Count(text); got == n {
		return text, nil
	}
	return text, fmt.Errorf("synthetic: %w: got %d tokens, want %d (tokenizer %q)", ErrInexact, got, n, tok.Name())
}

// window returns n tokens starting at start, wrapping around as many times
// as needed.
func window(tokens []int, start, n int) []int {
	out := make([]int, 0, n)
	for len(out) < n {
		end := min(len(tokens), start+n-len(out))
		out = append(out, tokens[start:end]...)
		start = 0
	}
	return out
}
