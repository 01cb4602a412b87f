package main

// End-to-end tests of the load generator: every timing mode against the
// real mock server, checked from the exported records.

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
)

// span is one request's [start, end] in wall-clock ns from its JSONL line.
type span struct{ start, end, firstToken int64 }

func spans(t *testing.T, r *profileRun) []span {
	t.Helper()
	out := make([]span, 0, len(r.records))
	for _, rec := range r.records {
		if rec.Metadata["benchmark_phase"] == "warmup" {
			continue // the profiling phase's requests only
		}
		s := span{start: int64(rec.Metadata["request_start_ns"].(float64)), end: int64(rec.Metadata["request_end_ns"].(float64))}
		if m, ok := rec.Metrics["time_to_first_token"]; ok {
			var ms float64
			_ = json.Unmarshal(m.Value, &ms)
			s.firstToken = s.start + int64(ms*1e6)
		}
		out = append(out, s)
	}
	return out
}

// peakOverlap is the most intervals [from(s), to(s)) open at once.
func peakOverlap(ss []span, from, to func(span) int64) int {
	type ev struct {
		at    int64
		delta int
	}
	var evs []ev
	for _, s := range ss {
		evs = append(evs, ev{from(s), 1}, ev{to(s), -1})
	}
	sort.Slice(evs, func(i, j int) bool {
		if evs[i].at != evs[j].at {
			return evs[i].at < evs[j].at
		}
		return evs[i].delta < evs[j].delta // close before open at the same instant
	})
	peak, cur := 0, 0
	for _, e := range evs {
		cur += e.delta
		peak = max(peak, cur)
	}
	return peak
}

func TestRequestRateModeHitsTheRateWithScheduleLag(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true})
	r := profile(t, "-m", "m", "-u", url, "--streaming", "--request-rate", "200", "--arrival-pattern", "constant",
		"--request-count", "200", "--isl", "16", "--osl", "4")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if c := r.mustMetric(t, "request_count"); *c.Avg != 200 {
		t.Errorf("request_count %v", *c.Avg)
	}
	// 200 requests at 200/s take about a second: the achieved rate is close
	// to the target (generous bounds; CI machines are noisy).
	if rt := r.mustMetric(t, "request_throughput"); *rt.Avg < 150 || *rt.Avg > 230 {
		t.Errorf("request_throughput %.1f, want about 200", *rt.Avg)
	}
	lag := r.mustMetric(t, "schedule_lag")
	if lag.Count == nil || *lag.Count != 200 || *lag.P50 > 50 {
		t.Errorf("schedule_lag count %v p50 %v ms: every open-loop record carries its lag", lag.Count, *lag.P50)
	}
	if !strings.Contains(r.dir, "") || !strings.Contains(r.stdout, "Request Throughput") {
		t.Error("no console table")
	}
}

func TestConcurrencyIsACeilingOnRequestRate(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 30 * time.Millisecond, ITL: time.Millisecond})
	r := profile(t, "-m", "m", "-u", url, "--streaming", "--request-rate", "500", "--concurrency", "3",
		"--request-count", "30", "--isl", "16", "--osl", "5", "--extra-inputs", "ignore_eos:true")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if peak := peakOverlap(spans(t, r), func(s span) int64 { return s.start }, func(s span) int64 { return s.end }); peak > 3 {
		t.Errorf("%d requests in flight at once, want at most --concurrency 3", peak)
	}
}

func TestPrefillConcurrencyLimitsRequestsBeforeFirstToken(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 40 * time.Millisecond, ITL: 5 * time.Millisecond})
	r := profile(t, "-m", "m", "-u", url, "--streaming", "--concurrency", "4", "--prefill-concurrency", "1",
		"--request-count", "12", "--isl", "16", "--osl", "10", "--extra-inputs", "ignore_eos:true")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	ss := spans(t, r)
	if peak := peakOverlap(ss, func(s span) int64 { return s.start }, func(s span) int64 { return s.firstToken }); peak > 1 {
		t.Errorf("%d requests waited for their first token at once, want at most --prefill-concurrency 1", peak)
	}
	if peak := peakOverlap(ss, func(s span) int64 { return s.start }, func(s span) int64 { return s.end }); peak < 2 {
		t.Errorf("peak in flight %d: decode should overlap prefill", peak)
	}
}

