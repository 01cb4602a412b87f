// Package capturetest reads the AIPerf 0.13 request captures checked in
// under testdata/aiperf013/endpoints (its README says how they were made),
// for tests that compare our request bodies with AIPerf's byte for byte.
package capturetest

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Request is one request AIPerf sent in a capture.
type Request struct {
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
}

// Dir is the captures directory, found from this file so any package's
// tests can use it.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "aiperf013", "endpoints")
}

// Requests returns the requests of one capture, in order.
func Requests(t testing.TB, name string) []Request {
	t.Helper()
	f, err := os.Open(filepath.Join(Dir(), name, "requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Request
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var r Request
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("capture %s: %v", name, err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("capture %s: %v", name, err)
	}
	return out
}

// Bodies returns the POST bodies of one capture; it fails the test when
// there are none.
func Bodies(t testing.TB, name string) []string {
	t.Helper()
	var bodies []string
	for _, r := range Requests(t, name) {
		if r.Method == "POST" {
			bodies = append(bodies, r.Body)
		}
	}
	if len(bodies) == 0 {
		t.Fatalf("capture %s: no POST bodies", name)
	}
	return bodies
}
