package config

import (
	"fmt"
	"slices"
	"strings"
)

// Server metrics options (issue 12).
const (
	keyServerMetrics        = "server_metrics"
	keyNoServerMetrics      = "no_server_metrics"
	keyServerMetricsFormats = "server_metrics_formats"
)

// serverMetricsFormats are AIPerf's --server-metrics-formats choices.
var serverMetricsFormats = []string{"json", "csv", "jsonl", "parquet"}

// ServerMetricsURLs are the Prometheus endpoints to scrape, as AIPerf 0.13
// picks them: every --url base with /metrics, then each --server-metrics
// URL (http:// and /metrics added when missing), duplicates dropped; nil
// with --no-server-metrics.
func (c *RunConfig) ServerMetricsURLs() []string {
	if c.NoServerMetrics {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	add := func(u string) {
		u = strings.TrimRight(normalizeURL(u), "/")
		if !strings.HasSuffix(u, "/metrics") {
			u += "/metrics"
		}
		if !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	for _, u := range c.URLs() {
		add(u)
	}
	for _, u := range c.ServerMetrics {
		if strings.TrimSpace(u) != "" {
			add(u)
		}
	}
	return out
}

// validateServerMetrics checks --server-metrics-formats and the
// --server-metrics URLs.
func (c *RunConfig) validateServerMetrics() []error {
	var errs []error
	for _, f := range c.ServerMetricsFormats {
		if !slices.Contains(serverMetricsFormats, f) {
			errs = append(errs, fmt.Errorf("--server-metrics-formats %q is not one of %s", f, strings.Join(serverMetricsFormats, ", ")))
		}
	}
	if c.NoServerMetrics {
		return errs
	}
	for _, u := range c.ServerMetrics {
		if strings.TrimSpace(u) == "" {
			continue // bare --server-metrics: the defaults
		}
		if err := checkURL(normalizeURL(u)); err != nil {
			errs = append(errs, fmt.Errorf("--server-metrics %q is not valid: %v", redactURL(u), err))
		}
	}
	return errs
}