func TestBenchmarkDurationWithGraceExcludesLateResponses(t *testing.T) {
	// Each request takes ~400 ms; the run issues for 0.5 s with no grace.
	url := startMock(t, mockserver.Config{TTFT: 100 * time.Millisecond, ITL: 10 * time.Millisecond})
	r := profile(t, "-m", "m", "-u", url, "--streaming", "--request-rate", "20", "--arrival-pattern", "constant",
		"--benchmark-duration", "0.5", "--benchmark-grace-period", "0", "--isl", "16", "--osl", "30",
		"--extra-inputs", "ignore_eos:true")
	if r.code != 0 && r.code != 1 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	// About 10 requests were issued; those still running at 0.5 s were cut
	// off by the zero grace period: exported as cancellations, left out of
	// the metrics (AIPerf leaves them out of its results).
	cut := 0
	for _, rec := range r.records {
		if rec.Error != nil {
			if rec.Error.Type != "RequestCancellationError" || rec.Error.Code != 499 {
				t.Errorf("late request exported as %+v, want a RequestCancellationError 499", rec.Error)
			}
			cut++
		}
	}
	if cut == 0 || !strings.Contains(r.stdout, fmt.Sprintf("%d requests were cut off by the grace period", cut)) {
		t.Errorf("%d cut-off records; the console must count them:\n%s", cut, r.stdout)
	}
	if _, ok := r.metric(t, "error_request_count"); ok {
		t.Error("requests cut off by the grace period counted as errors")
	}
	finished := 0.0
	if n, ok := r.metric(t, "request_count"); ok && n.Avg != nil {
		finished = *n.Avg
	}
	if int(finished) != len(r.records)-cut {
		t.Errorf("request_count %v, want the %d requests that finished", finished, len(r.records)-cut)
	}
}

func TestFixedScheduleReplaysTraceOffsets(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true})
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	var b strings.Builder
	offsets := []int{1000, 1100, 1250, 1600, 1700}
	for i, ts := range offsets {
		fmt.Fprintf(&b, `{"timestamp": %d, "input_length": %d, "output_length": 4, "hash_ids": [%d]}`+"\n", ts, 40+i, i)
	}
	if err := os.WriteFile(trace, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	// A trace named by --custom-dataset-type, one recognized from its
	// records (AIPerf) and GenAI-Perf's payload:<file> replay alike.
	for _, c := range []struct {
		name, input string
		typ         []string
	}{
		{"type given", trace, []string{"--custom-dataset-type", "mooncake_trace"}},
		{"detected", trace, nil},
		{"payload form", "payload:" + trace, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			replayTrace(t, url, c.input, offsets, c.typ)
		})
	}
}

func replayTrace(t *testing.T, url, trace string, offsets []int, typ []string) {
	r := profile(t, append([]string{"-m", "m", "-u", url, "--streaming", "--input-file", trace,
		"--fixed-schedule-auto-offset", "--extra-inputs", "ignore_eos:true"}, typ...)...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if len(r.records) != len(offsets) {
		t.Fatalf("%d records, want one per trace entry", len(r.records))
	}
	// Each entry is due at the phase start plus its offset from the first
	// (--fixed-schedule-auto-offset). Lateness depends on how busy the
	// machine is, so only sending early, which no load explains, fails;
	// sending everything at once would.
	ss := spans(t, r)
	sort.Slice(ss, func(i, j int) bool { return ss[i].start < ss[j].start })
	phaseStart := exportTime(t, r, "start_time").UnixNano()
	for i := range ss {
		due := phaseStart + int64(offsets[i]-offsets[0])*1e6
		if early := due - ss[i].start; early > 1e6 { // start_time has µs resolution
			t.Errorf("entry %d sent %.1f ms before its trace offset +%d ms", i, float64(early)/1e6, offsets[i]-offsets[0])
		}
	}
	isl := r.mustMetric(t, "input_sequence_length")
	if *isl.Min != 40 || *isl.Max != 44 {
		t.Errorf("ISL %v..%v, want the trace's input_length 40..44", *isl.Min, *isl.Max)
	}
	if mode := r.inputConfigPhaseType(t); mode != "fixed_schedule" {
		t.Errorf("profiling phase type %q, want fixed_schedule", mode)
	}
}

func TestMultiTurnSessions(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true})
	r := profile(t, "-m", "m", "-u", url, "--streaming", "--concurrency", "2", "--num-sessions", "4",
		"--session-turns-mean", "3", "--isl", "16", "--osl", "4")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	sessions := map[string][]int{}
	for _, rec := range r.records {
		id := rec.Metadata["x_correlation_id"].(string)
		sessions[id] = append(sessions[id], int(rec.Metadata["turn_index"].(float64)))
	}
	if len(sessions) != 4 {
		t.Fatalf("%d sessions, want 4", len(sessions))
	}
	for id, turns := range sessions {
		if len(turns) != 3 {
			t.Errorf("session %s has turns %v, want 0,1,2", id, turns)
		}
	}
}

