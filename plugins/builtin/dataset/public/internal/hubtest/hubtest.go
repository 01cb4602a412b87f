// Package hubtest is a fake Hugging Face hub for the public dataset
// loaders' tests: a real HTTP server on loopback serving a folder laid out
// as <root>/<org>--<name>/<path in repo> for every revision, with the
// tree API (one entry per page, linked by Link rel="next", as the hub
// pages) and the resolve API (X-Repo-Commit, X-Linked-Etag = SHA-256). It
// records every request.
package hubtest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Commit is the commit every revision resolves to.
const Commit = "0123456789abcdef0123456789abcdef01234567"

// Hub is the fake hub.
type Hub struct {
	srv  *httptest.Server
	root string

	mu       sync.Mutex
	requests []Request
}

// Request is what the hub saw of one request.
type Request struct {
	Path          string // escaped path and query
	Authorization string
}

// New serves root until the test ends.
func New(t testing.TB, root string) *Hub {
	t.Helper()
	h := &Hub{root: root}
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.srv.Close)
	return h
}

// URL is the hub's endpoint (HF_ENDPOINT).
func (h *Hub) URL() string { return h.srv.URL }

// Requests returns the requests so far.
func (h *Hub) Requests() []Request {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Request(nil), h.requests...)
}

// Paths returns the escaped paths requested so far.
func (h *Hub) Paths() []string {
	var out []string
	for _, r := range h.Requests() {
		out = append(out, r.Path)
	}
	return out
}

func (h *Hub) serve(w http.ResponseWriter, r *http.Request) {
	p := r.URL.EscapedPath()
	if r.URL.RawQuery != "" {
		p += "?" + r.URL.RawQuery
	}
	h.mu.Lock()
	h.requests = append(h.requests, Request{Path: p, Authorization: r.Header.Get("Authorization")})
	h.mu.Unlock()
	segs := strings.Split(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/")
	switch {
	case len(segs) >= 6 && segs[0] == "api" && segs[1] == "datasets" && segs[4] == "tree":
		h.tree(w, r, segs[2]+"--"+segs[3], segs[6:])
	case len(segs) >= 6 && segs[0] == "datasets" && segs[3] == "resolve":
		h.resolve(w, r, segs[1]+"--"+segs[2], segs[5:])
	default:
		w.Header().Set("X-Error-Code", "RepoNotFound")
		http.Error(w, "no such route", http.StatusNotFound)
	}
}

func unescape(segs []string) string {
	out := make([]string, len(segs))
	for i, s := range segs {
		u, err := url.PathUnescape(s)
		if err != nil {
			u = s
		}
		out[i] = u
	}
	return path.Join(out...)
}

func (h *Hub) tree(w http.ResponseWriter, r *http.Request, repo string, dirSegs []string) {
	dir := unescape(dirSegs)
	full := filepath.Join(h.root, repo, filepath.FromSlash(dir))
	entries, err := os.ReadDir(full)
	if err != nil {
		w.Header().Set("X-Error-Code", "EntryNotFound")
		http.Error(w, "no such folder", http.StatusNotFound)
		return
	}
	type lfs struct {
		OID  string `json:"oid"`
		Size int64  `json:"size"`
	}
	type entry struct {
		Type string `json:"type"`
		Path string `json:"path"`
		Size int64  `json:"size"`
		LFS  *lfs   `json:"lfs,omitempty"`
	}
	var list []entry
	for _, e := range entries {
		rel := path.Join(dir, e.Name())
		if e.IsDir() {
			list = append(list, entry{Type: "directory", Path: rel})
			continue
		}
		b, _ := os.ReadFile(filepath.Join(full, e.Name()))
		sum := sha256.Sum256(b)
		list = append(list, entry{Type: "file", Path: rel, Size: int64(len(b)), LFS: &lfs{OID: hex.EncodeToString(sum[:]), Size: int64(len(b))}})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Path < list[j].Path })
	// One entry per page: the client must follow Link rel="next".
	page, _ := strconv.Atoi(r.URL.Query().Get("cursor"))
	if page < len(list)-1 {
		next := *r.URL
		q := next.Query()
		q.Set("cursor", strconv.Itoa(page+1))
		next.RawQuery = q.Encode()
		w.Header().Set("Link", `<`+h.srv.URL+next.RequestURI()+`>; rel="next"`)
	}
	w.Header().Set("Content-Type", "application/json")
	if page >= len(list) {
		w.Write([]byte("[]"))
		return
	}
	json.NewEncoder(w).Encode(list[page : page+1])
}

func (h *Hub) resolve(w http.ResponseWriter, r *http.Request, repo string, fileSegs []string) {
	b, err := os.ReadFile(filepath.Join(h.root, repo, filepath.FromSlash(unescape(fileSegs))))
	if err != nil {
		w.Header().Set("X-Error-Code", "EntryNotFound")
		http.Error(w, "no such file", http.StatusNotFound)
		return
	}
	sum := sha256.Sum256(b)
	w.Header().Set("X-Repo-Commit", Commit)
	w.Header().Set("X-Linked-Etag", `"`+hex.EncodeToString(sum[:])+`"`)
	w.Write(b)
}

// CopyTree copies the folder src into dst (dst is created), for tests that
// lay a hub out from the checked-in fixtures.
func CopyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
