package main

// End-to-end tests of the CI gate (issue 14): --threshold, AIPerf's
// --failed-request-threshold, --abort-on-threshold-breach, the exit codes
// and the JUnit and Markdown reports, against the real mock server.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	junit "github.com/joshdk/go-junit"

	"github.com/aiperf-go/aiperf/core/app"
	"github.com/aiperf-go/aiperf/mockserver"
)

// junitCases parses a JUnit report with a real JUnit parser and returns its
// test cases by name; it fails unless there is exactly one suite "aiperf".
func junitCases(t *testing.T, path string) map[string]junit.Test {
	t.Helper()
	suites, err := junit.IngestFile(path)
	if err != nil {
		t.Fatalf("JUnit report %s: %v", path, err)
	}
	if len(suites) != 1 || suites[0].Name != "aiperf" {
		t.Fatalf("JUnit suites %+v, want one named aiperf", suites)
	}
	out := map[string]junit.Test{}
	for _, c := range suites[0].Tests {
		out[c.Name] = c
	}
	return out
}

func TestProfileThresholdsPassAndFail(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	// Thresholds on values the run fixes (8 requests of exactly 8 output
	// tokens), so the verdict does not depend on timing.
	base := []string{"-m", "m", "-u", url, "--streaming", "--request-count", "8", "--concurrency", "2", "--isl", "16", "--osl", "8",
		"--extra-inputs", "ignore_eos:true"}
	tests := []struct {
		name       string
		thresholds []string
		code       int
		failed     map[string]string // breached threshold -> part of its JUnit message
		passed     []string
	}{
		{"every threshold passes", []string{"output_sequence_length:avg>=8 request_count:avg>=8", "request_error_rate:avg<1", "time_to_first_token:p99>0"},
			app.ExitOK, nil, []string{"output_sequence_length:avg>=8", "request_count:avg>=8", "request_error_rate:avg<1", "time_to_first_token:p99>0"}},
		{"two thresholds breached", []string{"output_sequence_length:max<8", "request_count:avg>=8 time_to_first_token:min<0"},
			app.ExitThresholds, map[string]string{
				"output_sequence_length:max<8": "output_sequence_length:max = 8 tokens, want < 8",
				"time_to_first_token:min<0":    "time_to_first_token:min = ",
			}, []string{"request_count:avg>=8"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			report := filepath.Join(t.TempDir(), "ci", "junit.xml")
			summary := filepath.Join(t.TempDir(), "summary.md")
			args := append([]string{}, base...)
			for _, th := range tc.thresholds {
				args = append(args, "--threshold", th)
			}
			// A breach leaves the run whole: --generate-plots still draws it.
			r := profile(t, append(args, "--junit", report, "--markdown-summary", summary, "--generate-plots")...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", r.code, tc.code, r.stdout, r.stderr)
			}
			// The run itself is complete and exported either way.
			if len(r.records) != 8 || r.summary == nil {
				t.Fatalf("%d records, summary %v", len(r.records), r.summary != nil)
			}
			cases := junitCases(t, report)
			if len(cases) != 2+len(tc.failed)+len(tc.passed) {
				t.Errorf("%d test cases, want %d: %v", len(cases), 2+len(tc.failed)+len(tc.passed), cases)
			}
			if c := cases["run completed"]; c.Status != junit.StatusPassed {
				t.Errorf("run completed: %+v", c)
			}
			if c := cases["--failed-request-threshold"]; c.Status != junit.StatusSkipped {
				t.Errorf("unset failed-request threshold: %+v", c)
			}
			for _, name := range tc.passed {
				if c := cases[name]; c.Status != junit.StatusPassed || !strings.HasPrefix(c.SystemOut, "measured ") {
					t.Errorf("%s: %+v", name, c)
				}
			}
			for name, msg := range tc.failed {
				c := cases[name]
				if c.Status != junit.StatusFailed || !strings.Contains(c.Message, msg) {
					t.Errorf("%s: status %s message %q, want a failure with %q", name, c.Status, c.Message, msg)
				}
				if !strings.Contains(r.stderr, name+": measured ") || !strings.Contains(r.stdout, "FAIL "+name) {
					t.Errorf("%s is not reported on stderr/stdout:\n%s\n%s", name, r.stderr, r.stdout)
				}
			}
			md, err := os.ReadFile(summary)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(md), "| Output Sequence Length | tokens | 8 | 8 | 8 | 8 | 8 | 8 |") ||
				!strings.Contains(string(md), fmt.Sprintf("(exit %d)", tc.code)) {
				t.Errorf("markdown summary:\n%s", md)
			}
			if _, err := os.Stat(filepath.Join(r.dir, "plots", "report.html")); err != nil {
				t.Errorf("--generate-plots: %v", err)
			}
			if !strings.Contains(r.stdout, "JUnit Report: "+report) {
				t.Errorf("footer does not list the JUnit report:\n%s", r.stdout)
			}
		})
	}
}

