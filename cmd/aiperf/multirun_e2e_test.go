package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
)

// aggregateFile is profile_export_aiperf_aggregate.json as the tests read it.
type aggregateFile struct {
	SchemaVersion string `json:"schema_version"`
	Metadata      struct {
		AggregationType   string  `json:"aggregation_type"`
		NumProfileRuns    int     `json:"num_profile_runs"`
		NumSuccessfulRuns int     `json:"num_successful_runs"`
		ConfidenceLevel   float64 `json:"confidence_level"`
		RunLabels         []string
		FailedRuns        []struct{ Label, Error string } `json:"failed_runs"`
		CooldownSeconds   float64                         `json:"cooldown_seconds"`
		WasCancelled      bool                            `json:"was_cancelled"`
		SingleRun         bool                            `json:"single_run"`
	} `json:"metadata"`
	Metrics map[string]struct {
		Mean      float64  `json:"mean"`
		Std       float64  `json:"std"`
		CV        *float64 `json:"cv"`
		CILow     float64  `json:"ci_low"`
		CIHigh    float64  `json:"ci_high"`
		TCritical float64  `json:"t_critical"`
		Unit      string   `json:"unit"`
	} `json:"metrics"`
}

func readAggregate(t *testing.T, dir string) *aggregateFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "aggregate", "profile_export_aiperf_aggregate.json"))
	if err != nil {
		t.Fatal(err)
	}
	var a aggregateFile
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	// run_labels has no json tag above: decode it by name.
	var raw struct {
		Metadata struct {
			RunLabels []string `json:"run_labels"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(b, &raw)
	a.Metadata.RunLabels = raw.Metadata.RunLabels
	return &a
}

// TestMultiRunAggregateCoversMockTTFT runs the same benchmark three times
// against a mock whose time to first token is 30 ms and checks AIPerf's
// layout (one folder per run, the aggregate beside them) and that the
// aggregate's TTFT interval sits on the injected 30 ms (the client adds a
// little on top, never takes any away).
func TestMultiRunAggregateCoversMockTTFT(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 30 * time.Millisecond, ITL: time.Millisecond})
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"profile", "-m", "m", "-u", url, "--streaming", "--concurrency", "2",
		"--request-count", "12", "--isl", "32", "--osl", "8", "--extra-inputs", "ignore_eos:true",
		"--num-profile-runs", "3", "--profile-run-cooldown-seconds", "0.1", "--warmup-request-count", "2",
		"--artifact-dir", dir, "--ui", "none", "--tokenizer", "builtin"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	for _, label := range []string{"run_0001", "run_0002", "run_0003"} {
		for _, f := range []string{"profile_export_aiperf.json", "profile_export_aiperf.csv", "profile_export.jsonl", "inputs.json"} {
			if _, err := os.Stat(filepath.Join(dir, "profile_runs", label, f)); err != nil {
				t.Errorf("per-run file: %v", err)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "profile_export_aiperf.json")); err == nil {
		t.Error("a multi-run benchmark wrote a summary at the top of its artifact directory")
	}
	// The first run has the warmup, the others measure steady state.
	warm, _ := os.ReadFile(filepath.Join(dir, "profile_runs", "run_0001", "profile_export_aiperf.json"))
	steady, _ := os.ReadFile(filepath.Join(dir, "profile_runs", "run_0002", "profile_export_aiperf.json"))
	if !bytes.Contains(warm, []byte(`"warmup_metrics"`)) || bytes.Contains(steady, []byte(`"warmup_metrics"`)) {
		t.Errorf("warmup: first run has warmup_metrics %v, second %v (want true, false)",
			bytes.Contains(warm, []byte(`"warmup_metrics"`)), bytes.Contains(steady, []byte(`"warmup_metrics"`)))
	}
	// One seed (42) for every run: identical payloads.
	in1, _ := os.ReadFile(filepath.Join(dir, "profile_runs", "run_0001", "inputs.json"))
	in3, _ := os.ReadFile(filepath.Join(dir, "profile_runs", "run_0003", "inputs.json"))
	if len(in1) == 0 || !bytes.Equal(in1, in3) {
		t.Error("runs 1 and 3 sent different payloads despite the consistent seed")
	}

	a := readAggregate(t, dir)
	md := a.Metadata
	if a.SchemaVersion != "1.0" || md.AggregationType != "confidence" || md.NumProfileRuns != 3 || md.NumSuccessfulRuns != 3 ||
		md.ConfidenceLevel != 0.95 || md.CooldownSeconds != 0.1 || len(md.FailedRuns) != 0 || md.WasCancelled ||
		strings.Join(md.RunLabels, ",") != "run_0001,run_0002,run_0003" {
		t.Errorf("metadata %+v", md)
	}
	ttft, ok := a.Metrics["time_to_first_token_avg"]
	if !ok {
		t.Fatalf("no time_to_first_token_avg in %d statistics", len(a.Metrics))
	}
	// The interval covers the injected 30 ms plus the client's overhead
	// (under 5 ms here): its low end is at most 35 ms and its high end at
	// least 30. With 3 runs (t = 4.30) the low end may dip below 30 on a
	// noisy host, which still covers the truth.
	if ttft.Unit != "ms" || ttft.CILow > 35 || ttft.CIHigh < 30 || ttft.Mean < 30 || ttft.Mean > 40 || ttft.CILow > ttft.Mean || ttft.CIHigh < ttft.Mean {
		t.Errorf("TTFT avg over runs: mean %.3f ms, 95%% CI [%.3f, %.3f] %s; want the mock's 30 ms plus client overhead", ttft.Mean, ttft.CILow, ttft.CIHigh, ttft.Unit)
	}
	if ttft.CV == nil || *ttft.CV > 0.1 {
		t.Errorf("TTFT cv %v across identical runs, want < 0.1", ttft.CV)
	}
	if ttft.TCritical < 4.3026 || ttft.TCritical > 4.3027 {
		t.Errorf("t critical %v, want t(0.975, df=2) = 4.3027", ttft.TCritical)
	}
	if rc := a.Metrics["request_count_avg"]; rc.Mean != 12 || rc.Std != 0 {
		t.Errorf("request_count_avg %+v, want 12 in every run", rc)
	}
	csv, err := os.ReadFile(filepath.Join(dir, "aggregate", "profile_export_aiperf_aggregate.csv"))
	if err != nil || !bytes.HasPrefix(csv, []byte("metric,mean,std,min,max,cv,se,ci_low,ci_high,t_critical,unit\r\n")) ||
		!bytes.Contains(csv, []byte("\r\nTotal Runs,3\r\n")) {
		t.Errorf("aggregate CSV (%v):\n%s", err, csv)
	}
	for _, want := range []string{"AGGREGATE STATISTICS SUMMARY", "Time To First Token (Avg):", "95% CI: [", "Total Runs: 3"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("console lacks %q", want)
		}
	}
	if !strings.Contains(stderr.String(), "Starting Multi-Run Benchmark") || !strings.Contains(stderr.String(), "All runs complete: 3/3 successful") {
		t.Errorf("stderr lacks the multi-run banner or outcome:\n%s", stderr.String())
	}
	if log, err := os.ReadFile(filepath.Join(dir, "logs", "aiperf.log")); err != nil || !bytes.Contains(log, []byte("AGGREGATE STATISTICS SUMMARY")) {
		t.Errorf("multi-run log (%v) lacks the summary", err)
	}
}

// TestMultiRunOneRunWritesNothingExtra: --num-profile-runs 1 is a plain
// run, its files at the top of the artifact directory.
func TestMultiRunOneRunWritesNothingExtra(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true})
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"profile", "-m", "m", "-u", url, "--request-count", "4", "--isl", "16", "--osl", "4",
		"--num-profile-runs", "1", "--artifact-dir", dir, "--ui", "none", "--tokenizer", "builtin"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "profile_export_aiperf.json")); err != nil {
		t.Error(err)
	}
	for _, d := range []string{"profile_runs", "aggregate"} {
		if _, err := os.Stat(filepath.Join(dir, d)); err == nil {
			t.Errorf("a single run wrote %s/", d)
		}
	}
	if strings.Contains(stdout.String(), "AGGREGATE STATISTICS SUMMARY") {
		t.Error("a single run printed the aggregate summary")
	}
}

// TestMultiRunRejectsBadValues: out-of-range values fail before anything
// is sent or written, naming the flag.
func TestMultiRunRejectsBadValues(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--num-profile-runs", "0"}, "--num-profile-runs must be between 1 and 10 (got 0)"},
		{[]string{"--num-profile-runs", "11"}, "--num-profile-runs must be between 1 and 10 (got 11)"},
		{[]string{"--num-profile-runs", "3", "--confidence-level", "1.5"}, "--confidence-level must be between 0 and 1, exclusive (got 1.5)"},
		{[]string{"--profile-run-cooldown-seconds", "5"}, "--profile-run-cooldown-seconds only applies when running multiple trials"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		var stdout, stderr bytes.Buffer
		args := append([]string{"profile", "-m", "m", "-u", "127.0.0.1:1", "--artifact-dir", dir, "--ui", "none", "--tokenizer", "builtin"}, c.args...)
		if code := run(context.Background(), args, &stdout, &stderr); code != 1 {
			t.Errorf("%q: exit %d, want 1", c.args, code)
		}
		if !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: stderr lacks %q:\n%s", c.args, c.want, stderr.String())
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%q: rejected run wrote %d entries", c.args, len(entries))
		}
	}
}

// TestMultiRunCtrlCAggregatesFinishedRuns builds the binary and interrupts
// the third of three runs: a proxy in front of the mock passes the first
// two runs' requests and holds every later one until the client lets go,
// so run 3 is surely in progress when SIGINT comes. That run's partial
// files must be exported, the aggregate of the two finished runs written
// and marked, and the exit status 0 (AIPerf's for a cancelled run).
func TestMultiRunCtrlCAggregatesFinishedRuns(t *testing.T) {
	bin := aiperfBinary(t)
	const perRun = 6
	target, err := url.Parse(startMock(t, mockserver.Config{Fast: true}))
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	var sent atomic.Int64
	run3 := make(chan struct{})
	var once sync.Once
	release := make(chan struct{})
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && sent.Add(1) > 2*perRun {
			once.Do(func() { close(run3) })
			// Held until the client cancels; the body is read first so the
			// server notices the client going away.
			_, _ = io.Copy(io.Discard, r.Body)
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	t.Cleanup(func() { close(release) }) // runs before front.Close

	dir := t.TempDir()
	cmd := exec.Command(bin, "profile", "-m", "m", "-u", front.URL, "--concurrency", "2", "--request-count", strconv.Itoa(perRun),
		"--isl", "16", "--osl", "8", "--num-profile-runs", "3", "--artifact-dir", dir, "--ui", "none", "--tokenizer", "builtin",
		"--no-server-metrics")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-run3:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("run 3 never sent a request\n%s", stderr.String())
	}
	if err := interrupt(t, cmd, 60*time.Second, &stderr); err != nil {
		t.Fatalf("exit after Ctrl-C: %v\n%s", err, stderr.String())
	}
	var partial struct {
		WasCancelled bool `json:"was_cancelled"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "profile_runs", "run_0003", "profile_export_aiperf.json"))
	if err != nil {
		t.Fatalf("interrupted run exported nothing: %v\n%s", err, stderr.String())
	}
	if err := json.Unmarshal(b, &partial); err != nil || !partial.WasCancelled {
		t.Errorf("run_0003 was_cancelled = %v (%v)", partial.WasCancelled, err)
	}
	a := readAggregate(t, dir)
	md := a.Metadata
	if !md.WasCancelled || md.NumProfileRuns != 3 || md.NumSuccessfulRuns != 2 || strings.Join(md.RunLabels, ",") != "run_0001,run_0002" ||
		len(md.FailedRuns) != 1 || md.FailedRuns[0].Label != "run_0003" || !strings.Contains(md.FailedRuns[0].Error, "Cancelled (Ctrl-C)") {
		t.Errorf("metadata %+v", md)
	}
	if rc := a.Metrics["request_count_avg"]; rc.Mean != perRun {
		t.Errorf("request_count_avg of the finished runs %+v, want %d", rc, perRun)
	}
	if !strings.Contains(stdout.String(), "Cancelled: only the runs that finished before Ctrl-C are aggregated") {
		t.Errorf("summary does not say it is partial:\n%s", stdout.String())
	}
	if n := sent.Load(); n > 3*perRun {
		t.Errorf("%d requests sent, more than three runs' worth: a run started after Ctrl-C", n)
	}
}
