package hfhub

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var datasetBody = []byte(`[{"id": "a", "conversations": []}]`)

func serveDataset(commit string, body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.EscapedPath() != "/datasets/org/chats/resolve/main/data/file.json" {
			w.Header().Set("X-Error-Code", "EntryNotFound")
			http.NotFound(w, r)
			return
		}
		sum := sha256.Sum256(body)
		w.Header().Set("X-Repo-Commit", commit)
		w.Header().Set("X-Linked-Etag", `"`+hex.EncodeToString(sum[:])+`"`)
		w.Write(body)
	}
}

func TestFetchDatasetFileIntoTheCache(t *testing.T) {
	hub := newHub(t, serveDataset(testCommit, datasetBody))
	cache := t.TempDir()
	o := Options{Endpoint: hub.URL(), CacheDir: cache, Token: "hf_tok"}
	got, err := Fetch(context.Background(), DatasetRepo("org/chats"), "data/file.json", o, FileCheck{})
	want := filepath.Join(cache, "datasets--org--chats", "snapshots", testCommit, "data", "file.json")
	if err != nil || got != want {
		t.Fatalf("Fetch = %q, %v; want %q", got, err, want)
	}
	if b, _ := os.ReadFile(got); string(b) != string(datasetBody) {
		t.Errorf("cached %q", b)
	}
	if ref, _ := os.ReadFile(filepath.Join(cache, "datasets--org--chats", "refs", "main")); string(ref) != testCommit {
		t.Errorf("refs/main = %q", ref)
	}
	auths, paths, _ := hub.seen()
	if len(paths) != 1 || auths[0] != "Bearer hf_tok" {
		t.Errorf("requests %v with %v", paths, auths)
	}
	assertNoTempFiles(t, filepath.Join(cache, "datasets--org--chats"))
	for _, offline := range []bool{false, true} {
		o.Offline = offline
		if again, err := Fetch(context.Background(), DatasetRepo("org/chats"), "data/file.json", o, FileCheck{}); err != nil || again != want {
			t.Errorf("offline=%t: %q, %v", offline, again, err)
		}
	}
	if n := hub.hits.Load(); n != 1 {
		t.Errorf("%d requests, want the first only", n)
	}
}

func TestFetchOfflineColdNamesThePath(t *testing.T) {
	cache := t.TempDir()
	_, err := Fetch(context.Background(), DatasetRepo("org/chats"), "f.json", Options{CacheDir: cache, Offline: true}, FileCheck{})
	want := "dataset org/chats file f.json (revision main) is not in the Hugging Face cache (looked for " +
		filepath.Join(cache, "datasets--org--chats", "snapshots", "<commit of main>", "f.json") + ") and HF_HUB_OFFLINE is set"
	if !errors.Is(err, ErrNotCached) || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}

func TestFetchFailuresNameURLAndCache(t *testing.T) {
	tests := []struct {
		status int
		code   string
		kind   error
		want   string
	}{
		{401, "", ErrGated, "dataset org/chats is gated or private: accept its terms on its hub page and set HF_TOKEN (HTTP 401"},
		{404, "RepoNotFound", ErrNotFound, "dataset org/chats not found on the hub"},
		{404, "EntryNotFound", ErrNotFound, "dataset org/chats (revision main) has no f.json on the hub"},
		{503, "", ErrDownload, "HTTP 503 Service Unavailable"},
	}
	for _, tt := range tests {
		hub := newHub(t, func(w http.ResponseWriter, r *http.Request) {
			if tt.code != "" {
				w.Header().Set("X-Error-Code", tt.code)
			}
			http.Error(w, "no", tt.status)
		})
		cache := t.TempDir()
		_, err := Fetch(context.Background(), DatasetRepo("org/chats"), "f.json", Options{Endpoint: hub.URL(), CacheDir: cache, Token: "hf_secret"}, FileCheck{})
		if !errors.Is(err, tt.kind) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%d %s: %v, want %v %q", tt.status, tt.code, err, tt.kind, tt.want)
			continue
		}
		for _, want := range []string{hub.URL() + "/datasets/org/chats/resolve/main/f.json", filepath.Join(cache, "datasets--org--chats")} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%d: %v does not name %q", tt.status, err, want)
			}
		}
		if strings.Contains(err.Error(), "hf_secret") {
			t.Errorf("%d: the error leaks the token", tt.status)
		}
	}
}

