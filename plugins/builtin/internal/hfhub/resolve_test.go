package hfhub

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestDownloadWritesHubCacheLayout(t *testing.T) {
	hub := newHub(t, serveTokenizer(testCommit, validTokenizer))
	cache := t.TempDir()
	opts := Options{Endpoint: hub.URL(), CacheDir: cache}

	got, err := Resolve(context.Background(), "org/tiny-model", opts)
	if err != nil {
		t.Fatal(err)
	}
	repoDir := filepath.Join(cache, "models--org--tiny-model")
	want := filepath.Join(repoDir, "snapshots", testCommit, "tokenizer.json")
	if got != want {
		t.Errorf("path = %q, want %q", got, want)
	}
	if b, _ := os.ReadFile(got); !bytes.Equal(b, validTokenizer) {
		t.Errorf("cached file = %q, want the served body", b)
	}
	if ref, _ := os.ReadFile(filepath.Join(repoDir, "refs", "main")); string(ref) != testCommit {
		t.Errorf("refs/main = %q, want %q", ref, testCommit)
	}
	_, paths, uas := hub.seen()
	if len(paths) != 1 || paths[0] != "/org/tiny-model/resolve/main/tokenizer.json" {
		t.Errorf("requested %v, want one GET of /org/tiny-model/resolve/main/tokenizer.json", paths)
	}
	if uas[0] == "" || strings.HasPrefix(uas[0], "Go-http-client") {
		t.Errorf("User-Agent = %q, want ours", uas[0])
	}
	assertNoTempFiles(t, repoDir)

	// Second call: served from the cache without a single request.
	before := hub.hits.Load()
	again, err := Resolve(context.Background(), "org/tiny-model", opts)
	if err != nil || again != want {
		t.Fatalf("second Resolve = %q, %v", again, err)
	}
	if n := hub.hits.Load() - before; n != 0 {
		t.Errorf("second Resolve made %d requests, want 0", n)
	}
}

func TestRevisionInURLAndCache(t *testing.T) {
	hub := newHub(t, serveTokenizer(testCommit, validTokenizer))
	cache := t.TempDir()
	opts := Options{Endpoint: hub.URL() + "/", CacheDir: cache, Revision: "refs/pr/7"}
	if _, err := Resolve(context.Background(), "gpt2", opts); err != nil {
		t.Fatal(err)
	}
	_, paths, _ := hub.seen()
	// huggingface_hub quotes the revision with safe="" so the slashes are escaped.
	if paths[0] != "/gpt2/resolve/refs%2Fpr%2F7/tokenizer.json" {
		t.Errorf("path = %q", paths[0])
	}
	if ref, _ := os.ReadFile(filepath.Join(cache, "models--gpt2", "refs", "refs", "pr", "7")); string(ref) != testCommit {
		t.Errorf("refs/refs/pr/7 = %q", ref)
	}
	opts.Offline = true
	if _, err := Resolve(context.Background(), "gpt2", opts); err != nil {
		t.Errorf("offline after download: %v", err)
	}
}