func TestUserCentricRateSpacesEachUsersTurns(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true})
	// 2 users at 10 req/s overall: each user sends every 0.2 s, the users
	// 0.1 s apart.
	r := profile(t, "-m", "m", "-u", url, "--streaming", "--user-centric-rate", "10", "--num-users", "2",
		"--session-turns-mean", "2", "--request-count", "8", "--isl", "16", "--osl", "4")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if len(r.records) != 8 {
		t.Fatalf("%d records, want 8", len(r.records))
	}
	// Checked against the schedule, not the wall clock, so a loaded machine
	// cannot fail it: a session's first turn is scheduled at its send time
	// minus its schedule_lag, and its later turn is sent no earlier than one
	// user period (0.2 s) after that.
	const ms = 1e6
	type turn struct {
		scheduled, start float64
		first            bool
	}
	sessions := map[string][]turn{}
	var firsts []float64
	for _, rec := range r.records {
		start := rec.Metadata["request_start_ns"].(float64)
		tr := turn{start: start, scheduled: start}
		if lag, ok := rec.Metrics["schedule_lag"]; ok {
			var lagMs float64
			_ = json.Unmarshal(lag.Value, &lagMs)
			tr.scheduled, tr.first = start-lagMs*ms, true
			firsts = append(firsts, tr.scheduled)
		}
		id := rec.Metadata["conversation_id"].(string)
		sessions[id] = append(sessions[id], tr)
	}
	if len(firsts) != 4 || len(sessions) != 4 {
		t.Fatalf("%d scheduled first turns in %d sessions, want 4 sessions of 2 turns", len(firsts), len(sessions))
	}
	// The two users start 1/rate apart; later sessions follow each user's
	// previous one (its baseline resets when a session outlasts the gap).
	sort.Float64s(firsts)
	if gap := (firsts[1] - firsts[0]) / ms; math.Abs(gap-100) > 1 {
		t.Errorf("the users' first sessions were scheduled %.3f ms apart, want 100 ms (1/rate)", gap)
	}
	for id, turns := range sessions {
		sort.Slice(turns, func(i, j int) bool { return turns[i].start < turns[j].start })
		if len(turns) != 2 || !turns[0].first {
			t.Fatalf("session %s: %+v, want a scheduled first turn and a second", id, turns)
		}
		if gap := (turns[1].start - turns[0].scheduled) / ms; gap < 199 {
			t.Errorf("session %s: second turn sent %.1f ms after the first was scheduled, want at least one user period (200 ms)", id, gap)
		}
	}
}

func TestRequestCancellationRecordsCancelledRequests(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 300 * time.Millisecond})
	r := profile(t, "-m", "m", "-u", url, "--streaming", "--concurrency", "4", "--request-count", "40",
		"--request-cancellation-rate", "50", "--request-cancellation-delay", "0.02", "--isl", "16", "--osl", "2")
	cancelled := 0
	for _, rec := range r.records {
		if rec.Error != nil {
			if rec.Error.Code != 499 || rec.Error.Type != "RequestCancellationError" || rec.Metadata["was_cancelled"] != true {
				t.Fatalf("cancelled record: %+v %v", rec.Error, rec.Metadata["was_cancelled"])
			}
			cancelled++
		}
	}
	// Binomial(40, 0.5): 20 ± 3.2; generous bounds.
	if cancelled < 6 || cancelled > 34 {
		t.Errorf("%d of 40 requests cancelled, want about half", cancelled)
	}
	if r.code != 0 {
		t.Errorf("exit %d with some successes", r.code)
	}
}

func TestLoadValidationErrors(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true})
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--user-centric-rate", "5", "--request-rate", "5"}, "--user-centric-rate"},
		{[]string{"--benchmark-grace-period", "5"}, "--benchmark-grace-period"},
		{[]string{"--prefill-concurrency", "2"}, "--streaming"},
		{[]string{"--request-cancellation-delay", "1"}, "--request-cancellation-rate"},
		{[]string{"--arrival-smoothness", "2", "--arrival-pattern", "constant", "--request-rate", "5"}, "--arrival-smoothness"},
		{[]string{"--num-sessions", "3", "--concurrency", "5"}, "--num-sessions"},
	}
	for _, c := range cases {
		r := profile(t, append([]string{"-m", "m", "-u", url}, c.args...)...)
		if r.code != 1 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want a config error naming %s", c.args, r.code, r.stderr, c.want)
		}
	}
}

// inputConfigPhaseType is the profiling phase's type in the exported
// input_config (fixed_schedule, concurrency, ...).
func (r *profileRun) inputConfigPhaseType(t *testing.T) string {
	t.Helper()
	var ic struct {
		Phases []struct {
			Name string `json:"name"`
			Type string `json:"type"`
		} `json:"phases"`
	}
	if err := json.Unmarshal(r.summary["input_config"], &ic); err != nil {
		t.Fatal(err)
	}
	for _, p := range ic.Phases {
		if p.Name == "profiling" {
			return p.Type
		}
	}
	return ""
}
