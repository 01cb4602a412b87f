package config

import (
	"math"
	"os"
	"slices"

	"github.com/aiperf-go/aiperf/core/gate"
)

// validateGate checks the CI gate's options (issue 14): the --threshold
// syntax (which metrics exist is checked against the run's metric catalog
// before the first request), the --failed-request-threshold ratio (AIPerf's
// ge=0, le=1), --abort-on-threshold-breach having a threshold it can watch,
// and report paths that are not directories.
func (c *RunConfig) validateGate(add func(string, ...any)) {
	ts, err := gate.ParseThresholds(c.Thresholds)
	if err != nil {
		add("--threshold %v", err)
	}
	if v := c.FailedRequestThreshold; v != nil && (math.IsNaN(*v) || *v < 0 || *v > 1) {
		add("--failed-request-threshold must be a ratio between 0 and 1 (got %v)", *v)
	}
	if c.AbortOnThresholdBreach && err == nil && !slices.ContainsFunc(ts, gate.Live) {
		add("--abort-on-threshold-breach needs a --threshold it can check while the run executes: an upper bound (< or <=) on error_request_count:avg or request_error_rate:avg, e.g. \"request_error_rate:avg<5\"")
	}
	for _, f := range []struct{ flag, path string }{{"--junit", c.JUnitFile}, {"--markdown-summary", c.MarkdownSummary}} {
		if f.path == "" {
			continue
		}
		if st, err := os.Stat(f.path); err == nil && st.IsDir() {
			add("%s %q is a directory; give a file path", f.flag, f.path)
		}
	}
}
