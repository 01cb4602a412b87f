package hfhub

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

// validTokenizer is a minimal tokenizers-library file.
var validTokenizer = []byte(`{"version":"1.0","added_tokens":[],"model":{"type":"BPE","vocab":{"a":0,"b":1},"merges":[]}}`)

const testCommit = "0123456789abcdef0123456789abcdef01234567"

// testHub is a real HTTP server standing in for huggingface.co. It counts
// requests and records what each one carried.
type testHub struct {
	srv  *httptest.Server
	hits atomic.Int64

	mu    sync.Mutex
	auths []string
	paths []string
	uas   []string
}

func newHub(t testing.TB, h http.HandlerFunc) *testHub {
	t.Helper()
	hub := &testHub{}
	hub.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hub.hits.Add(1)
		hub.mu.Lock()
		hub.auths = append(hub.auths, r.Header.Get("Authorization"))
		hub.paths = append(hub.paths, r.URL.EscapedPath())
		hub.uas = append(hub.uas, r.Header.Get("User-Agent"))
		hub.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(hub.srv.Close)
	return hub
}

func (h *testHub) URL() string { return h.srv.URL }

func (h *testHub) seen() (auths, paths, uas []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.auths...), append([]string(nil), h.paths...), append([]string(nil), h.uas...)
}

// serveTokenizer answers like the hub for a small, non-LFS file.
func serveTokenizer(commit string, body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if commit != "" {
			w.Header().Set("X-Repo-Commit", commit)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}
}
