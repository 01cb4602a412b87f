package hfhub

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolveLocalPaths(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "my-vocab.bin") // any name is accepted
	mustWrite(t, file, validTokenizer)
	withTok := filepath.Join(dir, "model-dir")
	mustWrite(t, filepath.Join(withTok, TokenizerFile), validTokenizer)
	empty := filepath.Join(dir, "empty-dir")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	// The endpoint is unusable, so a hub lookup would fail loudly.
	opts := Options{Endpoint: "http://127.0.0.1:1", CacheDir: t.TempDir(), Offline: true}

	tests := []struct {
		name, want string
	}{
		{file, file},
		{withTok, filepath.Join(withTok, TokenizerFile)},
		{withTok + "/", filepath.Join(withTok, TokenizerFile)},
	}
	for _, tt := range tests {
		got, err := Resolve(context.Background(), tt.name, opts)
		if err != nil || got != tt.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}

	_, err := Resolve(context.Background(), empty, opts)
	if !errors.Is(err, ErrNotExist) || !strings.Contains(err.Error(), "tokenizer directory "+empty+" has no tokenizer.json") {
		t.Errorf("directory without tokenizer.json: %v", err)
	}
}

func TestResolveRelativeLocalBeatsHub(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	mustWrite(t, filepath.Join(dir, "tok.json"), validTokenizer)
	// A directory whose name is also a valid repo id: local wins, as in transformers.
	mustWrite(t, filepath.Join(dir, "gpt2", TokenizerFile), validTokenizer)
	opts := Options{Offline: true, CacheDir: t.TempDir()}
	for name, want := range map[string]string{
		"tok.json":   filepath.Join(dir, "tok.json"),
		"./tok.json": filepath.Join(dir, "tok.json"),
		"gpt2":       filepath.Join(dir, "gpt2", TokenizerFile),
	} {
		got, err := Resolve(context.Background(), name, opts)
		// t.TempDir may sit behind a symlink (macOS /var); compare resolved paths.
		if err != nil || evalPath(t, got) != evalPath(t, want) {
			t.Errorf("Resolve(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
}

func TestResolveMissingPathIsNotAHubLookup(t *testing.T) {
	hub := newHub(t, func(w http.ResponseWriter, r *http.Request) { w.Write(validTokenizer) })
	opts := Options{Endpoint: hub.URL(), CacheDir: t.TempDir()}
	for _, name := range []string{
		"./missing.json",
		"../missing-dir",
		"/nonexistent-dir-hfhub/tokenizer.json",
		"~/nonexistent-dir-hfhub/tokenizer.json",
		"missing.json",
		"org/tokenizer.JSON",
	} {
		_, err := Resolve(context.Background(), name, opts)
		want := "tokenizer file " + name + " does not exist"
		if !errors.Is(err, ErrNotExist) || err == nil || err.Error() != want {
			t.Errorf("Resolve(%q) = %v, want %q", name, err, want)
		}
	}
	if n := hub.hits.Load(); n != 0 {
		t.Errorf("hub got %d requests for local paths, want 0", n)
	}
}

func TestResolveRejectsBadNames(t *testing.T) {
	opts := Options{Offline: true, CacheDir: t.TempDir()}
	for _, name := range []string{"", "  ", "a/b/c", "bad name", "org--x", "org/.hidden"} {
		_, err := Resolve(context.Background(), name, opts)
		if !errors.Is(err, ErrInvalidName) {
			t.Errorf("Resolve(%q) = %v, want ErrInvalidName", name, err)
		}
	}
	_, err := Resolve(context.Background(), "gpt2", Options{Offline: true, CacheDir: t.TempDir(), Revision: "../../etc"})
	if !errors.Is(err, ErrInvalidName) || !strings.Contains(err.Error(), "--tokenizer-revision") {
		t.Errorf("bad revision: %v", err)
	}
}

func evalPath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return p
	}
	return r
}

func mustWrite(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
