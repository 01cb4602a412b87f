package prometheus

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestNormalizeURL(t *testing.T) {
	for in, want := range map[string]string{
		"node1:8081":            "http://node1:8081/metrics",
		"http://h:9090/metrics": "http://h:9090/metrics",
		"https://h/api/":        "https://h/api/metrics",
		" http://h:8000 ":       "http://h:8000/metrics",
	} {
		if got := NormalizeURL(in); got != want {
			t.Errorf("NormalizeURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestScrape(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		w.Write([]byte("# TYPE up gauge\nup 1\n"))
	}))
	defer srv.Close()
	c := New()
	c.cfg.URL = srv.URL
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	sc, err := c.Scrape(context.Background())
	if err != nil || string(sc.Body) != "# TYPE up gauge\nup 1\n" || !strings.HasPrefix(sc.ContentType, "text/plain") {
		t.Fatalf("scrape = %q %q %v", sc.Body, sc.ContentType, err)
	}
	c.cfg.URL = srv.URL + "/missing/metrics"
	if _, err := c.Scrape(context.Background()); err == nil || !strings.Contains(err.Error(), "HTTP 404") || !strings.Contains(err.Error(), srv.URL) {
		t.Errorf("404 scrape error = %v, want HTTP 404 naming the URL", err)
	}
}

func TestSourceHidesCredentials(t *testing.T) {
	c := NewForURL("http://user:secret@h:8000")
	if got := c.Source(); strings.Contains(got, "secret") || got != "http://h:8000/metrics" {
		t.Errorf("Source() = %q", got)
	}
	c = New()
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), `"url"`) {
		t.Errorf("empty url error = %v", err)
	}
}
