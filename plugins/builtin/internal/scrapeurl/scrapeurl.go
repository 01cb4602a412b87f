// Package scrapeurl is what the built-in scraping collectors (dcgm,
// prometheus) share: their settings (the source URL the core hands each
// collector, and a timeout), AIPerf's URL normalization, and the URL as it
// may be shown (credentials removed: it reaches exports and logs).
package scrapeurl

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/core/redact"
)

// Config is a scraping collector's settings.
type Config struct {
	URL string `json:"url"`
	// TimeoutMs bounds one scrape (0: the collector's default).
	TimeoutMs int `json:"timeout_ms"`
}

// Normalize is AIPerf's metrics URL normalization (_normalize_dcgm_url,
// normalize_metrics_endpoint_url): http:// when no scheme is given,
// /metrics appended unless the URL already ends in it.
func Normalize(raw string) string {
	u := strings.TrimSpace(raw)
	if !strings.Contains(u, "://") {
		u = "http://" + u
	}
	u = strings.TrimRight(u, "/")
	if !strings.HasSuffix(u, "/metrics") {
		u += "/metrics"
	}
	return u
}

// Check normalizes the URL and refuses an empty or non-http(s) one, or a
// negative timeout; plugin ("category.name") and example go in the errors.
func (c *Config) Check(plugin, example string) error {
	if strings.TrimSpace(c.URL) == "" {
		return fmt.Errorf("%s: setting \"url\" is empty (want a URL such as %s)", plugin, example)
	}
	c.URL = Normalize(c.URL)
	u, err := url.Parse(c.URL)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("%s: setting \"url\" %q is not an http(s) URL", plugin, Display(c.URL))
	}
	if c.TimeoutMs < 0 {
		return fmt.Errorf("%s: setting \"timeout_ms\" must be >= 0, got %d", plugin, c.TimeoutMs)
	}
	return nil
}

// Client is an HTTP client bounded by the configured timeout, or def.
func (c Config) Client(def time.Duration) *http.Client {
	timeout := def
	if c.TimeoutMs > 0 {
		timeout = time.Duration(c.TimeoutMs) * time.Millisecond
	}
	return &http.Client{Timeout: timeout}
}

// Display is raw without user credentials or credential query parameter
// values (core/redact.URL), for source names, exports and messages.
func Display(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if strings.Contains(raw, "@") {
			return "<unparsable URL>"
		}
		return redact.URL(raw)
	}
	if u.User == nil {
		return redact.URL(raw)
	}
	u.User = nil
	return redact.URL(u.String())
}
