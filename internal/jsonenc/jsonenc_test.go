package jsonenc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// stdJSON is what encoding/json writes without HTML escaping.
func stdJSON(t *testing.T, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimRight(buf.String(), "\n")
}

var stringCases = []string{
	"", "plain", `quote " and \ backslash`, "tab\tnl\ncr\r", "\b\f\x00\x01\x1f\x7f",
	"<html> & </html>", "naïve café 日本語 🎭", "bad utf8 \xff\xfe end", "line\u2028sep\u2029para",
	"truncated \xe6\x97", strings.Repeat("From fairest creatures ", 50),
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range stringCases {
		got := string(AppendString(nil, s))
		if want := stdJSON(t, s); got != want {
			t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
		}
	}
}

func TestAppendStringLiterals(t *testing.T) {
	tests := []struct{ in, wantLiteral string }{
		{"plain", `"plain"`},
		{`q"b\s`, `"q\"b\\s"`},
		{"a\nb\tc\r\x01", `"a\nb\tc\r\u0001"`},
		{"\b\f", `"\b\f"`},
		{"<html>&", `"<html>&"`},
		{"héllo ✓", `"héllo ✓"`},
		{"bad\xffutf8", `"bad\ufffdutf8"`},
		{"sep\u2028", `"sep\u2028"`},
	}
	for _, tc := range tests {
		got := string(AppendString(nil, tc.in))
		if got != tc.wantLiteral {
			t.Errorf("AppendString(%q) = %s, want %s", tc.in, got, tc.wantLiteral)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Errorf("%s does not parse: %v", got, err)
		}
	}
}

func TestAppendStringAppends(t *testing.T) {
	dst := []byte("prefix:")
	if got := string(AppendString(dst, "x")); got != `prefix:"x"` {
		t.Errorf("got %s", got)
	}
}