func TestDownloadChecksumAndVerify(t *testing.T) {
	good := sha256.Sum256(datasetBody)
	cases := []struct {
		name  string
		check FileCheck
		body  []byte
		kind  error
	}{
		{"hub etag matches", FileCheck{}, datasetBody, nil},
		{"expected hash differs", FileCheck{SHA256: strings.Repeat("ab", 32)}, datasetBody, ErrCorrupt},
		{"expected hash matches", FileCheck{SHA256: hex.EncodeToString(good[:])}, datasetBody, nil},
		{"verify refuses", FileCheck{Verify: func(string) error { return errors.New("not an array") }}, datasetBody, ErrCorrupt},
	}
	for _, c := range cases {
		hub := newHub(t, serveDataset(testCommit, c.body))
		cache := t.TempDir()
		path, commit, err := Download(context.Background(), DatasetRepo("org/chats"), "data/file.json", Options{Endpoint: hub.URL(), CacheDir: cache}, c.check)
		if !errors.Is(err, c.kind) && !(c.kind == nil && err == nil) {
			t.Errorf("%s: %v, want %v", c.name, err, c.kind)
			continue
		}
		if c.kind == nil && commit != testCommit {
			t.Errorf("%s: commit %q", c.name, commit)
		}
		if c.kind != nil {
			if _, err := os.Stat(path); path != "" || err == nil {
				t.Errorf("%s: a refused file was published at %q", c.name, path)
			}
			assertNoTempFiles(t, cache)
		}
		if _, err := os.Stat(filepath.Join(cache, "datasets--org--chats", "refs")); !os.IsNotExist(err) {
			t.Errorf("%s: Download wrote a ref (%v); only WriteRef does", c.name, err)
		}
	}
	// The hub's own X-Linked-Etag catches a body altered on the way.
	hub := newHub(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Linked-Etag", `"`+hex.EncodeToString(good[:])+`"`)
		w.Write([]byte(`[{"tampered": true}]`))
	})
	if _, _, err := Download(context.Background(), DatasetRepo("org/chats"), "f", Options{Endpoint: hub.URL(), CacheDir: t.TempDir()}, FileCheck{}); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "SHA-256") {
		t.Errorf("tampered body: %v", err)
	}
}

func TestDatasetRedirectKeepsTokenOnTheEndpointOnly(t *testing.T) {
	cdn := newHub(t, func(w http.ResponseWriter, r *http.Request) { w.Write(datasetBody) })
	hub := newHub(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Repo-Commit", testCommit)
		http.Redirect(w, r, cdn.URL()+"/blob?sig=1", http.StatusFound)
	})
	got, err := Fetch(context.Background(), DatasetRepo("org/chats"), "big.json", Options{Endpoint: hub.URL(), CacheDir: t.TempDir(), Token: "hf_tok"}, FileCheck{})
	if err != nil || !strings.Contains(got, testCommit) {
		t.Fatalf("Fetch = %q, %v", got, err)
	}
	if a, _, _ := hub.seen(); a[0] != "Bearer hf_tok" {
		t.Errorf("hub Authorization %q", a[0])
	}
	if a, _, _ := cdn.seen(); a[0] != "" {
		t.Errorf("the CDN got Authorization %q", a[0])
	}
}

func TestHFEndpointFromTheEnvironment(t *testing.T) {
	hub := newHub(t, serveDataset(testCommit, datasetBody))
	env := envOf(map[string]string{"HF_ENDPOINT": hub.URL() + "/", "HF_HUB_CACHE": t.TempDir(), "HOME": t.TempDir()})
	if _, err := Fetch(context.Background(), DatasetRepo("org/chats"), "data/file.json", OptionsFromEnv(env), FileCheck{}); err != nil {
		t.Fatal(err)
	}
	if _, paths, _ := hub.seen(); len(paths) != 1 {
		t.Errorf("HF_ENDPOINT not used: %v", paths)
	}
}

func TestFileArgumentsAreChecked(t *testing.T) {
	for _, f := range []string{"../escape", "/abs", "a//b", `a\b`, ""} {
		if _, err := Fetch(context.Background(), DatasetRepo("org/chats"), f, Options{CacheDir: t.TempDir(), Offline: true}, FileCheck{}); !errors.Is(err, ErrInvalidName) {
			t.Errorf("file %q: %v, want ErrInvalidName", f, err)
		}
	}
	if _, err := Fetch(context.Background(), Repo{Type: "space", ID: "a/b"}, "f", Options{CacheDir: t.TempDir()}, FileCheck{}); !errors.Is(err, ErrInvalidName) {
		t.Errorf("space repo: %v", err)
	}
}

func TestListTreeFollowsPagesAndEscapes(t *testing.T) {
	other := newHub(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `[{"type": "file", "path": "default/train/0002.parquet", "size": 3}]`)
	})
	hub := newHub(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("cursor") == "" {
			w.Header().Set("Link", `<`+r.URL.Path+`?cursor=2>; rel="next"`)
			fmt.Fprint(w, `[{"type": "file", "path": "default/train/0000.parquet", "size": 10, "lfs": {"oid": "abc", "size": 10}}, {"type": "directory", "path": "default/train/x"}]`)
			return
		}
		w.Header().Set("Link", `<`+other.URL()+`/page3>; rel="next", <`+r.URL.Path+`>; rel="first"`)
		fmt.Fprint(w, `[{"type": "file", "path": "default/train/0001.parquet", "size": 20}]`)
	})
	entries, err := ListTree(context.Background(), DatasetRepo("org/chats"), "default/train", Options{Endpoint: hub.URL(), Revision: "refs/convert/parquet", Token: "hf_tok"})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 4 || entries[0].LFS == nil || entries[0].LFS.OID != "abc" || entries[2].Path != "default/train/0001.parquet" || entries[3].Size != 3 {
		t.Errorf("entries = %+v", entries)
	}
	auths, paths, _ := hub.seen()
	if paths[0] != "/api/datasets/org/chats/tree/refs%2Fconvert%2Fparquet/default%2Ftrain" || auths[0] != "Bearer hf_tok" || auths[1] != "Bearer hf_tok" {
		t.Errorf("hub saw %v %v", paths, auths)
	}
	if a, _, _ := other.seen(); len(a) != 1 || a[0] != "" {
		t.Errorf("a next page on another origin got Authorization %q", a)
	}
	if _, err := ListTree(context.Background(), DatasetRepo("org/chats"), "x", Options{Offline: true}); !errors.Is(err, ErrNotCached) {
		t.Errorf("offline listing: %v", err)
	}
}