func TestCommitRevisionNeedsNoRef(t *testing.T) {
	hub := newHub(t, serveTokenizer(testCommit, validTokenizer))
	cache := t.TempDir()
	opts := Options{Endpoint: hub.URL(), CacheDir: cache, Revision: testCommit}
	got, err := Resolve(context.Background(), "gpt2", opts)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(cache, "models--gpt2", "snapshots", testCommit, "tokenizer.json"); got != want {
		t.Errorf("path = %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(cache, "models--gpt2", "refs")); !os.IsNotExist(err) {
		t.Errorf("a commit revision wrote refs/ (%v); huggingface_hub does not", err)
	}
	opts.Offline = true
	if _, err := Resolve(context.Background(), "gpt2", opts); err != nil {
		t.Errorf("offline by commit: %v", err)
	}
}

func TestMissingCommitHeaderFallsBackToRevision(t *testing.T) {
	hub := newHub(t, serveTokenizer("", validTokenizer))
	cache := t.TempDir()
	opts := Options{Endpoint: hub.URL(), CacheDir: cache, Revision: "v2"}
	got, err := Resolve(context.Background(), "org/m", opts)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(cache, "models--org--m", "snapshots", "v2", "tokenizer.json"); got != want {
		t.Errorf("path = %q, want %q", got, want)
	}
	before := hub.hits.Load()
	if _, err := Resolve(context.Background(), "org/m", opts); err != nil || hub.hits.Load() != before {
		t.Errorf("second Resolve: %v, %d new requests; want a cache hit", err, hub.hits.Load()-before)
	}
}

func TestHostileCommitHeaderRejected(t *testing.T) {
	hub := newHub(t, serveTokenizer("../../../escape", validTokenizer))
	cache := t.TempDir()
	_, err := Resolve(context.Background(), "org/m", Options{Endpoint: hub.URL(), CacheDir: cache})
	if !errors.Is(err, ErrDownload) || !strings.Contains(err.Error(), "X-Repo-Commit") {
		t.Fatalf("err = %v, want an unusable X-Repo-Commit error", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(cache), "escape")); !os.IsNotExist(err) {
		t.Errorf("something was written outside the cache")
	}
}

func TestOfflineHitAndMiss(t *testing.T) {
	hub := newHub(t, serveTokenizer(testCommit, validTokenizer))
	cache := t.TempDir()
	online := Options{Endpoint: hub.URL(), CacheDir: cache}
	if _, err := Resolve(context.Background(), "org/cached", online); err != nil {
		t.Fatal(err)
	}
	before := hub.hits.Load()
	offline := online
	offline.Offline = true

	got, err := Resolve(context.Background(), "org/cached", offline)
	if err != nil || !strings.HasSuffix(got, filepath.Join("snapshots", testCommit, "tokenizer.json")) {
		t.Errorf("offline hit = %q, %v", got, err)
	}
	_, err = Resolve(context.Background(), "org/uncached", offline)
	want := "tokenizer org/uncached (revision main) is not in the Hugging Face cache at " + cache + " and HF_HUB_OFFLINE is set"
	if !errors.Is(err, ErrNotCached) || err.Error() != want {
		t.Errorf("offline miss = %v, want %q", err, want)
	}
	offline.Revision = "dev"
	if _, err := Resolve(context.Background(), "org/cached", offline); !errors.Is(err, ErrNotCached) {
		t.Errorf("offline, other revision = %v, want ErrNotCached", err)
	}
	if n := hub.hits.Load() - before; n != 0 {
		t.Errorf("offline calls made %d requests, want 0", n)
	}
}

func TestHubErrorStatuses(t *testing.T) {
	const token = "hf_SuperSecretToken42"
	tests := []struct {
		status    int
		errorCode string
		kind      error
		want      string
	}{
		{401, "", ErrGated, "tokenizer org/m is gated or private: accept its license on huggingface.co and set HF_TOKEN"},
		{403, "", ErrGated, "tokenizer org/m is gated or private: accept its license on huggingface.co and set HF_TOKEN"},
		{403, "GatedRepo", ErrGated, "is gated or private"},
		{404, "", ErrNotFound, "tokenizer org/m not found on the hub (check the repo id and --tokenizer-revision main)"},
		{401, "RepoNotFound", ErrNotFound, "not found on the hub (check the repo id and --tokenizer-revision main); if the repo is private, set HF_TOKEN"},
		{404, "RevisionNotFound", ErrNotFound, "has no revision main"},
		{404, "EntryNotFound", ErrNotFound, "has no tokenizer.json on the hub"},
		{500, "", ErrDownload, "HTTP 500 Internal Server Error"},
		{429, "", ErrDownload, "HTTP 429 Too Many Requests"},
	}
	for _, tt := range tests {
		hub := newHub(t, func(w http.ResponseWriter, r *http.Request) {
			if tt.errorCode != "" {
				w.Header().Set("X-Error-Code", tt.errorCode)
			}
			http.Error(w, "nope", tt.status)
		})
		cache := t.TempDir()
		_, err := Resolve(context.Background(), "org/m", Options{Endpoint: hub.URL(), CacheDir: cache, Token: token})
		if err == nil {
			t.Errorf("%d %s: no error", tt.status, tt.errorCode)
			continue
		}
		if !errors.Is(err, tt.kind) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%d %s: %v (kind %v), want %v containing %q", tt.status, tt.errorCode, err, errors.Unwrap(err), tt.kind, tt.want)
		}
		if strings.Contains(err.Error(), token) {
			t.Errorf("%d: error leaks the token: %v", tt.status, err)
		}
		if auths, _, _ := hub.seen(); auths[0] != "Bearer "+token {
			t.Errorf("Authorization = %q, want the Bearer token", auths[0])
		}
		if entries, _ := os.ReadDir(cache); len(entries) != 0 {
			t.Errorf("%d: a failed download left %d entries in the cache", tt.status, len(entries))
		}
	}
}

