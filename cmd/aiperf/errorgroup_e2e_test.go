package main

import (
	"bufio"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
)

// startResetServer is a loopback server that reads each request and resets
// the connection (RST) instead of answering, as an overloaded proxy does.
func startResetServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				if req, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
					req.Body.Close()
				}
				c.(*net.TCPConn).SetLinger(0)
				c.Close()
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// TestProfileGroupsNetworkErrorsAcrossClientPorts: 20 resets, each from a
// fresh client port, are one error-summary row with count 20, while each
// JSONL record keeps its raw message (client port included).
func TestProfileGroupsNetworkErrorsAcrossClientPorts(t *testing.T) {
	url := startResetServer(t)
	r := profile(t, "-m", "m", "-u", url, "--request-count", "20", "--isl", "8", "--concurrency", "2")
	if r.summary == nil {
		t.Fatalf("no JSON summary (exit %d)\n%s", r.code, r.stderr)
	}
	var summary []errorSummaryRow
	if err := json.Unmarshal(r.summary["error_summary"], &summary); err != nil {
		t.Fatalf("error_summary: %v", err)
	}
	if len(summary) != 1 || summary[0].Count != 20 {
		t.Fatalf("error_summary = %+v, want one row with count 20", summary)
	}
	if m := summary[0].ErrorDetails.Message; strings.Contains(m, "->") || !strings.Contains(m, "connection reset") {
		t.Errorf("summary message %q: want a reset without the client address", m)
	}
	raw := map[string]bool{}
	for _, rec := range r.records {
		if rec.Error == nil {
			t.Fatalf("record without an error: %+v", rec)
		}
		raw[rec.Error.Message] = true
	}
	if len(r.records) != 20 || len(raw) < 2 {
		t.Errorf("%d records with %d distinct raw messages; want 20 records whose raw messages keep their client ports", len(r.records), len(raw))
	}
	if n := strings.Count(r.stdout, "connection reset"); n != 1 {
		t.Errorf("console error summary shows %d reset rows, want 1:\n%s", n, r.stdout)
	}
}
