package openai

import (
	"bytes"
	"encoding/json"
	"slices"
	"unicode/utf8"
)

// Scanner reads a JSON document in one pass without building values, so the
// endpoints can pull the few fields of a streaming chunk with no per-event
// garbage. It is deliberately strict: on anything it does not expect (bad
// syntax, an unexpected type, an escaped key) it fails, and callers fall back
// to encoding/json, which then decides the result or the error.
type Scanner struct {
	b   []byte
	i   int
	bad bool
}

// NewScanner returns a scanner over data.
func NewScanner(data []byte) Scanner { return Scanner{b: data} }

// Failed reports whether the scanner met something it could not handle.
func (s *Scanner) Failed() bool { return s.bad }

// Fail marks the document as not handled by the fast path.
func (s *Scanner) Fail() {
	s.bad = true
	s.i = len(s.b)
}

// End checks that only whitespace follows the top-level value.
func (s *Scanner) End() bool {
	s.skipWS()
	if s.i != len(s.b) {
		s.Fail()
	}
	return !s.bad
}

func (s *Scanner) skipWS() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *Scanner) peek() byte {
	s.skipWS()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *Scanner) consume(c byte) bool {
	if s.peek() == c {
		s.i++
		return true
	}
	return false
}

// Object calls visit with each key of the next value, which must be an
// object; visit must consume the key's value (read it or Skip it). It fails
// where encoding/json could read the object differently from a caller that
// switches on exact keys: on a key with an upper-case or non-ASCII byte
// (encoding/json matches keys case-insensitively: "Content", or "ſ" for
// "s"), and on a repeated key (encoding/json merges or replaces the earlier
// value), or more than 16 keys, where it stops tracking them.
func (s *Scanner) Object(visit func(key []byte)) {
	s.object(visit, true)
}

func (s *Scanner) object(visit func(key []byte), strict bool) {
	if s.bad || !s.consume('{') {
		s.Fail()
		return
	}
	if s.consume('}') {
		return
	}
	var seen [16][]byte
	n := 0
	for {
		key, escaped := s.rawString()
		if s.bad || escaped || !s.consume(':') {
			s.Fail()
			return
		}
		if strict {
			if !foldFree(key) || n == len(seen) || slices.ContainsFunc(seen[:n], func(k []byte) bool { return bytes.Equal(k, key) }) {
				s.Fail()
				return
			}
			seen[n] = key
			n++
		}
		visit(key)
		if s.bad {
			return
		}
		if s.consume(',') {
			continue
		}
		if !s.consume('}') {
			s.Fail()
		}
		return
	}
}