func TestNoTokenSendsNoAuthorization(t *testing.T) {
	hub := newHub(t, serveTokenizer(testCommit, validTokenizer))
	if _, err := Resolve(context.Background(), "gpt2", Options{Endpoint: hub.URL(), CacheDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if auths, _, _ := hub.seen(); auths[0] != "" {
		t.Errorf("Authorization = %q without a token", auths[0])
	}
}

func TestRedirectToCDNDropsToken(t *testing.T) {
	const token = "hf_RedirectSecret"
	cdn := newHub(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("sig") != "abc" {
			http.Error(w, "bad signature", http.StatusForbidden)
			return
		}
		w.Write(validTokenizer) // the CDN sends no X-Repo-Commit
	})
	hub := newHub(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/org/big/resolve/main/tokenizer.json":
			// The hub's own same-origin hop (resolve-cache) needs the token.
			http.Redirect(w, r, "/api/resolve-cache/org/big/tokenizer.json", http.StatusTemporaryRedirect)
		case "/api/resolve-cache/org/big/tokenizer.json":
			if r.Header.Get("Authorization") != "Bearer "+token {
				http.Error(w, "auth lost on same-origin redirect", http.StatusUnauthorized)
				return
			}
			w.Header().Set("X-Repo-Commit", testCommit)
			http.Redirect(w, r, cdn.URL()+"/blobs/xyz?sig=abc", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	})
	cache := t.TempDir()
	got, err := Resolve(context.Background(), "org/big", Options{Endpoint: hub.URL(), CacheDir: cache, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, filepath.Join("snapshots", testCommit)) {
		t.Errorf("path %q: the commit from the hub's redirect response was not used", got)
	}
	hubAuths, _, _ := hub.seen()
	if len(hubAuths) != 2 || hubAuths[0] != "Bearer "+token || hubAuths[1] != "Bearer "+token {
		t.Errorf("hub saw Authorization %q, want the token on both same-origin hops", hubAuths)
	}
	cdnAuths, _, _ := cdn.seen()
	if len(cdnAuths) != 1 || cdnAuths[0] != "" {
		t.Errorf("CDN (other port) saw Authorization %q, want none", cdnAuths)
	}
}

func TestRedirectHonoursCallerPolicy(t *testing.T) {
	hub := newHub(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
		return errors.New("redirects forbidden by caller")
	}}
	_, err := Resolve(context.Background(), "gpt2", Options{Endpoint: hub.URL(), CacheDir: t.TempDir(), HTTPClient: client})
	if !errors.Is(err, ErrDownload) || !strings.Contains(err.Error(), "redirects forbidden by caller") {
		t.Errorf("err = %v, want the caller's CheckRedirect error", err)
	}
}

func TestNonTokenizerBodyIsNotPublished(t *testing.T) {
	bodies := map[string]string{
		"html page":     "<html><body>Sign in</body></html>",
		"truncated":     string(validTokenizer[:40]),
		"json no model": `{"error":"Repository not found"}`,
		"model is null": `{"model":null}`,
		"json array":    `[1,2,3]`,
	}
	for name, body := range bodies {
		hub := newHub(t, serveTokenizer(testCommit, []byte(body)))
		cache := t.TempDir()
		_, err := Resolve(context.Background(), "org/m", Options{Endpoint: hub.URL(), CacheDir: cache})
		if !errors.Is(err, ErrNotTokenizer) || !strings.Contains(err.Error(), "is not a tokenizer.json") {
			t.Errorf("%s: err = %v, want 'is not a tokenizer.json'", name, err)
		}
		if entries, _ := os.ReadDir(cache); len(entries) != 0 {
			t.Errorf("%s: rejected body left %d entries in the cache", name, len(entries))
		}
	}
}

func TestConcurrentResolveDownloadsOnce(t *testing.T) {
	hub := newHub(t, serveTokenizer(testCommit, validTokenizer))
	cache := t.TempDir()
	opts := Options{Endpoint: hub.URL(), CacheDir: cache}
	const n = 8
	paths := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { paths[i], errs[i] = Resolve(context.Background(), "org/shared", opts) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || paths[i] != paths[0] {
			t.Errorf("goroutine %d: %q, %v; want %q", i, paths[i], errs[i], paths[0])
		}
	}
	if b, err := os.ReadFile(paths[0]); err != nil || !bytes.Equal(b, validTokenizer) {
		t.Errorf("published file = %q, %v", b, err)
	}
	if h := hub.hits.Load(); h != 1 {
		t.Errorf("%d downloads for %d concurrent calls, want 1", h, n)
	}
	assertNoTempFiles(t, filepath.Join(cache, "models--org--shared"))
}

func TestCancelledDownloadPublishesNothing(t *testing.T) {
	arrived := make(chan struct{})
	hub := newHub(t, func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done() // hold the response until the client gives up
	})
	cache := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-arrived; cancel() }()
	_, err := Resolve(ctx, "org/slow", Options{Endpoint: hub.URL(), CacheDir: cache})
	if !errors.Is(err, context.Canceled) || !errors.Is(err, ErrDownload) {
		t.Errorf("err = %v, want a wrapped context.Canceled", err)
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 0 {
		t.Errorf("cancelled download left %d entries in the cache", len(entries))
	}
}

