package gate

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	junit "github.com/joshdk/go-junit"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// xsdSuites decodes a report strictly in the shape of the Jenkins/Ant JUnit
// schema (junit-10.xsd): testsuites > testsuite > testcase, with the
// attributes the schema requires.
type xsdSuites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    *int     `xml:"tests,attr"`
	Failures *int     `xml:"failures,attr"`
	Suites   []struct {
		Name     *string `xml:"name,attr"`
		Tests    *int    `xml:"tests,attr"`
		Failures *int    `xml:"failures,attr"`
		Errors   *int    `xml:"errors,attr"`
		Skipped  *int    `xml:"skipped,attr"`
		TimeAttr string  `xml:"time,attr"`
		Cases    []struct {
			Name      *string `xml:"name,attr"`
			Classname *string `xml:"classname,attr"`
			Time      string  `xml:"time,attr"`
			Failure   *struct {
				Message *string `xml:"message,attr"`
				Type    string  `xml:"type,attr"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func mustParse(t *testing.T, s string) []Threshold {
	t.Helper()
	ts, err := ParseThresholds([]string{s})
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// parseJUnit checks the report with a real JUnit parser and the schema's
// shape, and returns the parser's test cases by name.
func parseJUnit(t *testing.T, b []byte) map[string]junit.Test {
	t.Helper()
	suites, err := junit.Ingest(b)
	if err != nil {
		t.Fatalf("JUnit parser: %v\n%s", err, b)
	}
	if len(suites) != 1 || suites[0].Name != "aiperf" {
		t.Fatalf("suites %+v, want one named aiperf", suites)
	}
	var doc xsdSuites
	dec := xml.NewDecoder(bytes.NewReader(b))
	dec.Strict = true
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("strict XML: %v", err)
	}
	if len(doc.Suites) != 1 {
		t.Fatalf("%d testsuite elements", len(doc.Suites))
	}
	s := doc.Suites[0]
	if s.Name == nil || s.Tests == nil || s.Failures == nil || s.Errors == nil || s.Skipped == nil || s.TimeAttr == "" {
		t.Fatalf("testsuite lacks a required attribute: %s", b)
	}
	failures := 0
	for _, c := range s.Cases {
		if c.Name == nil || *c.Name == "" || c.Classname == nil || c.Time == "" {
			t.Errorf("testcase lacks name/classname/time: %s", b)
		}
		if c.Failure != nil {
			failures++
			if c.Failure.Message == nil || *c.Failure.Message == "" {
				t.Errorf("failure of %s has no message", *c.Name)
			}
		}
	}
	// The counts agree: the attributes, the elements and the parser.
	tot := suites[0].Totals
	if *s.Tests != len(s.Cases) || *s.Failures != failures || tot.Tests != len(s.Cases) || tot.Failed != failures ||
		*doc.Tests != *s.Tests || *doc.Failures != *s.Failures || tot.Skipped != *s.Skipped {
		t.Errorf("counts disagree: suite %d tests %d failures %d skipped; parser %+v; %d testcases, %d failures",
			*s.Tests, *s.Failures, *s.Skipped, tot, len(s.Cases), failures)
	}
	byName := map[string]junit.Test{}
	for _, c := range suites[0].Tests {
		byName[c.Name] = c
	}
	return byName
}

func f(v float64) *float64 { return &v }
func i(v int64) *int64     { return &v }

// results are a small run: 97 ok, 3 failed, TTFT p99 250 ms.
func results() *sdk.Results {
	return &sdk.Results{
		BenchmarkDurationS: 12.5,
		StartTime:          time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC),
		Metrics: []sdk.MetricResult{
			{Tag: "time_to_first_token", Header: "Time to First Token", Unit: "ms", Avg: f(120), Min: f(80), P50: f(110), P90: f(200), P99: f(250), Max: f(300), Count: i(97)},
			{Tag: "request_count", Header: "Request Count", Unit: "requests", Avg: f(97)},
			{Tag: "error_request_count", Header: "Error Request Count", Unit: "requests", Avg: f(3)},
			{Tag: "request_error_rate", Header: "Request Error Rate", Unit: "%", Avg: f(3)},
		},
		ErrorSummary: []sdk.ErrorCount{{ErrorDetails: sdk.ErrorDetails{Code: 500, Type: "Internal Server Error", Message: `{"error":"boom <&>"}`}, Count: 3}},
	}
}

func TestJUnitReport(t *testing.T) {
	res := results()
	ts := mustParse(t, "time_to_first_token:p99<200 request_error_rate:avg<5 time_to_second_token:avg<10")
	rep := &Report{Title: "aiperf profile: m (chat)", Results: res, Thresholds: Evaluate(ts, res), FailedRequestThreshold: f(0.5),
		ExitCode: 2, Verdict: "thresholds breached", Properties: [][2]string{{"model", "m"}}, Timestamp: res.StartTime}
	b, err := rep.JUnit()
	if err != nil {
		t.Fatal(err)
	}
	cases := parseJUnit(t, b)
	if len(cases) != 5 {
		t.Fatalf("%d test cases: %v", len(cases), cases)
	}
	want := map[string]struct {
		status junit.Status
		text   string
	}{
		"run completed":                  {junit.StatusPassed, ""},
		"--failed-request-threshold 0.5": {junit.StatusPassed, ""},
		"time_to_first_token:p99<200":    {junit.StatusFailed, "time_to_first_token:p99 = 250 ms, want < 200"},
		"request_error_rate:avg<5":       {junit.StatusPassed, ""},
		"time_to_second_token:avg<10":    {junit.StatusFailed, "could not be measured: no value in this run's results"},
	}
	for name, w := range want {
		c, ok := cases[name]
		if !ok {
			t.Errorf("no test case %q", name)
			continue
		}
		if c.Status != w.status || (w.text != "" && !strings.Contains(c.Message, w.text)) {
			t.Errorf("%s: status %s message %q, want %s with %q", name, c.Status, c.Message, w.status, w.text)
		}
	}
	if c := cases["request_error_rate:avg<5"]; c.SystemOut != "measured 3 %" || c.Classname != ClassThreshold {
		t.Errorf("passing threshold: %+v", c)
	}
	if c := cases["run completed"]; c.Duration != 12500*time.Millisecond || !strings.Contains(c.SystemOut, "97 requests succeeded, 3 failed") {
		t.Errorf("run test case: %+v", c)
	}
}

func TestJUnitReportOfAbortsAndFailures(t *testing.T) {
	res := results()
	abort := &Abort{Flag: "--failed-request-threshold", Limit: 0.1, Errors: 6, Records: 10, Floor: 10}
	b, err := (&Report{Results: res, FailedRequestThreshold: f(0.1), Abort: abort, Cancelled: true, ExitCode: 3}).JUnit()
	if err != nil {
		t.Fatal(err)
	}
	cases := parseJUnit(t, b)
	c := cases["--failed-request-threshold 0.1"]
	if c.Status != junit.StatusFailed || c.Message != "--failed-request-threshold exceeded: 6/10 = 0.600 > 0.100 (grace floor 10); the run was stopped" {
		t.Errorf("failed-request test case %+v", c)
	}
	// The error summary is the failure's text, escaped by the encoder.
	if !strings.Contains(c.Error.Error(), `3 x 500 Internal Server Error: {"error":"boom <&>"}`) {
		t.Errorf("failure text %q", c.Error)
	}
	// Stopped by the gate, not by a signal: the run case is not skipped.
	if c := cases["run completed"]; c.Status != junit.StatusPassed {
		t.Errorf("run case %+v", c)
	}

	// Ctrl-C: the run case is skipped; an unset failed-request threshold
	// is skipped too.
	b, _ = (&Report{Results: res, Cancelled: true}).JUnit()
	cases = parseJUnit(t, b)
	if cases["run completed"].Status != junit.StatusSkipped || cases["--failed-request-threshold"].Status != junit.StatusSkipped {
		t.Errorf("cancelled run: %+v", cases)
	}

	// Every request failed.
	all := &sdk.Results{Metrics: []sdk.MetricResult{{Tag: "error_request_count", Unit: "requests", Avg: f(5)}}}
	b, _ = (&Report{Results: all, AllFailed: true, ExitCode: 3}).JUnit()
	cases = parseJUnit(t, b)
	if c := cases["run completed"]; c.Status != junit.StatusFailed || c.Message != "every request failed (5 of 5)" {
		t.Errorf("all failed: %+v", c)
	}
}

func TestWriteJUnitCreatesItsDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "reports", "ci", "aiperf.xml")
	if err := (&Report{Results: results()}).WriteJUnit(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	parseJUnit(t, b)
}

func TestMarkdownSummary(t *testing.T) {
	res := results()
	ts := mustParse(t, "time_to_first_token:p99<200 request_error_rate:avg<5")
	rep := &Report{Title: "aiperf profile: m (chat)", Results: res, Thresholds: Evaluate(ts, res), FailedRequestThreshold: f(0.5),
		ExitCode: 2, Verdict: "thresholds breached", Properties: [][2]string{{"model", "m"}}}
	path := filepath.Join(t.TempDir(), "summary.md")
	// $GITHUB_STEP_SUMMARY may already hold an earlier step's summary.
	if err := os.WriteFile(path, []byte("earlier\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := rep.AppendMarkdown(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	for _, want := range []string{
		"earlier\n### ❌ aiperf profile: m (chat): thresholds breached (exit 2)\n",
		"97 requests succeeded, 3 failed · 12.50 s · model `m`",
		"| Metric | Unit | avg | min | p50 | p90 | p99 | max |\n|---|---|---:|---:|---:|---:|---:|---:|\n",
		"| Time to First Token | ms | 120 | 80 | 110 | 200 | 250 | 300 |\n",
		"| Request Error Rate | % | 3 |  |  |  |  |  |\n",
		"| `--failed-request-threshold 0.5` | 3/100 = 0.03 | ✅ pass |\n",
		"| `time_to_first_token:p99<200` | 250 ms | ❌ breached |\n",
		"| `request_error_rate:avg<5` | 3 % | ✅ pass |\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
}
