package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"github.com/aiperf-go/aiperf/internal/jsontest"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
)

// aiperfTraceOrder is every member AIPerf 0.13 can write in a record's
// trace_data, in its order: AioHttpTraceDataExport.model_dump() (pydantic
// declaration order, TraceDataExport's fields, then AioHttpTraceDataExport's,
// then the computed durations of each), from common/models/trace_models.py.
var aiperfTraceOrder = []string{"trace_type", "request_send_start_ns", "request_headers", "request_headers_sent_ns",
	"request_chunks", "request_send_end_ns", "request_chunks_count", "request_bytes_total", "response_status_code",
	"response_reason", "response_receive_start_ns", "response_headers", "response_headers_received_ns",
	"response_chunks", "response_chunks_count", "response_bytes_total", "response_receive_end_ns",
	"error_timestamp_ns", "connection_pool_wait_start_ns", "connection_pool_wait_end_ns", "tcp_connect_start_ns",
	"tcp_connect_end_ns", "connection_reused_ns", "dns_cache_hit_ns", "dns_cache_miss_ns", "dns_lookup_start_ns",
	"dns_lookup_end_ns", "local_ip", "local_port", "remote_ip", "remote_port", "sending_ns", "waiting_ns",
	"receiving_ns", "duration_ns", "blocked_ns", "dns_lookup_ns", "connecting_ns"}

// aiperfTraceKeys are the trace_data members AIPerf 0.13.0 wrote with
// --export-http-trace for a streaming chat run against our mock server at
// 127.0.0.1 (concurrency 2; the second run's server answered half the
// requests with HTTP 500): by whether the request got a 500 and whether its
// connection was new.
var aiperfTraceKeys = map[[2]bool][]string{
	{false, true}: {"trace_type", "request_send_start_ns", "request_headers", "request_headers_sent_ns", "request_chunks",
		"request_send_end_ns", "request_chunks_count", "request_bytes_total", "response_status_code", "response_reason",
		"response_receive_start_ns", "response_headers", "response_headers_received_ns", "response_chunks",
		"response_chunks_count", "response_bytes_total", "response_receive_end_ns", "tcp_connect_start_ns",
		"tcp_connect_end_ns", "local_ip", "local_port", "remote_ip", "remote_port", "sending_ns", "waiting_ns",
		"receiving_ns", "duration_ns", "connecting_ns"},
	{false, false}: {"trace_type", "request_send_start_ns", "request_headers", "request_headers_sent_ns", "request_chunks",
		"request_send_end_ns", "request_chunks_count", "request_bytes_total", "response_status_code", "response_reason",
		"response_receive_start_ns", "response_headers", "response_headers_received_ns", "response_chunks",
		"response_chunks_count", "response_bytes_total", "response_receive_end_ns", "connection_reused_ns", "local_ip",
		"local_port", "remote_ip", "remote_port", "sending_ns", "waiting_ns", "receiving_ns", "duration_ns"},
	{true, true}: {"trace_type", "request_send_start_ns", "request_headers", "request_headers_sent_ns", "request_chunks",
		"request_send_end_ns", "request_chunks_count", "request_bytes_total", "response_status_code", "response_reason",
		"response_receive_start_ns", "response_headers", "response_headers_received_ns", "response_chunks",
		"response_chunks_count", "response_bytes_total", "response_receive_end_ns", "tcp_connect_start_ns",
		"tcp_connect_end_ns", "sending_ns", "waiting_ns", "receiving_ns", "duration_ns", "connecting_ns"},
	{true, false}: {"trace_type", "request_send_start_ns", "request_headers", "request_headers_sent_ns", "request_chunks",
		"request_send_end_ns", "request_chunks_count", "request_bytes_total", "response_status_code", "response_reason",
		"response_receive_start_ns", "response_headers", "response_headers_received_ns", "response_chunks",
		"response_chunks_count", "response_bytes_total", "response_receive_end_ns", "connection_reused_ns",
		"sending_ns", "waiting_ns", "receiving_ns", "duration_ns"},
}

// Our trace lacks the headers and the socket addresses; it always has the
// pool wait (measured, where aiohttp stamps only a wait at the pool's
// limit), so blocked_ns too (docs/METRICS.md §2.3).
var (
	traceNotOurs  = []string{"request_headers", "response_headers", "local_ip", "local_port", "remote_ip", "remote_port"}
	traceOursOnly = []string{"connection_pool_wait_start_ns", "connection_pool_wait_end_ns", "blocked_ns"}
)