// foldFree reports whether key has only bytes that no other byte sequence
// case-folds to: lower-case ASCII, digits and punctuation.
func foldFree(key []byte) bool {
	for _, c := range key {
		if c >= 0x80 || (c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// Array calls visit with the index of each element of the next value, which
// must be an array; visit must consume the element.
func (s *Scanner) Array(visit func(i int)) {
	if s.bad || !s.consume('[') {
		s.Fail()
		return
	}
	if s.consume(']') {
		return
	}
	for i := 0; ; i++ {
		visit(i)
		if s.bad {
			return
		}
		if s.consume(',') {
			continue
		}
		if !s.consume(']') {
			s.Fail()
		}
		return
	}
}

// Null consumes a null and reports whether there was one.
func (s *Scanner) Null() bool {
	if s.peek() == 'n' {
		return s.literal("null")
	}
	return false
}

// Peek returns the first byte of the next value (0 at the end).
func (s *Scanner) Peek() byte { return s.peek() }

// StringBytes reads a string without escapes and returns its raw bytes,
// which alias the input; an escaped string makes the scanner fail.
func (s *Scanner) StringBytes() []byte {
	raw, escaped := s.rawString()
	if escaped {
		s.Fail()
	}
	return raw
}

// String reads a string value; null reads as "". Escaped or non-UTF-8
// strings are decoded by encoding/json so the result is identical to it.
func (s *Scanner) String() string {
	if s.Null() {
		return ""
	}
	start := s.i
	raw, escaped := s.rawString()
	if s.bad {
		return ""
	}
	if !escaped && utf8.Valid(raw) {
		return string(raw)
	}
	var out string
	if err := json.Unmarshal(s.b[start:s.i], &out); err != nil {
		s.Fail()
	}
	return out
}

// NonEmptyString reads a string or null and reports whether it decodes to
// a non-empty string, without building it (first-token detection runs on
// the timed path). Every escape decodes to at least one byte, so a
// non-empty token is a non-empty string; an escaped token is still checked
// the way encoding/json would, so bad escapes make the scanner fail.
func (s *Scanner) NonEmptyString() bool {
	if s.Null() {
		return false
	}
	start := s.i
	raw, escaped := s.rawString()
	if s.bad {
		return false
	}
	if escaped && !json.Valid(s.b[start:s.i]) {
		s.Fail()
		return false
	}
	return len(raw) > 0
}

// IntPtr reads an integer; null reads as nil. Fractions, exponents and
// other types make the scanner fail.
func (s *Scanner) IntPtr() *int {
	if s.Null() {
		return nil
	}
	s.skipWS()
	neg := s.i < len(s.b) && s.b[s.i] == '-'
	if neg {
		s.i++
	}
	start, n := s.i, 0
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' && s.i-start < 18 {
		n = n*10 + int(s.b[s.i]-'0')
		s.i++
	}
	digits := s.i - start
	if digits == 0 || (digits > 1 && s.b[start] == '0') || (s.i < len(s.b) && isNumberByte(s.b[s.i])) {
		s.Fail()
		return nil
	}
	if neg {
		n = -n
	}
	return &n
}

// Skip consumes any value, checking its syntax.
func (s *Scanner) Skip() {
	switch c := s.peek(); {
	case c == '"':
		s.rawString()
	case c == '{':
		s.object(func([]byte) { s.Skip() }, false)
	case c == '[':
		s.Array(func(int) { s.Skip() })
	case c == 't':
		s.literal("true")
	case c == 'f':
		s.literal("false")
	case c == 'n':
		s.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		s.number()
	default:
		s.Fail()
	}
}

func (s *Scanner) literal(lit string) bool {
	if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
		s.i += len(lit)
		return true
	}
	s.Fail()
	return false
}

// rawString reads a string token and returns its contents (without quotes)
// and whether it contains escapes.
func (s *Scanner) rawString() (raw []byte, escaped bool) {
	if s.bad || !s.consume('"') {
		s.Fail()
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			raw = s.b[start:s.i]
			s.i++
			return raw, escaped
		case c == '\\':
			escaped = true
			if !validEscape(s.b[s.i+1:]) {
				s.Fail()
				return nil, false
			}
			s.i += 2
		case c < 0x20:
			s.Fail()
			return nil, false
		default:
			s.i++
		}
	}
	s.Fail()
	return nil, false
}

// validEscape reports whether b, what follows a backslash, starts with a
// JSON escape: one of "\\/bfnrt, or u and four hex digits (the hex digits
// are left for the string loop, which accepts them as plain bytes).
func validEscape(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	switch b[0] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return true
	case 'u':
		if len(b) < 5 {
			return false
		}
		for _, c := range b[1:5] {
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
		return true
	}
	return false
}

// number checks the JSON number grammar:
// -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
func (s *Scanner) number() {
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		s.Fail()
		return
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			s.Fail()
			return
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			s.Fail()
			return
		}
		i = j
	}
	if i < len(b) && isNumberByte(b[i]) {
		s.Fail()
		return
	}
	s.i = i
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

// ScanUsage reads a usage object (or null) with the same field synonyms as
// RawUsage; unknown keys are skipped.
func ScanUsage(s *Scanner) *RawUsage {
	if s.Null() {
		return nil
	}
	u := &RawUsage{}
	s.Object(func(key []byte) {
		switch string(key) {
		case "prompt_tokens":
			u.PromptTokens = s.IntPtr()
		case "input_tokens":
			u.InputTokens = s.IntPtr()
		case "completion_tokens":
			u.CompletionTokens = s.IntPtr()
		case "output_tokens":
			u.OutputTokens = s.IntPtr()
		case "total_tokens":
			u.TotalTokens = s.IntPtr()
		case "completion_tokens_details":
			u.CompletionTokensDetails = scanDetails(s)
		case "output_tokens_details":
			u.OutputTokensDetails = scanDetails(s)
		default:
			s.Skip()
		}
	})
	return u
}

func scanDetails(s *Scanner) *TokenDetails {
	if s.Null() {
		return nil
	}
	d := &TokenDetails{}
	s.Object(func(key []byte) {
		if string(key) == "reasoning_tokens" {
			d.ReasoningTokens = s.IntPtr()
			return
		}
		s.Skip()
	})
	return d
}
