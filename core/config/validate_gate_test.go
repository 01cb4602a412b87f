package config

import (
	"slices"
	"strings"
	"testing"
)

func TestValidateGateErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string // exact line expected in the joined error
	}{
		{"threshold without stat", []string{"--threshold", "time_to_first_token<200"},
			`--threshold "time_to_first_token<200": no ':' between the metric and its statistic; want metric:stat<value with <, <=, > or >=, e.g. "time_to_first_token:p99<200"`},
		{"unknown stat", []string{"--threshold", "request_latency:p98<5"},
			`--threshold "request_latency:p98<5": unknown statistic "p98"; choose one of avg, min, max, p1, p5, p10, p25, p50, p75, p90, p95, p99, std, count, sum`},
		{"bad value in a list", []string{"--threshold", "request_latency:p50<5 time_to_first_token:p99<fast"},
			`--threshold "time_to_first_token:p99<fast": value "fast" is not a finite number; want metric:stat<value with <, <=, > or >=, e.g. "time_to_first_token:p99<200"`},
		{"ratio above 1", []string{"--failed-request-threshold", "1.5"},
			"--failed-request-threshold must be a ratio between 0 and 1 (got 1.5)"},
		{"ratio below 0", []string{"--failed-request-threshold", "-0.1"},
			"--failed-request-threshold must be a ratio between 0 and 1 (got -0.1)"},
		{"abort without a live threshold", []string{"--abort-on-threshold-breach", "--threshold", "time_to_first_token:p99<200"},
			`--abort-on-threshold-breach needs a --threshold it can check while the run executes: an upper bound (< or <=) on error_request_count:avg or request_error_rate:avg, e.g. "request_error_rate:avg<5"`},
		{"abort alone", []string{"--abort-on-threshold-breach"},
			`--abort-on-threshold-breach needs a --threshold it can check while the run executes: an upper bound (< or <=) on error_request_count:avg or request_error_rate:avg, e.g. "request_error_rate:avg<5"`},
		{"junit is a directory", []string{"--junit", dir}, `--junit "` + dir + `" is a directory; give a file path`},
		{"summary is a directory", []string{"--markdown-summary", dir}, `--markdown-summary "` + dir + `" is a directory; give a file path`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _ := load(t, nil, append([]string{"-m", "m", "--ui", "none"}, tt.args...)...)
			err := cfg.Validate(testChoices)
			if err == nil {
				t.Fatalf("Validate succeeded, want %q", tt.want)
			}
			if lines := strings.Split(err.Error(), "\n"); !slices.Contains(lines, tt.want) {
				t.Errorf("error lines %q\nwant line %q", lines, tt.want)
			}
		})
	}
}

func TestGateOptionsFromEveryLayer(t *testing.T) {
	// Flags: repeated, several in one value, and AIPerf's multi-word form.
	args := ExpandMultiValueArgs([]string{"-m", "m", "--ui", "none", "--threshold", "time_to_first_token:p99<200", "request_latency:p50<5",
		"--threshold", "request_error_rate:avg<1 error_request_count:avg<=3", "--failed-request-threshold", "0.25",
		"--abort-on-threshold-breach", "--junit", "out/junit.xml", "--markdown-summary", "summary.md"})
	cfg, _ := load(t, nil, args...)
	if err := cfg.Validate(testChoices); err != nil {
		t.Fatal(err)
	}
	want := []string{"time_to_first_token:p99<200", "request_latency:p50<5", "request_error_rate:avg<1 error_request_count:avg<=3"}
	if !slices.Equal(cfg.Thresholds, want) || cfg.FailedRequestThreshold == nil || *cfg.FailedRequestThreshold != 0.25 ||
		!cfg.AbortOnThresholdBreach || cfg.JUnitFile != "out/junit.xml" || cfg.MarkdownSummary != "summary.md" {
		t.Errorf("flags: %q %v %v %q %q", cfg.Thresholds, cfg.FailedRequestThreshold, cfg.AbortOnThresholdBreach, cfg.JUnitFile, cfg.MarkdownSummary)
	}

	// A config file (AIPerf's key for the ratio) and the environment.
	file := writeFile(t, "gate.yaml", "model_names: [m]\nfailed_request_threshold: 0.05\nthreshold:\n  - time_to_first_token:p99<200\n  - request_error_rate:avg<1\njunit: ci.xml\n")
	cfg, _ = load(t, []string{"AIPERF_MARKDOWN_SUMMARY=s.md"}, "--config", file, "--ui", "none")
	if err := cfg.Validate(testChoices); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Thresholds, []string{"time_to_first_token:p99<200", "request_error_rate:avg<1"}) ||
		cfg.FailedRequestThreshold == nil || *cfg.FailedRequestThreshold != 0.05 || cfg.JUnitFile != "ci.xml" || cfg.MarkdownSummary != "s.md" {
		t.Errorf("file/env: %q %v %q %q", cfg.Thresholds, cfg.FailedRequestThreshold, cfg.JUnitFile, cfg.MarkdownSummary)
	}

	// Unset: nothing to gate on.
	cfg, _ = load(t, nil, "-m", "m", "--ui", "none")
	if cfg.Thresholds != nil || cfg.FailedRequestThreshold != nil || cfg.AbortOnThresholdBreach || cfg.JUnitFile != "" {
		t.Errorf("defaults: %+v", cfg)
	}
}