// expectedTraceKeys is AIPerf's member list for the case, adapted to what
// our trace holds, in AIPerf's order.
func expectedTraceKeys(failed, newConn bool) []string {
	keep := map[string]bool{}
	for _, k := range aiperfTraceKeys[[2]bool{failed, newConn}] {
		keep[k] = !slices.Contains(traceNotOurs, k)
	}
	for _, k := range traceOursOnly {
		keep[k] = true
	}
	var out []string
	for _, k := range aiperfTraceOrder {
		if keep[k] {
			out = append(out, k)
		}
	}
	return out
}

// tracedLine is one profile_export.jsonl line with its member order.
type tracedLine struct {
	top   []string
	rec   jsonlRecord
	keys  []string // trace_data members, in order
	trace map[string]json.RawMessage
}

func readTracedLines(t *testing.T, dir string) []tracedLine {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "profile_export.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []tracedLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		var l tracedLine
		l.top = jsontest.ObjectKeys(t, line)
		if err := json.Unmarshal(line, &l.rec); err != nil {
			t.Fatal(err)
		}
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(line, &doc); err != nil {
			t.Fatal(err)
		}
		if raw, ok := doc["trace_data"]; ok {
			l.keys = jsontest.ObjectKeys(t, raw)
			if err := json.Unmarshal(raw, &l.trace); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func (l tracedLine) int(t *testing.T, key string) int64 {
	t.Helper()
	raw, ok := l.trace[key]
	if !ok {
		t.Fatalf("trace_data lacks %s: %v", key, l.keys)
	}
	var v int64
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("trace_data.%s = %s: %v", key, raw, err)
	}
	return v
}

func (l tracedLine) str(t *testing.T, key string) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(l.trace[key], &s); err != nil {
		t.Fatalf("trace_data.%s = %s: %v", key, l.trace[key], err)
	}
	return s
}

// httpTraceRows are the rows of AIPerf 0.13's "HTTP Trace Timing" table, in
// its order (the http_req_* metrics by display order).
var httpTraceRows = []string{"HTTP Blocked (ms)", "HTTP DNS Lookup (ms)", "HTTP Connecting (ms)",
	"HTTP Sending (ms)", "HTTP Waiting (TTFB) (ms)", "HTTP Receiving (ms)", "HTTP Connection Reused (ratio)",
	"HTTP Data Sent (KB)", "HTTP Chunks Sent (count)", "HTTP Data Received (KB)",
	"HTTP Chunks Received (count)", "HTTP Connection Overhead (ms)", "HTTP Duration (excl. conn) (ms)",
	"HTTP Total Time (ms)"}

const httpTraceTitle = "NVIDIA AIPerf | HTTP Trace Timing"

// traceTable cuts the HTTP trace table (title to bottom rule) out of text.
func traceTable(text string) string {
	i := strings.Index(text, httpTraceTitle)
	if i < 0 {
		return ""
	}
	i = strings.LastIndexByte(text[:i], '\n') + 1
	j := strings.Index(text[i:], "└")
	if j < 0 {
		return ""
	}
	end := strings.IndexByte(text[i+j:], '\n')
	return text[i : i+j+end+1]
}

