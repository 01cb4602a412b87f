package tiktoken

import (
	"encoding/binary"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzEncode: dataset text of any bytes encodes; Count agrees with Encode,
// and valid UTF-8 decodes back unchanged. Text with DEL (0x7f) is left out
// of the round trip: tiktoken-go v0.10.0's pre-tokenizer drops the byte
// (Encode("\x7f") is empty, where o200k_base has token 221 for it).
func FuzzEncode(f *testing.F) {
	for _, s := range []string{"", "What is deep learning?", "<|endoftext|> <|im_start|>", "h\u00e9 \U0001f3ad\n\t  x", "\xff\xfe", "aaaaaaaaaaaaaaaaaaaaaaaa", "a\x7fb"} {
		f.Add(s)
	}
	tok := New()
	f.Fuzz(func(t *testing.T, text string) {
		ids := tok.Encode(text)
		if n := tok.Count(text); n != len(ids) {
			t.Fatalf("Count %d, Encode gives %d ids", n, len(ids))
		}
		if back := tok.Decode(ids); utf8.ValidString(text) && !strings.ContainsRune(text, 0x7f) && back != text {
			t.Fatalf("decoded %q, want %q", back, text)
		}
	})
}

// FuzzDecode: any ids (out of the vocabulary, negative) decode without a
// panic.
func FuzzDecode(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0})
	tok := New()
	f.Fuzz(func(t *testing.T, b []byte) {
		ids := make([]int, 0, len(b)/4)
		for ; len(b) >= 4; b = b[4:] {
			ids = append(ids, int(int32(binary.BigEndian.Uint32(b))))
		}
		tok.Decode(ids)
	})
}
