// Package mocktest starts the real mock server on a free loopback port for
// tests in other packages, and stops it when the test ends.
package mocktest

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
)

// Start runs a mock server with cfg on 127.0.0.1 (any free port) and returns
// its base URL, e.g. "http://127.0.0.1:40123".
func Start(t testing.TB, cfg mockserver.Config) string {
	t.Helper()
	cfg.Host, cfg.Port = "127.0.0.1", 0
	srv, err := mockserver.New(cfg)
	if err != nil {
		t.Fatalf("mock server: %v", err)
	}
	addr, err := srv.Start()
	if err != nil {
		t.Fatalf("mock server: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("mock server shutdown: %v", err)
		}
	})
	return "http://" + addr
}

// Page starts a fast mock server and returns the body of its GET path (a
// /metrics or /dcgm/metrics page a parser benchmark feeds on).
func Page(t testing.TB, path string) []byte {
	t.Helper()
	resp, err := http.Get(Start(t, mockserver.Config{Fast: true}) + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return body
}