// With --export-http-trace every record carries AIPerf's trace_data (its
// members, order, wall-clock stamps and ns durations, agreeing with the
// record's http_req_* metrics); with --show-trace-timing the console, and
// its text copy, show AIPerf's "HTTP Trace Timing" table before the metrics
// table; input_config records both flags as AIPerf does.
func TestHTTPTraceFlags(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 5 * time.Millisecond, ITL: time.Millisecond, ErrorRate: 50, RandomSeed: 3})
	r := profile(t, "-m", "mock-model", "-u", url, "--endpoint-type", "chat", "--streaming", "--concurrency", "2",
		"--request-count", "10", "--isl", "64", "--osl", "16", "--extra-inputs", "ignore_eos:true",
		"--export-http-trace", "--show-trace-timing")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	lines := readTracedLines(t, r.dir)
	if len(lines) != 10 {
		t.Fatalf("%d records, want 10", len(lines))
	}
	seen := map[[2]bool]int{}
	for _, l := range lines {
		id := l.rec.Metadata["x_request_id"]
		failed := l.rec.Error != nil
		wantTop := []string{"metadata", "metrics", "trace_data"}
		if failed {
			wantTop = append(wantTop, "error")
		}
		if !slices.Equal(l.top, wantTop) {
			t.Errorf("%v: members %v, want %v (AIPerf's MetricRecordInfo order)", id, l.top, wantTop)
			continue
		}
		_, newConn := l.trace["tcp_connect_start_ns"]
		_, reused := l.trace["connection_reused_ns"]
		// Rarely net/http hands a request a new connection another request
		// dialed: no connect phase of its own, and not reused either
		// (docs/METRICS.md §2.3).
		handedOver := !newConn && !reused
		seen[[2]bool{failed, newConn}]++
		want := expectedTraceKeys(failed, newConn)
		if handedOver {
			want = slices.DeleteFunc(want, func(k string) bool { return k == "connection_reused_ns" })
		}
		if !slices.Equal(l.keys, want) {
			t.Errorf("%v (failed %v, new connection %v): trace_data members\n got %v\nwant %v", id, failed, newConn, l.keys, want)
		}
		if l.str(t, "trace_type") != "aiohttp" {
			t.Errorf("%v: trace_type %s", id, l.trace["trace_type"])
		}
		for _, k := range []string{"request_chunks", "response_chunks"} {
			if string(l.trace[k]) != "[]" {
				t.Errorf("%v: %s = %s, AIPerf 0.13 always writes []", id, k, l.trace[k])
			}
		}
		code, reason := int64(200), "OK"
		if failed {
			code, reason = 500, "Internal Server Error"
		}
		if l.int(t, "response_status_code") != code || l.str(t, "response_reason") != reason {
			t.Errorf("%v: status %s %s, want %d %s", id, l.trace["response_status_code"], l.trace["response_reason"], code, reason)
		}
		// Wall-clock epoch stamps inside the request's own span.
		start, end := int64(l.rec.Metadata["request_start_ns"].(float64)), int64(l.rec.Metadata["request_end_ns"].(float64))
		const slack = int64(time.Millisecond) // the metadata's float64 decoding rounds to ~256 ns
		for _, k := range l.keys {
			if !strings.HasSuffix(k, "_ns") || k == "sending_ns" || k == "waiting_ns" || k == "receiving_ns" ||
				k == "duration_ns" || k == "blocked_ns" || k == "connecting_ns" {
				continue
			}
			if v := l.int(t, k); v < start-slack || v > end+slack {
				t.Errorf("%v: %s = %d, outside the request [%d, %d]", id, k, v, start, end)
			}
		}
		// The durations are the stamps' differences, in ns.
		span := func(a, b string) int64 { return l.int(t, b) - l.int(t, a) }
		if l.int(t, "sending_ns") != span("request_send_start_ns", "request_send_end_ns") ||
			l.int(t, "waiting_ns") != span("request_send_end_ns", "response_receive_start_ns") ||
			l.int(t, "duration_ns") != span("request_send_start_ns", "response_receive_end_ns") ||
			l.int(t, "blocked_ns") != span("connection_pool_wait_start_ns", "connection_pool_wait_end_ns") {
			t.Errorf("%v: durations disagree with the stamps: %v", id, l.trace)
		}
		if newConn {
			if l.int(t, "connecting_ns") != span("tcp_connect_start_ns", "tcp_connect_end_ns") {
				t.Errorf("%v: connecting_ns disagrees with the stamps", id)
			}
		} else if reused && l.int(t, "connection_reused_ns") != l.int(t, "connection_pool_wait_end_ns") {
			t.Errorf("%v: connection_reused_ns is not the end of the pool wait", id)
		}
		if failed {
			if l.int(t, "receiving_ns") != 0 || l.int(t, "response_chunks_count") != 1 {
				t.Errorf("%v: an error body is one chunk, receiving 0: %v", id, l.trace)
			}
			continue
		}
		// The successful record's metrics are the same measurements.
		ms := func(key string) float64 { return float64(l.int(t, key)) / 1e6 }
		for key, tag := range map[string]string{"sending_ns": "http_req_sending", "waiting_ns": "http_req_waiting",
			"receiving_ns": "http_req_receiving", "duration_ns": "http_req_duration", "blocked_ns": "http_req_blocked"} {
			if got, want := ms(key), recordFloat(t, l.rec, tag); math.Abs(got-want) > 1e-9 {
				t.Errorf("%v: %s = %v ms, %s = %v ms", id, key, got, tag, want)
			}
		}
		if got, want := float64(l.int(t, "request_bytes_total"))/1024, recordFloat(t, l.rec, "http_req_data_sent"); got != want {
			t.Errorf("%v: request_bytes_total/1024 = %v, http_req_data_sent %v", id, got, want)
		}
		if got, want := float64(l.int(t, "response_chunks_count")), recordFloat(t, l.rec, "http_req_chunks_received"); got != want {
			t.Errorf("%v: response_chunks_count %v, http_req_chunks_received %v", id, got, want)
		}
		if got := recordFloat(t, l.rec, "http_req_connection_reused"); (got == 1) != reused {
			t.Errorf("%v: http_req_connection_reused %v, connection_reused_ns written: %v", id, got, reused)
		}
	}
	if seen[[2]bool{false, true}]+seen[[2]bool{true, true}] == 0 || seen[[2]bool{false, false}] == 0 || seen[[2]bool{true, false}]+seen[[2]bool{true, true}] == 0 {
		t.Errorf("cases seen (failed, new connection): %v; want new, reused and failed requests", seen)
	}

	// The console: AIPerf's table, before the metrics table, and the same
	// in profile_export_console.txt.
	table := traceTable(r.stdout)
	if table == "" {
		t.Fatalf("no %q table on stdout:\n%s", httpTraceTitle, r.stdout)
	}
	last := -1
	for _, row := range httpTraceRows {
		i := strings.Index(table, row+" │")
		if i < 0 {
			t.Errorf("table lacks row %q:\n%s", row, table)
			continue
		}
		if i < last {
			t.Errorf("row %q out of AIPerf's order:\n%s", row, table)
		}
		last = i
	}
	if n := strings.Count(table, "\n│"); n != len(httpTraceRows) {
		t.Errorf("%d rows, want AIPerf's %d:\n%s", n, len(httpTraceRows), table)
	}
	if !strings.Contains(table, "┃                          Metric ┃") || !strings.Contains(table, "┃   avg ┃") {
		t.Errorf("columns are not AIPerf's (Metric, avg, min, max, p99, p90, p50, std):\n%s", table)
	}
	if ti, mi := strings.Index(r.stdout, httpTraceTitle), strings.Index(r.stdout, "NVIDIA AIPerf | LLM Metrics"); mi < 0 || ti > mi {
		t.Errorf("the HTTP trace table must come before the metrics table, as in AIPerf")
	}
	text, err := os.ReadFile(filepath.Join(r.dir, "profile_export_console.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got := traceTable(string(text)); got != table {
		t.Errorf("profile_export_console.txt's table differs from the console's:\n%s\nconsole:\n%s", got, table)
	}
	// The metrics table itself still leaves the HTTP metrics out.
	if _, llm, _ := strings.Cut(r.stdout, "NVIDIA AIPerf | LLM Metrics"); strings.Contains(llm, "HTTP Blocked") {
		t.Error("the metrics table shows the HTTP trace metrics")
	}

	var ic struct {
		InputConfig struct {
			Artifacts map[string]any `json:"artifacts"`
		} `json:"input_config"`
	}
	if err := json.Unmarshal(traceArtifact(t, r, "profile_export_aiperf.json"), &ic); err != nil {
		t.Fatal(err)
	}
	if a := ic.InputConfig.Artifacts; a["trace"] != true || a["show_trace_timing"] != true {
		t.Errorf("input_config.artifacts = %v, want trace and show_trace_timing true", a)
	}
}

