package hfhub

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// pythonCache lays a repo out exactly as huggingface_hub does: the content in
// blobs/<etag>, a relative symlink from snapshots/<commit>/, refs/<branch>
// holding the commit without a newline.
func pythonCache(t *testing.T, cache, repoID, branch, commit string, content []byte) string {
	t.Helper()
	repoDir := filepath.Join(cache, repoFolderName(repoID))
	const etag = "5f1b3e4c9a0d7e2b8c6a4f1e0d9c8b7a6f5e4d3c2b1a09f8e7d6c5b4a3928170"
	mustWrite(t, filepath.Join(repoDir, "blobs", etag), content)
	mustWrite(t, filepath.Join(repoDir, "refs", branch), []byte(commit))
	snap := filepath.Join(repoDir, "snapshots", commit)
	if err := os.MkdirAll(snap, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(snap, TokenizerFile)
	if err := os.Symlink(filepath.Join("..", "..", "blobs", etag), link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	// Python also caches other files of the repo next to it.
	mustWrite(t, filepath.Join(snap, "config.json"), []byte(`{}`))
	return link
}

func TestReadsHuggingFaceHubPythonCache(t *testing.T) {
	hub := newHub(t, serveTokenizer(testCommit, validTokenizer))
	cache := t.TempDir()
	link := pythonCache(t, cache, "meta-llama/Llama-3.1-8B", "main", testCommit, validTokenizer)

	for _, opts := range []Options{
		{Endpoint: hub.URL(), CacheDir: cache},                                   // online: still no request
		{Endpoint: hub.URL(), CacheDir: cache, Offline: true},                    // offline via refs/main
		{Endpoint: hub.URL(), CacheDir: cache, Revision: testCommit},             // by commit, no ref needed
		{Endpoint: hub.URL(), CacheDir: cache, Revision: "main ", Offline: true}, // invalid revision
	} {
		got, err := Resolve(context.Background(), "meta-llama/Llama-3.1-8B", opts)
		if opts.Revision == "main " {
			if !errors.Is(err, ErrInvalidName) {
				t.Errorf("revision %q: %v, want ErrInvalidName", opts.Revision, err)
			}
			continue
		}
		if err != nil || got != link {
			t.Errorf("%v: Resolve = %q, %v; want the snapshot link %q", opts, got, err, link)
		}
	}
	if n := hub.hits.Load(); n != 0 {
		t.Errorf("a Python-filled cache caused %d requests, want 0", n)
	}
}

func TestDanglingPythonSymlinkIsAMiss(t *testing.T) {
	cache := t.TempDir()
	link := pythonCache(t, cache, "org/m", "main", testCommit, validTokenizer)
	target, _ := filepath.EvalSymlinks(link)
	if err := os.Remove(target); err != nil {
		t.Fatal(err)
	}
	_, err := Resolve(context.Background(), "org/m", Options{CacheDir: cache, Offline: true})
	if !errors.Is(err, ErrNotCached) {
		t.Fatalf("dangling link offline: %v, want ErrNotCached", err)
	}
	// Online, the download replaces the dangling link with a real file.
	hub := newHub(t, serveTokenizer(testCommit, validTokenizer))
	got, err := Resolve(context.Background(), "org/m", Options{CacheDir: cache, Endpoint: hub.URL()})
	if err != nil || got != link {
		t.Fatalf("online repair = %q, %v", got, err)
	}
	if fi, err := os.Lstat(got); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("repaired entry is not a regular file: %v", err)
	}
}

func TestRefWithTraversalIsIgnored(t *testing.T) {
	cache := t.TempDir()
	mustWrite(t, filepath.Join(cache, "models--org--m", "refs", "main"), []byte("../../../../etc"))
	_, err := Resolve(context.Background(), "org/m", Options{CacheDir: cache, Offline: true})
	if !errors.Is(err, ErrNotCached) {
		t.Errorf("traversing ref: %v, want ErrNotCached", err)
	}
}
