//go:build hf

package hf

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/internal/hfhub"
)

// wordLevelJSON is a minimal valid tokenizer.json: whitespace split, a
// three-word vocabulary, unknown words mapped to [UNK].
const wordLevelJSON = `{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],
"normalizer":null,"pre_tokenizer":{"type":"Whitespace"},"post_processor":null,"decoder":null,
"model":{"type":"WordLevel","vocab":{"hello":0,"world":1,"[UNK]":2},"unk_token":"[UNK]"}}`

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// offlineLoader sees an empty HF environment except an isolated cache, so a
// test never reads the user's token or touches the network.
func offlineLoader(t *testing.T) *Loader {
	home := t.TempDir()
	env := map[string]string{"HF_HOME": home, "HF_HUB_OFFLINE": "1", "HOME": home}
	return &Loader{getenv: func(k string) string { return env[k] }}
}

func TestLoadWordLevelFileAndDirectory(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "tokenizer.json", wordLevelJSON)
	for _, name := range []string{file, dir} {
		tok, err := offlineLoader(t).Load(context.Background(), sdk.TokenizerSource{Name: name})
		if err != nil {
			t.Fatalf("Load(%s): %v", name, err)
		}
		if tok.Name() != name {
			t.Errorf("Name() = %q, want %q", tok.Name(), name)
		}
		if got, want := tok.Encode("hello world mars"), []int{0, 1, 2}; !slices.Equal(got, want) {
			t.Errorf("Encode = %v, want %v", got, want)
		}
		if got := tok.Decode([]int{1, 0}); got != "world hello" {
			t.Errorf("Decode = %q, want %q", got, "world hello")
		}
	}
}

func TestLoadErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	emptyDir := filepath.Join(dir, "empty")
	if err := os.Mkdir(emptyDir, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		path string
		want []string
	}{
		{"malformed json", writeFile(t, dir, "bad.json", `{"model": {"type": "BPE",`), []string{"parse ", "bad.json", "want a Hugging Face tokenizer.json"}},
		{"empty file", writeFile(t, dir, "empty.json", ""), []string{"parse ", "empty.json", "file is empty"}},
		{"json without model", writeFile(t, dir, "config.json", `{"architectures":["Qwen3ForCausalLM"]}`), []string{"parse ", "config.json", `without a top-level "model" object`}},
		{"sentencepiece model", writeFile(t, dir, "tokenizer.model", "\x0a\x0b\x00\x01binary"), []string{"parse ", "tokenizer.model"}},
		// WordLevel without its unk token in the vocabulary fails to encode
		// unknown words: the load-time smoke test must catch that.
		{"unusable vocabulary", writeFile(t, dir, "nounk.json", strings.Replace(wordLevelJSON, `"[UNK]":2`, `"x":2`, 1)), []string{"check ", "nounk.json", "gave no tokens"}},
		{"missing file", filepath.Join(dir, "nope.json"), []string{"nope.json", "does not exist"}},
		{"directory without tokenizer.json", emptyDir, []string{emptyDir, "has no tokenizer.json"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok, err := offlineLoader(t).Load(context.Background(), sdk.TokenizerSource{Name: c.path})
			if err == nil {
				t.Fatalf("Load(%s) = %v, want an error", c.path, tok)
			}
			t.Log(err)
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestLoadOfflineHubMissIsClear(t *testing.T) {
	_, err := offlineLoader(t).Load(context.Background(), sdk.TokenizerSource{Name: "Qwen/Qwen3-0.6B"})
	if !errors.Is(err, hfhub.ErrNotCached) {
		t.Fatalf("Load offline = %v, want hfhub.ErrNotCached", err)
	}
}

// A hub id goes through hfhub to a real HTTP server on loopback, with the
// requested revision in the URL; the second load is served from the cache.
func TestLoadFromHubRevision(t *testing.T) {
	body, err := os.ReadFile(qwen3Path(t))
	if err != nil {
		t.Fatal(err)
	}
	var requests atomic.Int32
	var lastPath atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		lastPath.Store(r.URL.Path)
		if r.URL.Path != "/Qwen/Qwen3-0.6B/resolve/v2.0/tokenizer.json" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("X-Repo-Commit", "0123456789abcdef0123456789abcdef01234567")
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	home := t.TempDir()
	env := map[string]string{"HF_HOME": home, "HOME": home, "HF_ENDPOINT": srv.URL}
	l := &Loader{getenv: func(k string) string { return env[k] }}

	src := sdk.TokenizerSource{Name: "Qwen/Qwen3-0.6B", Revision: "v2.0"}
	for i := range 2 {
		tok, err := l.Load(context.Background(), src)
		if err != nil {
			t.Fatalf("Load #%d: %v (last request %v)", i+1, err, lastPath.Load())
		}
		if tok.Name() != src.Name {
			t.Errorf("Name() = %q, want %q", tok.Name(), src.Name)
		}
		if got, want := tok.Encode("Hello, world!"), []int{9707, 11, 1879, 0}; !slices.Equal(got, want) {
			t.Errorf("Encode = %v, want %v", got, want)
		}
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("hub saw %d requests, want 1 (second load from cache)", n)
	}
}

func TestZeroLoaderWorks(t *testing.T) {
	path := writeFile(t, t.TempDir(), "tokenizer.json", wordLevelJSON)
	tok, err := (&Loader{}).Load(context.Background(), sdk.TokenizerSource{Name: path})
	if err != nil {
		t.Fatal(err)
	}
	if n := tok.Count("hello hello world"); n != 3 {
		t.Errorf("Count = %d, want 3", n)
	}
}

func TestCloseFreesAndIsIdempotent(t *testing.T) {
	path := writeFile(t, t.TempDir(), "tokenizer.json", wordLevelJSON)
	st, err := offlineLoader(t).Load(context.Background(), sdk.TokenizerSource{Name: path})
	if err != nil {
		t.Fatal(err)
	}
	tok := st.(*Tokenizer)
	if n := tok.Count("hello world"); n != 2 {
		t.Fatalf("Count before Close = %d, want 2", n)
	}
	for i := range 2 {
		if err := tok.Close(); err != nil {
			t.Fatalf("Close #%d: %v", i+1, err)
		}
	}
	if n := tok.Count("hello world"); n != 0 {
		t.Errorf("Count after Close = %d, want 0", n)
	}
	if ids := tok.Encode("hello"); len(ids) != 0 {
		t.Errorf("Encode after Close = %v, want none", ids)
	}
	if s := tok.Decode([]int{0}); s != "" {
		t.Errorf("Decode after Close = %q, want empty", s)
	}
}

func TestLinkedLibraryIsTheExpectedRelease(t *testing.T) {
	if err := checkLibrary(); err != nil {
		t.Fatal(err)
	}
	if !Supported {
		t.Error("Supported is false in an hf build")
	}
}