// Without the flags: no trace_data in any record, no trace table anywhere,
// nothing in input_config.
func TestHTTPTraceFlagsOff(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	r := profile(t, "-m", "mock-model", "-u", url, "--endpoint-type", "chat", "--streaming", "--concurrency", "2",
		"--request-count", "4", "--isl", "32", "--osl", "8")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	lines := readTracedLines(t, r.dir)
	if len(lines) != 4 {
		t.Fatalf("%d records, want 4", len(lines))
	}
	for _, l := range lines {
		if !slices.Equal(l.top, []string{"metadata", "metrics"}) {
			t.Errorf("members %v without --export-http-trace", l.top)
		}
		if _, ok := l.rec.Metrics["http_req_duration"]; !ok {
			t.Error("the http_req_* metrics are always in the records, as in AIPerf")
		}
	}
	text, err := os.ReadFile(filepath.Join(r.dir, "profile_export_console.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.stdout, httpTraceTitle) || bytes.Contains(text, []byte(httpTraceTitle)) {
		t.Error("the HTTP trace table is shown without --show-trace-timing")
	}
	if !strings.Contains(r.stdout, "NVIDIA AIPerf | LLM Metrics") {
		t.Error("no metrics table")
	}
	if strings.Contains(string(traceArtifact(t, r, "profile_export_aiperf.json")), `"show_trace_timing"`) {
		t.Error("input_config names show_trace_timing without the flag")
	}
}

// traceArtifact returns an artifact of the run.
func traceArtifact(t *testing.T, r *profileRun, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
