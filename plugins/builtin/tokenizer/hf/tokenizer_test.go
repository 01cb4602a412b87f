//go:build hf

package hf

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Expected ids were produced independently of this package with the Python
// binding of the same Rust library (PyPI tokenizers 0.23.3) on the same file:
//
//	Tokenizer.from_file(".cache/testdata/qwen3/tokenizer.json").encode(text, add_special_tokens=False).ids
var qwen3Cases = []struct {
	name string
	text string
	ids  []int
}{
	{"empty", "", []int{}},
	{"ascii", "Hello, world!", []int{9707, 11, 1879, 0}},
	{"sentence", "The quick brown fox jumps over the lazy dog.", []int{785, 3974, 13876, 38835, 34208, 916, 279, 15678, 5562, 13}},
	{"cjk", "你好，世界！今天天气很好。", []int{108386, 3837, 99489, 6313, 100644, 104307, 101243, 1773}},
	{"emoji", "I ❤️ 🦀 and 👨‍👩‍👧", []int{40, 70470, 30543, 11162, 99, 222, 323, 61804, 101, 378, 235, 145233, 378, 235, 145665}},
	{"code", "func main() {\n\tfmt.Println(\"hi\")\n}\n", []int{2830, 1887, 368, 341, 11009, 12419, 445, 6023, 1138, 532}},
	// Special-token text is recognised as the token, as transformers does.
	{"chat markup", "<|im_start|>user\nhi<|im_end|>", []int{151644, 872, 198, 6023, 151645}},
	{"digits split", "12345 + 678 = 13023", []int{16, 17, 18, 19, 20, 488, 220, 21, 22, 23, 284, 220, 16, 18, 15, 17, 18}},
	{"whitespace runs", "a    b\n\n\nc", []int{64, 262, 293, 1406, 66}},
}

func TestQwen3KnownIDs(t *testing.T) {
	tok := qwen3(t)
	for _, c := range qwen3Cases {
		t.Run(c.name, func(t *testing.T) {
			got := tok.Encode(c.text)
			if !slices.Equal(got, c.ids) {
				t.Errorf("Encode(%q) = %v, want %v", c.text, got, c.ids)
			}
			if n := tok.Count(c.text); n != len(c.ids) {
				t.Errorf("Count(%q) = %d, want %d", c.text, n, len(c.ids))
			}
			if back := tok.Decode(c.ids); back != c.text {
				t.Errorf("Decode(%v) = %q, want %q", c.ids, back, c.text)
			}
		})
	}
}

func TestQwen3RoundTripAndCount(t *testing.T) {
	tok := qwen3(t)
	texts := map[string]string{
		"ascii prose": strings.Repeat("Shall I compare thee to a summer's day? ", 40),
		"cjk":         "日本語のテキストと한국어 텍스트와 中文文本。",
		"emoji":       "🚀🔥👍🏽 flags 🇯🇵🇺🇸 and ZWJ 🧑‍💻",
		"code":        "def f(x: int) -> dict[str, int]:\n    return {\"x\": x ** 2}  # square\n",
		"json":        `{"model":"Qwen/Qwen3-0.6B","messages":[{"role":"user","content":"hi"}],"stream":true}`,
		"mixed":       "tab\there, CRLF\r\nunicode é ß ∑ ≠ 🤖",
	}
	for name, text := range texts {
		t.Run(name, func(t *testing.T) {
			ids := tok.Encode(text)
			if len(ids) == 0 {
				t.Fatalf("Encode(%q) gave no ids", text)
			}
			if back := tok.Decode(ids); back != text {
				t.Errorf("Decode(Encode(s)) = %q, want %q", back, text)
			}
			if n := tok.Count(text); n != len(ids) {
				t.Errorf("Count = %d, len(Encode) = %d", n, len(ids))
			}
		})
	}
}