func TestNetworkErrorNamesURLAndHints(t *testing.T) {
	// A port that was just free: connection refused.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "http://" + ln.Addr().String()
	ln.Close()
	const token = "hf_NetSecret"
	_, err = Resolve(context.Background(), "org/m", Options{Endpoint: endpoint, CacheDir: t.TempDir(), Token: token})
	if !errors.Is(err, ErrDownload) {
		t.Fatalf("err = %v, want ErrDownload", err)
	}
	msg := err.Error()
	for _, want := range []string{endpoint + "/org/m/resolve/main/tokenizer.json", "HF_HUB_OFFLINE=1", "local tokenizer.json path"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, token) {
		t.Errorf("error leaks the token: %q", msg)
	}
}

func TestBadEndpoint(t *testing.T) {
	for _, ep := range []string{"huggingface.co", "ftp://mirror", "http://"} {
		_, err := Resolve(context.Background(), "gpt2", Options{Endpoint: ep, CacheDir: t.TempDir()})
		if !errors.Is(err, ErrDownload) || !strings.Contains(err.Error(), "HF_ENDPOINT") {
			t.Errorf("endpoint %q: %v, want an HF_ENDPOINT error", ep, err)
		}
	}
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".incomplete") {
			t.Errorf("leftover temp file %s", path)
		}
		return nil
	})
}

// Other processes sharing the cache are not covered by the in-process lock:
// concurrent publishes of the same snapshot must still leave one whole file.
func TestConcurrentPublishIsAtomic(t *testing.T) {
	c := newRepoCache(t.TempDir(), "org/m")
	bodies := make([][]byte, 8)
	for i := range bodies {
		bodies[i] = []byte(`{"model":{"type":"BPE","id":` + strings.Repeat("1", i*1000+1) + `}}`)
	}
	var wg sync.WaitGroup
	for i := range bodies {
		wg.Go(func() {
			if _, err := c.publish("main", testCommit, bodies[i]); err != nil {
				t.Errorf("publish %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	got, ok := c.lookup("main")
	if !ok {
		t.Fatal("nothing published")
	}
	b, _ := os.ReadFile(got)
	whole := false
	for _, body := range bodies {
		whole = whole || bytes.Equal(b, body)
	}
	if !whole || checkTokenizerJSON(b) != nil {
		t.Errorf("published file (%d bytes) is not one complete body", len(b))
	}
	assertNoTempFiles(t, c.dir)
}
