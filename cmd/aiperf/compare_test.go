package main

// End-to-end tests of `aiperf compare`: real runs of the real CLI against
// the mock server over loopback, compared through the CLI entry point.

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/compare"
	"github.com/aiperf-go/aiperf/mockserver"
)

// compareRun runs `aiperf compare ARGS...` and returns its exit status,
// stdout and stderr, and the --json file (written under the test's temp dir).
func compareRun(t *testing.T, args ...string) (int, string, string, *compare.Result) {
	t.Helper()
	jsonPath := filepath.Join(t.TempDir(), "compare.json")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append(append([]string{"compare"}, args...), "--json", jsonPath), &stdout, &stderr)
	var res *compare.Result
	if b, err := os.ReadFile(jsonPath); err == nil {
		res = &compare.Result{}
		if err := json.Unmarshal(b, res); err != nil {
			t.Fatalf("--json file does not parse: %v\n%s", err, b)
		}
	}
	return code, stdout.String(), stderr.String(), res
}

func statOf(t *testing.T, res *compare.Result, tag, name string) compare.StatDiff {
	t.Helper()
	for _, m := range res.Metrics {
		if m.Tag != tag {
			continue
		}
		for _, s := range m.Stats {
			if s.Stat == name {
				return s
			}
		}
	}
	t.Fatalf("no %s %s in the comparison", tag, name)
	return compare.StatDiff{}
}

// A small streaming run with warmup records in its JSONL (compare leaves
// them out, as the summary does).
func compareProfile(t *testing.T, url string, extra ...string) *profileRun {
	t.Helper()
	args := append([]string{"-m", "test-model", "-u", url, "--endpoint-type", "chat", "--concurrency", "4",
		"--request-count", "30", "--warmup-request-count", "4", "--isl", "32", "--osl", "8", "--extra-inputs", "ignore_eos:true"}, extra...)
	r := profile(t, args...)
	if r.code != 0 {
		t.Fatalf("profile exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	return r
}

// Two runs of one server: no significant TTFT difference. The level is
// 99.9% so that the test, whose data are fresh timings each time, does not
// fail one time in twenty by design; the mock's fixed TTFT leaves only
// sub-millisecond scheduling noise.
func TestCompareSameServerFindsNoSignificantTTFTDifference(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 20 * time.Millisecond, ITL: time.Millisecond})
	a := compareProfile(t, url, "--streaming")
	b := compareProfile(t, url, "--streaming")
	// A run against itself: exactly no difference, whatever the machine.
	// (Two runs of one server usually agree too, but a loaded machine can
	// shift one run's TTFT by a millisecond, which 30 samples resolve: that
	// is a timing assertion, so it is not made.)
	code, selfOut, stderr, self := compareRun(t, a.dir, a.dir, "--confidence-level", "0.999", "--tolerance", "time_to_first_token:avg:+5%")
	if code != 0 || self == nil || !strings.Contains(selfOut, "No regression beyond tolerance.") {
		t.Fatalf("exit %d, want 0 and no regression\n%s\n%s", code, selfOut, stderr)
	}
	for _, st := range []string{"avg", "p50"} {
		s := statOf(t, self, "time_to_first_token", st)
		if s.Significant || s.Verdict != compare.VerdictUnchanged || s.Regression || s.Diff != 0 || s.CILow == nil || *s.CILow > 0 || *s.CIHigh < 0 {
			t.Errorf("TTFT %s of a run against itself: %+v, want no difference, an interval around 0, not significant", st, s)
		}
	}
	code, stdout, stderr, res := compareRun(t, a.dir, b.dir, "--confidence-level", "0.999")
	if code != 0 || res == nil {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	// Welch's interval is centred on the difference; a bootstrap one need
	// not hold it, only be an interval.
	if s := statOf(t, res, "time_to_first_token", "avg"); s.CILow == nil || *s.CILow > s.Diff || *s.CIHigh < s.Diff {
		t.Errorf("TTFT avg of two runs of one server: %+v, want an interval holding the difference", s)
	}
	if s := statOf(t, res, "time_to_first_token", "p50"); s.CILow == nil || *s.CILow > *s.CIHigh {
		t.Errorf("TTFT p50 of two runs of one server: %+v, want a bootstrap interval", s)
	}
	// The records compare reads are the ones the summary summarised: the
	// 30 profiling requests, not the warmup ones.
	if res.Baseline.Requests != 30 || res.Candidate.Requests != 30 {
		t.Errorf("request counts %d and %d, want 30 (warmup left out)", res.Baseline.Requests, res.Candidate.Requests)
	}
	for _, st := range []string{"avg", "p50"} {
		s := statOf(t, res, "time_to_first_token", st)
		want := a.mustMetric(t, "time_to_first_token")
		w := *want.Avg
		if st == "p50" {
			w = *want.P50
		}
		if math.Abs(s.Baseline-w) > 1e-6 {
			t.Errorf("baseline TTFT %s %v, the run's summary says %v", st, s.Baseline, w)
		}
	}
	if osl := statOf(t, res, "output_sequence_length", "avg"); osl.Diff != 0 || osl.Baseline != 8 || osl.Significant {
		t.Errorf("OSL exactly 8 in both runs: %+v", osl)
	}
	if rt := statOf(t, res, "request_throughput", "avg"); rt.CILow != nil || rt.Baseline <= 0 {
		t.Errorf("request_throughput %+v: want a run-level value without an interval", rt)
	}
	for _, want := range []string{"NVIDIA AIPerf | Comparison: candidate − baseline", "Time to First Token (ms)", "99.9% CI",
		"Request Throughput (requests/sec)", "JSON Export:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("console lacks %q:\n%s", want, stdout)
		}
	}
}

