package mockserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// startServerWith is startServer with a hook that edits the server before
// it listens (to replace its clock, say).
func startServerWith(t *testing.T, cfg Config, edit func(*Server)) string {
	t.Helper()
	cfg.Host, cfg.Port = "127.0.0.1", 0
	s, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	edit(s)
	addr, err := s.Start()
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return "http://" + addr
}

// fakeClock is a settable clock for video jobs.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *fakeClock) advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// send makes a request with the given headers and returns the response
// with its body read.
func send(t *testing.T, method, url, body string, headers map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading %s: %v", url, err)
	}
	return resp, b
}

// postOK posts a JSON body and decodes the 200 JSON answer into v, failing
// on any field v does not declare.
func postOK(t *testing.T, url, body string, v any) []byte {
	t.Helper()
	resp, b := send(t, "POST", url, body, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q", ct)
	}
	if v != nil {
		strictJSON(t, string(b), v)
	}
	return b
}

// strictJSON decodes data into v, rejecting unknown fields and trailing data.
func strictJSON(t *testing.T, data string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decoding %.300q: %v", data, err)
	}
	if dec.More() {
		t.Fatalf("trailing data after JSON value in %.300q", data)
	}
}

// streamOK posts a body and returns its SSE events.
func streamOK(t *testing.T, url, body string, headers map[string]string) []sseEvent {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return readSSE(t, resp)
}

// sameRunIndependent blanks what legitimately differs between two servers
// answering the same request: ids (they carry a per-process tag) and wall
// clock timestamps.
var (
	idTagRE     = regexp.MustCompile(`mock[0-9a-f]{8}-\d+`)
	timestampRE = regexp.MustCompile(`"(created|created_at|completed_at|expires_at)":\d+`)
)

func sameRunIndependent(b []byte) string {
	s := idTagRE.ReplaceAllString(string(b), "ID")
	return timestampRE.ReplaceAllString(s, `"$1":0`)
}
