package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/core/gate"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func fp(v float64) *float64 { return &v }

// runResults are results with ok successful and failed failed requests and
// a TTFT p99.
func runResults(ok, failed, p99 float64, cancelled bool) *sdk.Results {
	res := &sdk.Results{WasCancelled: cancelled}
	if ok > 0 {
		res.Metrics = append(res.Metrics, sdk.MetricResult{Tag: "request_count", Unit: "requests", Avg: fp(ok)},
			sdk.MetricResult{Tag: "time_to_first_token", Unit: "ms", Avg: fp(p99), P99: fp(p99)})
	}
	if failed > 0 {
		res.Metrics = append(res.Metrics, sdk.MetricResult{Tag: "error_request_count", Unit: "requests", Avg: fp(failed)})
	}
	return res
}

func TestGateVerdictPrecedence(t *testing.T) {
	ts, err := gate.ParseThresholds([]string{"time_to_first_token:p99<200 error_request_count:avg<5"})
	if err != nil {
		t.Fatal(err)
	}
	frt := &gate.Abort{Flag: "--failed-request-threshold", Limit: 0.1, Errors: 6, Records: 10, Floor: 10}
	live := &gate.Abort{Flag: "--abort-on-threshold-breach", Threshold: &ts[1], Errors: 5, Records: 9}
	tests := []struct {
		name    string
		res     *sdk.Results
		trip    *gate.Abort
		code    int
		verdict string
	}{
		{"passes", runResults(10, 0, 150, false), nil, ExitOK, ""},
		{"a breach", runResults(10, 0, 250, false), nil, ExitThresholds, "1 of 2 thresholds breached:\n  time_to_first_token:p99<200: measured 250 ms"},
		{"not measured is a breach", runResults(0, 0, 0, false), nil, ExitThresholds, "time_to_first_token:p99<200: not measured"},
		// Failed requests outrank breached thresholds.
		{"every request failed", runResults(0, 7, 0, false), nil, ExitFailedRequests, "Every request failed"},
		{"failed-request threshold", runResults(4, 6, 250, true), frt, ExitFailedRequests, "--failed-request-threshold exceeded: 6/10"},
		// Ctrl-C: AIPerf exits 0 even when nothing succeeded yet.
		{"cancelled before a success", runResults(0, 2, 0, true), nil, ExitThresholds, "not measured"},
		// A live breach fails its threshold even if the final value passes.
		{"live breach", runResults(4, 4, 150, true), live, ExitThresholds, "error_request_count:avg<5: measured 4 requests (breached during the run"},
	}
	for _, tc := range tests {
		r := &Runner{Settings: &Settings{Gate: GateSettings{Thresholds: ts}}}
		out := &Outcome{Results: tc.res}
		if err := r.gateVerdict(out, tc.trip); err != nil {
			t.Fatal(err)
		}
		if out.ExitCode != tc.code || !strings.Contains(out.Verdict, tc.verdict) || (tc.verdict == "") != (out.Verdict == "") {
			t.Errorf("%s: exit %d %q, want %d with %q", tc.name, out.ExitCode, out.Verdict, tc.code, tc.verdict)
		}
	}
	// Without thresholds a cancelled run where nothing succeeded exits 0.
	r := &Runner{Settings: &Settings{}}
	out := &Outcome{Results: runResults(0, 2, 0, true)}
	if err := r.gateVerdict(out, nil); err != nil || out.ExitCode != ExitOK {
		t.Errorf("cancelled, no gate: exit %d (%v)", out.ExitCode, err)
	}
}

func TestGateVerdictWritesReports(t *testing.T) {
	dir := t.TempDir()
	ts, _ := gate.ParseThresholds([]string{"time_to_first_token:p99<200"})
	r := &Runner{Settings: &Settings{Models: []string{"m"}, ArtifactDir: dir, Gate: GateSettings{Thresholds: ts,
		JUnitPath: filepath.Join(dir, "junit.xml"), MarkdownPath: filepath.Join(dir, "sub", "summary.md")}}}
	out := &Outcome{Results: runResults(10, 0, 250, false)}
	if err := r.gateVerdict(out, nil); err != nil {
		t.Fatal(err)
	}
	if len(out.Exported) != 2 || out.Exported[0].Label != "JUnit Report" || out.Exported[1].Label != "Markdown Summary" {
		t.Errorf("exported %+v", out.Exported)
	}
	md, err := os.ReadFile(filepath.Join(dir, "sub", "summary.md"))
	if err != nil || !strings.Contains(string(md), "thresholds breached (exit 2)") {
		t.Errorf("summary %q (%v)", md, err)
	}
	// A report that cannot be written is an error naming its flag.
	r.Settings.Gate.JUnitPath = dir // a directory
	if err := r.gateVerdict(&Outcome{Results: runResults(10, 0, 150, false)}, nil); err == nil || !strings.Contains(err.Error(), "--junit") {
		t.Errorf("unwritable report: %v", err)
	}
}

func TestExitCodesAreDistinct(t *testing.T) {
	seen := map[int]string{}
	for _, c := range []int{ExitOK, ExitBadInput, ExitThresholds, ExitFailedRequests, ExitInvalidRun, ExitInterrupted} {
		if prev, dup := seen[c]; dup {
			t.Errorf("exit %d means both %q and %q", c, prev, ExitMeaning(c))
		}
		seen[c] = ExitMeaning(c)
	}
	if ExitInterrupted != 130 {
		t.Error("an interrupted start must exit 130 (128+SIGINT), as the README says")
	}
	if ExitBadInput != 1 || ExitOK != 0 {
		t.Error("bad input must keep AIPerf's exit status 1, success 0")
	}
}

// TestJudgeMergedUsesTheUnionsFailedShare: a sharded run's
// --failed-request-threshold is judged on the merged counts after the run.
func TestJudgeMergedUsesTheUnionsFailedShare(t *testing.T) {
	for _, tc := range []struct {
		name          string
		limit         *float64
		ok, failed    float64
		code          int
		verdict, gate string
	}{
		{"unset", nil, 6, 4, ExitOK, "", ""},
		{"at the limit passes", fp(0.4), 6, 4, ExitOK, "", "PASS --failed-request-threshold 0.4: not exceeded"},
		{"over the limit", fp(0.3), 6, 4, ExitFailedRequests, "--failed-request-threshold exceeded over the whole run: 4/10 = 0.400 > 0.300",
			"FAIL --failed-request-threshold 0.3: 4/10 = 0.400 > 0.3 over the whole run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Settings{Gate: GateSettings{FailedRequestThreshold: tc.limit}}
			var w strings.Builder
			out, err := JudgeMerged(s, runResults(tc.ok, tc.failed, 10, false))
			if err != nil {
				t.Fatal(err)
			}
			PrintGate(&w, s, out)
			if out.ExitCode != tc.code || !strings.HasPrefix(out.Verdict, tc.verdict) || !strings.Contains(w.String(), tc.gate) {
				t.Errorf("exit %d, verdict %q, printed %q; want %d, %q, %q", out.ExitCode, out.Verdict, w.String(), tc.code, tc.verdict, tc.gate)
			}
		})
	}
}
