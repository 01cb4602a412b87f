package corpus

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTextIsTheVendoredShakespeare(t *testing.T) {
	got := Text()
	if n := len(got); n < 100_000 || n > 300_000 {
		t.Fatalf("corpus is %d bytes, want 100-300 KB", n)
	}
	if !utf8.ValidString(got) {
		t.Fatal("corpus is not valid UTF-8")
	}
	if strings.Contains(got, "\r") {
		t.Fatal("corpus has CR line endings")
	}
	for _, want := range []string{
		"From fairest creatures we desire increase,",     // Sonnet I
		"Love's fire heats water, water cools not love.", // Sonnet CLIV
		"THE TEMPEST",
		"We are such stuff",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("corpus lacks %q", want)
		}
	}
	if strings.Contains(strings.ToLower(got), "project gutenberg") {
		t.Error("corpus still carries Project Gutenberg boilerplate")
	}
}
