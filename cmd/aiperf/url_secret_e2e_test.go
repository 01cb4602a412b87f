package main

// End-to-end tests: a credential in the URL (userinfo password, api-key
// query parameter in --url or --custom-endpoint) reaches the server but no
// artifact, log or console line, on a successful and on a failing run.

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
)

const (
	urlQuerySecret = "SECRET123-query-9c1e"
	urlPassSecret  = "SECRET123-pass-4b7d"
)

// captureProxy forwards to target and records each request's query and
// basic-auth password, to show the real credentials were sent.
type captureProxy struct {
	mu        sync.Mutex
	queries   []string
	passwords []string
}

func startCaptureProxy(t *testing.T, target string) (string, *captureProxy) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	c := &captureProxy{}
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			_, pw, _ := r.BasicAuth()
			c.mu.Lock()
			c.queries = append(c.queries, r.URL.RawQuery)
			c.passwords = append(c.passwords, pw)
			c.mu.Unlock()
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, c
}

func TestProfileURLSecretsNeverLeak(t *testing.T) {
	mock := startMock(t, mockserver.Config{Fast: true})
	cases := []struct {
		name      string
		args      func(host string) []string
		wantQuery string
		wantPass  string
	}{
		{"url userinfo and query", func(host string) []string {
			return []string{"--url", "http://user:" + urlPassSecret + "@" + host + "/?api-key=" + urlQuerySecret}
		}, "api-key=" + urlQuerySecret, urlPassSecret},
		{"custom endpoint query", func(host string) []string {
			return []string{"--url", "http://" + host, "--custom-endpoint", "/v1/chat/completions?api-key=" + urlQuerySecret + "&sig=" + urlQuerySecret}
		}, "api-key=" + urlQuerySecret + "&sig=" + urlQuerySecret, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			proxy, got := startCaptureProxy(t, mock)
			host := strings.TrimPrefix(proxy, "http://")
			args := append([]string{"-m", "m", "--endpoint-type", "chat", "--request-count", "4", "--isl", "8", "--osl", "4", "-v"}, c.args(host)...)
			r := profile(t, args...)
			if r.code != 0 || len(r.records) != 4 {
				t.Fatalf("exit %d with %d records, want 0 and 4\n%s", r.code, len(r.records), r.stderr)
			}
			for _, rec := range r.records {
				if rec.Error != nil {
					t.Fatalf("request failed: %+v", rec.Error)
				}
			}
			got.mu.Lock()
			defer got.mu.Unlock()
			if len(got.queries) != 4 {
				t.Fatalf("the server saw %d chat requests, want 4", len(got.queries))
			}
			for i := range got.queries {
				if got.queries[i] != c.wantQuery || got.passwords[i] != c.wantPass {
					t.Errorf("request %d carried query %q password %q, want %q %q", i, got.queries[i], got.passwords[i], c.wantQuery, c.wantPass)
				}
			}
			if !strings.Contains(r.stdout+r.stderr, "api-key=<redacted>") {
				t.Errorf("the console does not show the redacted URL:\n%s", r.stdout)
			}
			checkNoSecret(t, r, urlQuerySecret)
			checkNoSecret(t, r, urlPassSecret)
		})
	}
}

func TestProfileURLSecretsNeverLeakOnErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := ln.Addr().String()
	ln.Close() // a closed port: every request fails to connect
	r := profile(t, "-m", "m", "--endpoint-type", "chat", "--request-count", "3", "--isl", "8", "-v",
		"--url", "http://user:"+urlPassSecret+"@"+host+"/?api-key="+urlQuerySecret,
		"--custom-endpoint", "/v1/chat/completions?token="+urlQuerySecret)
	if r.code == 0 || len(r.records) != 3 {
		t.Fatalf("exit %d with %d records, want a failure and 3 error records\n%s", r.code, len(r.records), r.stderr)
	}
	for _, rec := range r.records {
		if rec.Error == nil || !strings.Contains(rec.Error.Message, "refused") {
			t.Fatalf("record error = %+v, want connection refused", rec.Error)
		}
	}
	checkNoSecret(t, r, urlQuerySecret)
	checkNoSecret(t, r, urlPassSecret)
}
