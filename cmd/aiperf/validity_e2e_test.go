package main

// End-to-end tests of the run-validity verdict (issue 14, core/validity):
// validity.json, the console block and --fail-on-client-limited, against
// the real mock server.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/app"
	"github.com/aiperf-go/aiperf/core/validity"
	"github.com/aiperf-go/aiperf/mockserver"
)

// readValidity parses the run's validity.json.
func readValidity(t *testing.T, r *profileRun) *validity.Report {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(r.dir, validity.FileName))
	if err != nil {
		t.Fatalf("validity.json: %v\n%s\n%s", err, r.stdout, r.stderr)
	}
	var doc struct {
		Validity *validity.Report `json:"validity"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || doc.Validity == nil {
		t.Fatalf("validity.json does not parse (%v):\n%s", err, data)
	}
	return doc.Validity
}

// checkCorrected asserts the coordinated-omission correction covers TTFT
// and latency and never lowers a percentile: each corrected value is the
// measured one plus a lag that is not negative.
func checkCorrected(t *testing.T, v *validity.Report) {
	t.Helper()
	if len(v.Corrected) != 2 {
		t.Fatalf("coordinated_omission %+v, want TTFT and request latency", v.Corrected)
	}
	for _, c := range v.Corrected {
		m, k := c.Measured, c.Corrected
		if m.P50 <= 0 || k.P50 < m.P50 || k.P90 < m.P90 || k.P99 < m.P99 {
			t.Errorf("%s: corrected %+v below measured %+v", c.Tag, k, m)
		}
	}
}

func TestProfileValidityNormalRateIsValid(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	// 50 requests at 50/s on a constant schedule: the last goes out 1 s
	// after the phase starts, so achieved = 50/s unless the sender is late.
	r := profile(t, "-m", "m", "-u", url, "--streaming", "--request-rate", "50", "--arrival-pattern", "constant",
		"--request-count", "50", "--isl", "16", "--osl", "4", "--fail-on-client-limited")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	v := readValidity(t, r)
	if v.Verdict != validity.Valid || len(v.Reasons) != 0 || v.Mode != "request_rate" || !v.OpenLoop {
		t.Fatalf("verdict %s %q, mode %s open loop %v", v.Verdict, v.Reasons, v.Mode, v.OpenLoop)
	}
	// The window starts before the strategy's own start, so achieved never
	// exceeds the target; a quarter of a second late at the end is generous.
	if q := v.RequestRate; q == nil || q.Sent != 50 || q.Target != 50 || q.Achieved > 50 || q.Achieved < 40 {
		t.Errorf("request rate %+v, want 50 sent at about 50/s", q)
	}
	if v.ScheduleLag == nil || v.ScheduleLag.BoundMs != 20 || v.ClientCPU == nil || v.ClientCPU.Cores < 1 {
		t.Errorf("schedule lag %+v (bound one 20 ms gap), client CPU %+v", v.ScheduleLag, v.ClientCPU)
	}
	checkCorrected(t, v)
	// The block follows the footer, which lists the file; AIPerf's summary
	// keeps its shape.
	_, after, ok := strings.Cut(r.stdout, "Log File:")
	if !ok || !strings.Contains(after, "\nRun validity: VALID\n") || !strings.Contains(after, "From the scheduled send (coordinated omission corrected)") {
		t.Errorf("no Run validity block after the footer:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "Validity Report: "+filepath.Join(r.dir, "validity.json")) {
		t.Errorf("footer does not list validity.json:\n%s", r.stdout)
	}
	if _, has := r.summary["validity"]; has || r.summary == nil {
		t.Errorf("profile_export_aiperf.json has a validity key (or is missing)")
	}
}

func TestProfileValidityClosedLoop(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	r := profile(t, "-m", "m", "-u", url, "--streaming", "--concurrency", "4", "--request-count", "40", "--isl", "16", "--osl", "4")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	v := readValidity(t, r)
	// Four slots can never hold more than four requests at once.
	if c := v.Concurrency; v.Verdict != validity.Valid || v.OpenLoop || c == nil || c.Target != 4 || c.AvgInFlight <= 0 || c.AvgInFlight > 4 {
		t.Errorf("verdict %s, open loop %v, concurrency %+v", v.Verdict, v.OpenLoop, v.Concurrency)
	}
	if v.RequestRate != nil || v.ScheduleLag != nil || v.Corrected != nil {
		t.Errorf("closed-loop report has open-loop parts: %+v", v)
	}
}

func TestProfileValidityImpossibleRateIsClientLimited(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	// 3000 requests at a million per second are due within 3 ms; no HTTP
	// client starts them that fast, so the rate is missed and most of them
	// start more than 1 ms late (the lag bound).
	base := []string{"-m", "m", "-u", url, "--streaming", "--request-rate", "1000000", "--request-count", "3000", "--isl", "16", "--osl", "2"}
	tests := []struct {
		name  string
		extra []string
		code  int
	}{
		{"reported only", nil, app.ExitOK},
		// The invalid run outranks a breached threshold (exitcodes.go).
		{"--fail-on-client-limited", []string{"--fail-on-client-limited", "--threshold", "request_count:avg<1"}, app.ExitInvalidRun},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := profile(t, append(append([]string{}, base...), tc.extra...)...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", r.code, tc.code, r.stdout, r.stderr)
			}
			v := readValidity(t, r)
			if v.Verdict != validity.ClientLimited || len(v.Reasons) == 0 {
				t.Fatalf("verdict %s %q, want CLIENT-LIMITED", v.Verdict, v.Reasons)
			}
			if q := v.RequestRate; q == nil || !q.Missed || q.Ratio >= 0.95 || q.Sent != 3000 {
				t.Errorf("request rate %+v, want 3000 sent and the target missed", q)
			}
			checkCorrected(t, v)
			if !strings.Contains(r.stdout, "\nRun validity: CLIENT-LIMITED\n") {
				t.Errorf("console lacks the verdict:\n%s", r.stdout)
			}
			if tc.code == app.ExitInvalidRun {
				if !strings.Contains(r.stderr, "The run is CLIENT-LIMITED (--fail-on-client-limited)") ||
					!strings.Contains(r.stdout, "Exit status 4 (invalid run)") || !strings.Contains(r.stdout, "FAIL request_count:avg<1") {
					t.Errorf("verdict not explained:\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
				}
			}
		})
	}
}