// specialIDs reads the ids of the special added tokens from tokenizer.json.
func specialIDs(t *testing.T, path string) map[int]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		AddedTokens []struct {
			ID      int    `json:"id"`
			Content string `json:"content"`
			Special bool   `json:"special"`
		} `json:"added_tokens"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	ids := map[int]string{}
	for _, a := range doc.AddedTokens {
		if a.Special {
			ids[a.ID] = a.Content
		}
	}
	return ids
}

func TestQwen3AddsNoSpecialTokens(t *testing.T) {
	tok := qwen3(t)
	special := specialIDs(t, qwen3Path(t))
	// Qwen3 marks <|endoftext|>, <|im_start|>, <|im_end|> and friends special.
	for _, id := range []int{151643, 151644, 151645} {
		if _, ok := special[id]; !ok {
			t.Fatalf("tokenizer.json lacks special id %d; wrong test file?", id)
		}
	}
	for _, text := range []string{"Hello, world!", "a", "你好", strings.Repeat("word ", 100)} {
		for i, id := range tok.Encode(text) {
			if name, ok := special[id]; ok {
				t.Errorf("Encode(%q)[%d] = %d (%s): a special token in plain text", text, i, id, name)
			}
		}
	}
}

func TestQwen3DecodeKeepsSpecialTokensAndSkipsUnknownIDs(t *testing.T) {
	tok := qwen3(t)
	cases := []struct {
		name string
		ids  []int
		want string
	}{
		{"special kept", []int{151644, 872, 198}, "<|im_start|>user\n"},
		{"unknown skipped", []int{-1, 9707, 1 << 40, 151669, 0}, "Hello!"},
		{"only unknown", []int{-5, 151669}, ""},
		{"nil", nil, ""},
	}
	for _, c := range cases {
		if got := tok.Decode(c.ids); got != c.want {
			t.Errorf("%s: Decode(%v) = %q, want %q", c.name, c.ids, got, c.want)
		}
	}
	if n := tok.VocabSize(); n != 151669 {
		t.Errorf("VocabSize = %d, want 151669", n)
	}
}

// The text crosses into Rust as a C string; a NUL must not cut it short.
// Invalid UTF-8 becomes U+FFFD on the Rust side, as Python's
// bytes.decode(errors="replace") would make it.
func TestQwen3AwkwardInput(t *testing.T) {
	tok := qwen3(t)
	cases := []struct {
		text string
		ids  []int
	}{
		{"Hello\x00, world!", []int{9707, 11, 1879, 0}},
		{"\x00\x00Hello, world!\x00", []int{9707, 11, 1879, 0}},
		{"\x00", []int{}},
		{"\xffHello", tok.Encode("\uFFFDHello")},
	}
	for _, c := range cases {
		if got := tok.Encode(c.text); !slices.Equal(got, c.ids) {
			t.Errorf("Encode(%q) = %v, want %v", c.text, got, c.ids)
		}
		if n := tok.Count(c.text); n != len(c.ids) {
			t.Errorf("Count(%q) = %d, want %d", c.text, n, len(c.ids))
		}
	}
}

// Run with -race: 8 goroutines share one tokenizer and must see exactly the
// single-goroutine results.
func TestQwen3ConcurrentUseMatchesSerial(t *testing.T) {
	tok := qwen3(t)
	texts := []string{
		"Hello, world!",
		"你好，世界！今天天气很好。",
		strings.Repeat("The quick brown fox jumps over the lazy dog. ", 50),
		"func main() {\n\tfmt.Println(\"hi\")\n}\n",
	}
	want := make([][]int, len(texts))
	for i, s := range texts {
		want[i] = tok.Encode(s)
	}
	const goroutines, rounds = 8, 40
	var wg sync.WaitGroup
	errs := make(chan string, goroutines)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				i := (g + r) % len(texts)
				ids := tok.Encode(texts[i])
				switch {
				case !slices.Equal(ids, want[i]):
					errs <- fmt.Sprintf("Encode differs for text %d", i)
					return
				case tok.Count(texts[i]) != len(want[i]):
					errs <- fmt.Sprintf("Count differs for text %d", i)
					return
				case tok.Decode(ids) != texts[i]:
					errs <- fmt.Sprintf("Decode differs for text %d", i)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