// A server twice as slow to the first token: TTFT +20 ms, significant,
// worse, and a regression beyond a 5% tolerance (exit status); the
// reverse comparison is an improvement that passes.
func TestCompareSlowerTTFTIsASignificantRegression(t *testing.T) {
	fast := compareProfile(t, startMock(t, mockserver.Config{TTFT: 20 * time.Millisecond, ITL: time.Millisecond}), "--streaming")
	slow := compareProfile(t, startMock(t, mockserver.Config{TTFT: 40 * time.Millisecond, ITL: time.Millisecond}), "--streaming")

	code, stdout, stderr, res := compareRun(t, fast.dir, slow.dir, "--tolerance", "time_to_first_token:avg:+5%")
	if code != exitRegression || res == nil {
		t.Fatalf("exit %d, want %d (regression)\n%s\n%s", code, exitRegression, stdout, stderr)
	}
	ttft := statOf(t, res, "time_to_first_token", "avg")
	if ttft.Diff < 15 || ttft.Diff > 25 || !ttft.Significant || ttft.Verdict != compare.VerdictWorse || *ttft.CILow < 10 ||
		ttft.DiffPct == nil || *ttft.DiffPct < 50 || !ttft.Regression || ttft.Tolerance != "+5%" {
		t.Errorf("TTFT avg 20 -> 40 ms: %+v, want about +20 ms, significant, worse, a regression", ttft)
	}
	if p50 := statOf(t, res, "time_to_first_token", "p50"); p50.Diff < 15 || p50.Diff > 25 || !p50.Significant || p50.Method != compare.MethodBootstrap {
		t.Errorf("TTFT p50: %+v, want about +20 ms by bootstrap, significant", p50)
	}
	if len(res.Regressions) != 1 || !strings.Contains(res.Regressions[0], "time_to_first_token avg: +") {
		t.Errorf("regressions %q", res.Regressions)
	}
	for _, want := range []string{"+5% REGRESSION", "Regressions beyond tolerance (exit status", "worse"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("console lacks %q:\n%s", want, stdout)
		}
	}

	code, stdout, stderr, res = compareRun(t, slow.dir, fast.dir, "--tolerance", "time_to_first_token:avg:+5%")
	if code != 0 || res == nil {
		t.Fatalf("faster candidate: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if ttft := statOf(t, res, "time_to_first_token", "avg"); ttft.Diff > -15 || ttft.Diff < -25 || ttft.Verdict != compare.VerdictBetter || ttft.Regression {
		t.Errorf("TTFT avg 40 -> 20 ms: %+v, want about -20 ms, better", ttft)
	}
	if code, stdout, _, _ := compareRun(t, fast.dir, slow.dir, "--tolerance", "time_to_first_token:avg:+200%"); code != 0 {
		t.Errorf("+20 ms is within +200%%: exit %d\n%s", code, stdout)
	}
}

func TestCompareRefusesMismatchedRunsAndBadInput(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 5 * time.Millisecond, ITL: time.Millisecond})
	streaming := compareProfile(t, url, "--streaming")
	plain := compareProfile(t, url)
	code, _, stderr, res := compareRun(t, streaming.dir, plain.dir)
	if code != 1 || res != nil || !strings.Contains(stderr, "different streaming settings") ||
		!strings.Contains(stderr, streaming.dir) || !strings.Contains(stderr, plain.dir) {
		t.Errorf("streaming vs not: exit %d, json %v, stderr %q; want 1 naming both runs", code, res != nil, stderr)
	}
	completions := compareProfile(t, url, "--streaming", "--endpoint-type", "completions")
	code, _, stderr, _ = compareRun(t, streaming.dir, completions.dir)
	if code != 1 || !strings.Contains(stderr, `is "chat"`) || !strings.Contains(stderr, `is "completions"`) {
		t.Errorf("chat vs completions: exit %d, stderr %q", code, stderr)
	}
	missing := filepath.Join(t.TempDir(), "no-such-run")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{streaming.dir, missing}, "candidate: run directory " + missing + " does not exist"},
		{[]string{streaming.dir}, "accepts 2 arg(s)"},
		{[]string{streaming.dir, streaming.dir, "--tolerance", "ttft:p95:5%"}, `--tolerance "ttft:p95:5%"`},
		{[]string{streaming.dir, streaming.dir, "--tolerance", "time_to_first_token:avg:-5%"}, "smaller is better"},
		{[]string{streaming.dir, streaming.dir, "--tolerance", "no_such_metric:avg:+5%"}, "metric no_such_metric is not in both runs"},
		{[]string{streaming.dir, streaming.dir, "--confidence-level", "95"}, "--confidence-level"},
		{[]string{streaming.dir, streaming.dir, "--bootstrap-resamples", "0"}, "--bootstrap-resamples 0"},
	} {
		code, _, stderr, _ := compareRun(t, tc.args...)
		if code != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
