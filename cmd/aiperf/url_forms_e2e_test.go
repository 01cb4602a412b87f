package main

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
)

// The URLs people paste reach the endpoint (AIPerf 0.13's path-overlap
// rule): an OpenAI "base URL" ending in /v1, the full endpoint URL, a
// gateway prefix before /v1, with or without scheme and trailing slash.
// Each posts to the right path and succeeds, and the run says once where
// it sends.
func TestURLFormsPeoplePaste(t *testing.T) {
	mock := startMock(t, mockserver.Config{Fast: true})
	hostPort := strings.TrimPrefix(mock, "http://")
	target, err := url.Parse(mock)
	if err != nil {
		t.Fatal(err)
	}
	// A gateway that serves the model under /openai and refuses anything
	// else, as Azure OpenAI and API gateways do.
	var wrongPath atomic.Int32
	proxy := httputil.NewSingleHostReverseProxy(target)
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/openai/") {
			wrongPath.Add(1)
			http.NotFound(w, r)
			return
		}
		r.URL.Path = strings.TrimPrefix(r.URL.Path, "/openai")
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(gateway.Close)

	cases := []struct {
		name, url, custom, sentTo string
	}{
		{"base URL with /v1", mock + "/v1", "", mock + "/v1/chat/completions"},
		{"base URL with /v1/ and no scheme", hostPort + "/v1/", "", mock + "/v1/chat/completions"},
		{"full endpoint URL", mock + "/v1/chat/completions", "", mock + "/v1/chat/completions"},
		{"gateway prefix before /v1", gateway.URL + "/openai/v1", "", gateway.URL + "/openai/v1/chat/completions"},
		{"gateway prefix with --custom-endpoint", gateway.URL + "/openai", "/v1/chat/completions", gateway.URL + "/openai/v1/chat/completions"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := []string{"-m", "m", "-u", c.url, "--request-count", "4", "--isl", "8", "--osl", "4",
				"--no-server-metrics", "--no-gpu-telemetry"}
			if c.custom != "" {
				args = append(args, "--custom-endpoint", c.custom)
			}
			r := profile(t, args...)
			if r.code != 0 || len(r.records) != 4 {
				t.Fatalf("exit %d, %d records; want 0 and 4\n%s", r.code, len(r.records), r.stderr)
			}
			for _, rec := range r.records {
				if rec.Error != nil {
					t.Fatalf("request failed: %+v", rec.Error)
				}
			}
			if n := strings.Count(r.stderr, "Sending requests to "+c.sentTo+"\""); n != 1 {
				t.Errorf("stderr names %q %d times, want once:\n%s", c.sentTo, n, r.stderr)
			}
		})
	}
	if n := wrongPath.Load(); n != 0 {
		t.Errorf("the gateway got %d requests outside /openai", n)
	}
}
