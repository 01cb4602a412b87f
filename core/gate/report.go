package gate

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aiperf-go/aiperf/core/metrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Report is what the CI reports say about one run.
type Report struct {
	// Title names the run, e.g. "aiperf profile: m (chat)".
	Title   string
	Results *sdk.Results
	// Thresholds are the evaluated --threshold expressions.
	Thresholds []Outcome
	// FailedRequestThreshold is --failed-request-threshold (nil: unset).
	FailedRequestThreshold *float64
	// Abort is why a watch stopped the run early (nil: it did not).
	Abort *Abort
	// Cancelled: the run was cancelled (Ctrl-C, or an abort).
	Cancelled bool
	// AllFailed: requests were attempted and every one failed.
	AllFailed bool
	// ExitCode and Verdict are the run's exit status and its meaning.
	ExitCode int
	Verdict  string
	// Properties are shown as JUnit properties and under the title, in
	// order (model, endpoint type, artifact directory, ...).
	Properties [][2]string
	// Timestamp is when the run started (zero: unknown).
	Timestamp time.Time
}

// counts returns the successful and failed request counts of the results.
func (r *Report) counts() (ok, failed int64) {
	if r.Results == nil {
		return 0, 0
	}
	read := func(tag string) int64 {
		if m, found := r.Results.Metric(tag); found && m.Avg != nil {
			return int64(math.Round(*m.Avg))
		}
		return 0
	}
	return read(metrics.TagRequestCount), read(metrics.TagErrorRequestCount)
}

// durationS is the benchmark duration in seconds (0 unknown).
func (r *Report) durationS() float64 {
	if r.Results == nil {
		return 0
	}
	return r.Results.BenchmarkDurationS
}

// JUnit XML, in the shape of the Jenkins/Ant JUnit schema (junit-10.xsd)
// that CI systems read: <testsuites> holding one <testsuite name="aiperf">.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Hostname   string          `xml:"hostname,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
	SystemOut  string          `xml:"system-out,omitempty"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// JUnit test case class names.
const (
	ClassRun            = "aiperf.run"
	ClassFailedRequests = "aiperf.failed_requests"
	ClassThreshold      = "aiperf.threshold"
)

// JUnit renders the report as JUnit XML: one test suite "aiperf" with a
// test case "run completed" (failed when every request failed, skipped when
// the run was cancelled by a signal), one for --failed-request-threshold
// (failed when it stopped the run, skipped when unset) and one per
// threshold (failed on a breach or a missing value, with the measured
// value). A failure in the file always means a non-zero exit status.
func (r *Report) JUnit() ([]byte, error) {
	ok, failed := r.counts()
	secs := fmtSeconds(r.durationS())
	var cases []junitCase

	run := junitCase{Name: "run completed", Classname: ClassRun, Time: secs,
		SystemOut: fmt.Sprintf("%d requests succeeded, %d failed; exit status %d (%s)", ok, failed, r.ExitCode, r.Verdict)}
	switch {
	case r.AllFailed:
		run.Failure = &junitMessage{Type: "AllRequestsFailed", Message: fmt.Sprintf("every request failed (%d of %d)", failed, ok+failed),
			Text: errorLines(r.Results)}
	case r.Cancelled && r.Abort == nil:
		run.Skipped = &junitMessage{Message: "the run was cancelled before it finished; results are partial"}
	}
	cases = append(cases, run)

	frt := junitCase{Name: "--failed-request-threshold", Classname: ClassFailedRequests, Time: "0"}
	switch {
	case r.FailedRequestThreshold == nil:
		frt.Skipped = &junitMessage{Message: "--failed-request-threshold is not set"}
	default:
		frt.Name += " " + strconv.FormatFloat(*r.FailedRequestThreshold, 'g', -1, 64)
		if a := r.Abort; a != nil && a.Threshold == nil {
			frt.Failure = &junitMessage{Type: "FailedRequestThresholdExceeded", Message: a.Error(), Text: errorLines(r.Results)}
		} else {
			frt.SystemOut = fmt.Sprintf("not exceeded: %d of %d requests failed", failed, ok+failed)
		}
	}
	cases = append(cases, frt)

	for _, o := range r.Thresholds {
		c := junitCase{Name: o.Threshold.String(), Classname: ClassThreshold, Time: "0", SystemOut: measuredText(o)}
		if !o.Passed {
			c.Failure = &junitMessage{Type: "ThresholdBreached", Message: breachText(o)}
		}
		cases = append(cases, c)
	}

	suite := junitSuite{Name: "aiperf", Tests: len(cases), Time: secs, Cases: cases}
	if !r.Timestamp.IsZero() {
		suite.Timestamp = r.Timestamp.UTC().Format("2006-01-02T15:04:05")
	}
	if h, err := os.Hostname(); err == nil {
		suite.Hostname = h
	}
	for _, p := range r.Properties {
		suite.Properties = append(suite.Properties, junitProperty{Name: p[0], Value: p[1]})
	}
	for _, c := range cases {
		switch {
		case c.Failure != nil:
			suite.Failures++
		case c.Skipped != nil:
			suite.Skipped++
		}
	}
	doc := junitSuites{Name: "aiperf", Tests: suite.Tests, Failures: suite.Failures, Skipped: suite.Skipped, Time: secs,
		Suites: []junitSuite{suite}}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encode JUnit XML: %w", err)
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// WriteJUnit writes the JUnit report to path (replacing it), creating its
// directory.
func (r *Report) WriteJUnit(path string) error {
	b, err := r.JUnit()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("--junit %s: %w", path, err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("--junit: %w", err)
	}
	return nil
}

// errorLines lists the error summary, one "count x code type: message" a
// line, for a failure's text.
func errorLines(res *sdk.Results) string {
	if res == nil {
		return ""
	}
	var b strings.Builder
	for _, e := range res.ErrorSummary {
		d := e.ErrorDetails
		fmt.Fprintf(&b, "%d x %d %s: %s\n", e.Count, d.Code, d.Type, clip(strings.TrimSpace(d.Message), 300))
	}
	return b.String()
}

// clip shortens s to at most n bytes (a whole HTML error page is no use in
// a report), on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// measuredText is "measured 12.3 ms" or why nothing was measured.
func measuredText(o Outcome) string {
	if !o.Measurable {
		return "not measured: " + o.Note
	}
	s := "measured " + fmtValue(o.Measured, o.Unit)
	if o.Note != "" {
		s += " (" + o.Note + ")"
	}
	return s
}

// breachText is a failed threshold's one-line message.
func breachText(o Outcome) string {
	if !o.Measurable {
		return fmt.Sprintf("%s:%s could not be measured: %s; want %s %s", o.Metric, o.Stat, o.Note, o.Op, fmtNumber(o.Value))
	}
	msg := fmt.Sprintf("%s:%s = %s, want %s %s", o.Metric, o.Stat, fmtValue(o.Measured, o.Unit), o.Op, fmtNumber(o.Value))
	if o.Note != "" {
		msg += " (" + o.Note + ")"
	}
	return msg
}

// fmtValue is a number and its unit.
func fmtValue(v float64, unit string) string {
	if unit == "" {
		return fmtNumber(v)
	}
	return fmtNumber(v) + " " + unit
}

// fmtNumber prints up to 4 decimals without trailing zeros, +inf as "inf".
func fmtNumber(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(v, 'f', 4, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

func fmtSeconds(s float64) string { return strconv.FormatFloat(s, 'f', 3, 64) }
