package tiktoken

import (
	"strings"
	"testing"
)

func TestKnownEncodings(t *testing.T) {
	tok := New()
	cases := []struct {
		text string
		n    int
	}{
		{"", 0},
		{"hello world", 2},
		{"Hello, world!", 4},
	}
	for _, c := range cases {
		if got := tok.Count(c.text); got != c.n {
			t.Errorf("Count(%q) = %d, want %d", c.text, got, c.n)
		}
		ids := tok.Encode(c.text)
		if len(ids) != c.n {
			t.Errorf("len(Encode(%q)) = %d, want %d", c.text, len(ids), c.n)
		}
		if back := tok.Decode(ids); back != c.text {
			t.Errorf("Decode(Encode(%q)) = %q", c.text, back)
		}
	}
	// "hello world" in o200k_base is [24912, 2375].
	ids := tok.Encode("hello world")
	if ids[0] != 24912 || ids[1] != 2375 {
		t.Errorf("Encode(hello world) = %v, want [24912 2375]", ids)
	}
}

func TestSpecialTokenTextIsPlainText(t *testing.T) {
	if n := New().Count("<|endoftext|>"); n <= 1 {
		t.Errorf("special token text should encode as plain text (several tokens), got %d", n)
	}
}

// BenchmarkCount measures counting throughput on English prose, the cost
// paid once per record for OSL (bytes/s is reported via SetBytes).
func BenchmarkCount(b *testing.B) {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog, and the sonnet sings of summer's lease. ", 24)
	tok := New()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if tok.Count(text) == 0 {
			b.Fatal("no tokens")
		}
	}
}
