// Package replayserver serves recorded wire transcripts for interop tests:
// one HTTP response per transcript, its body written byte for byte in the
// recorded writes, each flushed on its own (with an optional pause between
// writes), so a client sees the same read boundaries a real server produced.
// Transcripts are small text files (see testdata/transcripts/README.md): a
// header block naming the source, the status, the response headers and what
// a client must make of the answer, then one Go-quoted string per write.
package replayserver

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Transcript is one recorded response.
type Transcript struct {
	// Name is "<server>/<case>", from the file's place under the root.
	Name string
	// Server is the server the transcript was taken from (its directory).
	Server string
	// Sources are the "# source:" lines: where the shape comes from.
	Sources []string
	// Status is the HTTP status (default 200).
	Status int
	// Headers are the response headers, in file order.
	Headers [][2]string
	// Delay is the pause before every write after the first.
	Delay time.Duration
	// Writes are the body, one element per write and flush.
	Writes [][]byte
	// Fields are the other "key: value" header lines (endpoint, streaming,
	// expect-*), for the test that interprets them.
	Fields map[string]string
}

// Body is the whole body, the writes joined.
func (tr *Transcript) Body() []byte { return bytes.Join(tr.Writes, nil) }

// Field returns a header field and whether it is set.
func (tr *Transcript) Field(key string) (string, bool) {
	v, ok := tr.Fields[key]
	return v, ok
}

// Parse reads a transcript; name labels errors and becomes Name.
func Parse(name string, r io.Reader) (*Transcript, error) {
	tr := &Transcript{Name: name, Status: http.StatusOK, Fields: map[string]string{}}
	if i := strings.IndexByte(name, '/'); i > 0 {
		tr.Server = name[:i]
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	line, body := 0, false
	for sc.Scan() {
		line++
		text := sc.Text()
		trimmed := strings.TrimSpace(text)
		if body {
			if trimmed == "" || strings.HasPrefix(trimmed, "#") {
				continue
			}
			w, err := strconv.Unquote(trimmed)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: a write must be one Go-quoted string: %w", name, line, err)
			}
			tr.Writes = append(tr.Writes, []byte(w))
			continue
		}
		switch {
		case trimmed == "---":
			body = true
			continue
		case trimmed == "":
			continue
		case strings.HasPrefix(trimmed, "#"):
			if src, ok := strings.CutPrefix(strings.TrimSpace(trimmed[1:]), "source:"); ok {
				tr.Sources = append(tr.Sources, strings.TrimSpace(src))
			}
			continue
		}
		key, val, ok := strings.Cut(trimmed, ":")
		if !ok {
			return nil, fmt.Errorf("%s:%d: want \"key: value\", got %q", name, line, trimmed)
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch key {
		case "status":
			n, err := strconv.Atoi(val)
			if err != nil || n < 100 || n > 999 {
				return nil, fmt.Errorf("%s:%d: status %q is not an HTTP status", name, line, val)
			}
			tr.Status = n
		case "header":
			hk, hv, ok := strings.Cut(val, ":")
			if !ok || strings.TrimSpace(hk) == "" {
				return nil, fmt.Errorf("%s:%d: header %q: want \"header: Name: value\"", name, line, val)
			}
			tr.Headers = append(tr.Headers, [2]string{strings.TrimSpace(hk), strings.TrimSpace(hv)})
		case "delay":
			d, err := time.ParseDuration(val)
			if err != nil || d < 0 {
				return nil, fmt.Errorf("%s:%d: delay %q is not a duration", name, line, val)
			}
			tr.Delay = d
		default:
			if _, dup := tr.Fields[key]; dup {
				return nil, fmt.Errorf("%s:%d: field %q given twice", name, line, key)
			}
			tr.Fields[key] = val
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if !body {
		return nil, fmt.Errorf("%s: no \"---\" line before the body", name)
	}
	if len(tr.Sources) == 0 {
		return nil, fmt.Errorf("%s: no \"# source:\" line: say where the shape comes from", name)
	}
	return tr, nil
}

// LoadAll reads every root/<server>/<case>.txt, sorted by name.
func LoadAll(root string) ([]*Transcript, error) {
	paths, err := filepath.Glob(filepath.Join(root, "*", "*.txt"))
	if err != nil {
		return nil, fmt.Errorf("transcripts under %s: %w", root, err)
	}
	sort.Strings(paths)
	out := make([]*Transcript, 0, len(paths))
	for _, p := range paths {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil, fmt.Errorf("transcript %s: %w", p, err)
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("transcript: %w", err)
		}
		tr, err := Parse(strings.TrimSuffix(filepath.ToSlash(rel), ".txt"), f)
		f.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, tr)
	}
	return out, nil
}

// Request is what the server read of one POST request.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// Server replays one transcript to every POST request and answers 404 to
// anything else.
type Server struct {
	// URL is the base URL, "http://127.0.0.1:<port>".
	URL string

	tr   *Transcript
	srv  *httptest.Server
	mu   sync.Mutex
	reqs []Request
}

// Start serves tr on loopback until the test ends.
func Start(t testing.TB, tr *Transcript) *Server {
	t.Helper()
	s := &Server{tr: tr}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// Requests returns the POST requests read so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		// Only inference requests get the transcript: a client's side
		// probes (GET /metrics, /v1/models) find nothing here.
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.reqs = append(s.reqs, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	s.mu.Unlock()
	h := w.Header()
	for _, kv := range s.tr.Headers {
		h.Add(kv[0], kv[1])
	}
	if h.Get("Content-Type") == "" {
		// Without it net/http would sniff one; a transcript that has none
		// means none.
		h["Content-Type"] = nil
	}
	w.WriteHeader(s.tr.Status)
	fl, _ := w.(http.Flusher)
	for i, b := range s.tr.Writes {
		if i > 0 && s.tr.Delay > 0 {
			select {
			case <-time.After(s.tr.Delay):
			case <-r.Context().Done():
				return
			}
		}
		if _, err := w.Write(b); err != nil {
			return
		}
		if fl != nil {
			fl.Flush()
		}
	}
}