func TestProfileBadThresholdsSendNothing(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true})
	cases := []struct {
		args []string
		want string
	}{
		// Syntax: the flag and the bad token are named, before loading anything.
		{[]string{"--threshold", "time_to_first_token<200"}, `--threshold "time_to_first_token<200": no ':' between the metric and its statistic`},
		{[]string{"--threshold", "request_latency:p50<1 request_latency:p42<1"}, `--threshold "request_latency:p42<1": unknown statistic "p42"`},
		{[]string{"--failed-request-threshold", "2"}, "--failed-request-threshold must be a ratio between 0 and 1 (got 2)"},
		// Metrics: checked against the run's catalog before the first request.
		{[]string{"--threshold", "no_such_metric:avg<1"}, `--threshold "no_such_metric:avg<1": unknown metric "no_such_metric"`},
		{[]string{"--threshold", "request_throughput:p99>1"}, `--threshold "request_throughput:p99>1": request_throughput has no "p99" statistic; it has: avg`},
		{[]string{"--threshold", "time_to_first_token:p99<200"}, "time_to_first_token does not apply to this run"}, // not streaming
	}
	for _, c := range cases {
		report := filepath.Join(t.TempDir(), "junit.xml")
		args := append([]string{"-m", "m", "-u", url, "--request-count", "3", "--junit", report}, c.args...)
		r := profile(t, args...)
		if r.code != app.ExitBadInput {
			t.Errorf("%v: exit %d, want %d (bad input)", c.args, r.code, app.ExitBadInput)
		}
		if !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: stderr does not say %q:\n%s", c.args, c.want, r.stderr)
		}
		if len(r.records) != 0 || r.summary != nil {
			t.Errorf("%v: a bad threshold still produced results", c.args)
		}
		if _, err := os.Stat(report); err == nil {
			t.Errorf("%v: a JUnit report was written for a run that never started", c.args)
		}
	}
	if body := httpGet(t, url+"/metrics"); strings.Contains(body, "vllm:prompt_tokens_total{") {
		t.Errorf("requests reached the server despite bad thresholds:\n%s", grepLines(body, "total"))
	}
}

func TestProfileFailedRequestThresholdStopsTheRun(t *testing.T) {
	// Half the requests fail: the ratio passes 0.2 soon after the grace
	// floor of max(concurrency, 10) records, long before 400 requests.
	url := startMock(t, mockserver.Config{TTFT: 2 * time.Millisecond, ITL: time.Millisecond, ErrorRate: 50, RandomSeed: 7})
	report := filepath.Join(t.TempDir(), "junit.xml")
	r := profile(t, "-m", "m", "-u", url, "--streaming", "--request-count", "400", "--concurrency", "2", "--isl", "16", "--osl", "8",
		"--failed-request-threshold", "0.2", "--junit", report)
	if r.code != app.ExitFailedRequests {
		t.Fatalf("exit %d, want %d\n%s", r.code, app.ExitFailedRequests, r.stderr)
	}
	if !strings.Contains(r.stderr, "--failed-request-threshold exceeded: ") {
		t.Errorf("stderr does not say why:\n%s", r.stderr)
	}
	// Fewer requests than asked for, but at least the grace floor, and
	// every result file is still written (partial results).
	if n := len(r.records); n < 10 || n >= 400 {
		t.Errorf("%d records, want the run stopped between 10 and 400", n)
	}
	if r.summary == nil {
		t.Fatal("no profile_export_aiperf.json after the abort")
	}
	var cancelled bool
	if err := json.Unmarshal(r.summary["was_cancelled"], &cancelled); err != nil || !cancelled {
		t.Errorf("was_cancelled = %s", r.summary["was_cancelled"])
	}
	var ready struct {
		Ready        bool `json:"ready"`
		WasCancelled bool `json:"was_cancelled"`
	}
	if b, err := os.ReadFile(filepath.Join(r.dir, app.ResultsReadyFile)); err != nil || json.Unmarshal(b, &ready) != nil || !ready.Ready || !ready.WasCancelled {
		t.Errorf("%s: %+v (%v)", app.ResultsReadyFile, ready, err)
	}
	cases := junitCases(t, report)
	if c := cases["--failed-request-threshold 0.2"]; c.Status != junit.StatusFailed || !strings.HasPrefix(c.Message, "--failed-request-threshold exceeded: ") ||
		c.Error == nil || !strings.Contains(c.Error.Error(), "500 Internal Server Error") {
		t.Errorf("failed-request test case: %+v", c)
	}
}

func TestProfileFailedRequestThresholdGraceFloor(t *testing.T) {
	// Eight requests never reach AIPerf's floor of 10 records: the check is
	// never armed, whatever fails, and the run completes.
	url := startMock(t, mockserver.Config{Fast: true, ErrorRate: 50, RandomSeed: 7})
	report := filepath.Join(t.TempDir(), "junit.xml")
	r := profile(t, "-m", "m", "-u", url, "--request-count", "8", "--isl", "8", "--failed-request-threshold", "0", "--junit", report)
	failed := 0
	for _, rec := range r.records {
		if rec.Error != nil {
			failed++
		}
	}
	if r.code != app.ExitOK || len(r.records) != 8 || failed == 0 || failed == 8 {
		t.Fatalf("exit %d with %d records, %d failed; want 0 with 8 records, some failed\n%s", r.code, len(r.records), failed, r.stderr)
	}
	if c := junitCases(t, report)["--failed-request-threshold 0"]; c.Status != junit.StatusPassed {
		t.Errorf("failed-request test case: %+v", c)
	}
}

func TestProfileAbortOnThresholdBreach(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 2 * time.Millisecond, ITL: time.Millisecond, ErrorRate: 50, RandomSeed: 7})
	r := profile(t, "-m", "m", "-u", url, "--streaming", "--request-count", "400", "--concurrency", "2", "--isl", "16", "--osl", "8",
		"--threshold", "error_request_count:avg<3", "--abort-on-threshold-breach")
	if r.code != app.ExitThresholds {
		t.Fatalf("exit %d, want %d\n%s", r.code, app.ExitThresholds, r.stderr)
	}
	if n := len(r.records); n < 3 || n >= 400 {
		t.Errorf("%d records, want the run stopped at the third failure", n)
	}
	if !strings.Contains(r.stderr, "--abort-on-threshold-breach: threshold error_request_count:avg<3 breached during the run") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}
