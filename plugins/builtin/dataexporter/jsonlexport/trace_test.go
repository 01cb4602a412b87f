package jsonlexport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/core/clock"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// traceDurations are AIPerf's computed members; every other *_ns member is
// a wall-clock stamp.
var traceDurations = map[string]bool{"sending_ns": true, "waiting_ns": true, "receiving_ns": true,
	"duration_ns": true, "blocked_ns": true, "dns_lookup_ns": true, "connecting_ns": true}

// member is one JSON object member, in document order.
type member struct {
	Key   string
	Value any
}

// orderedMembers decodes a JSON object keeping its member order (numbers
// as json.Number).
func orderedMembers(t *testing.T, raw []byte) []member {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", raw)
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, member{tok.(string), v})
	}
	return out
}

// traceFromLine returns the trace_data object of a line, its stamps turned
// back from the wall clock to our perf clock (clock.WallNs(0) subtracted),
// so it can be compared with AIPerf's export made with reference time and
// reference perf both 0 (where its wall stamp equals the perf stamp).
func traceFromLine(t *testing.T, line []byte) []member {
	t.Helper()
	var rec map[string]json.RawMessage
	if err := json.Unmarshal(line, &rec); err != nil {
		t.Fatalf("line is not JSON: %v\n%s", err, line)
	}
	raw, ok := rec["trace_data"]
	if !ok {
		t.Fatalf("no trace_data in %s", line)
	}
	ms := orderedMembers(t, raw)
	for i, m := range ms {
		n, isNum := m.Value.(json.Number)
		if !isNum || !strings.HasSuffix(m.Key, "_ns") || traceDurations[m.Key] {
			continue
		}
		v, err := n.Int64()
		if err != nil {
			t.Fatalf("%s = %v: %v", m.Key, n, err)
		}
		ms[i].Value = json.Number(fmt.Sprint(v - clock.WallNs(0)))
	}
	return ms
}

// traceCases are traces as our transport records them, each with the line
// AIPerf 0.13 writes for the same stamps: AioHttpTraceData with these
// *_perf_ns values and reference_time_ns = reference_perf_ns = 0, then
// orjson.dumps(trace.to_export().model_dump(exclude_none=True, mode="json")),
// run in AIPerf 0.13.0's venv (the pool-wait stamps set too, as ours always
// are; connection_reused_perf_ns at the pool wait's end; dns_cache_miss at
// the lookup's start).
var traceCases = []struct {
	name   string
	trace  sdk.HTTPTrace
	status int
	aiperf string
}{
	{"new connection, streamed body",
		sdk.HTTPTrace{RequestSendStartNs: 1000, PoolWaitStartNs: 1000, PoolWaitEndNs: 1500,
			TCPConnectStartNs: 1500, TCPConnectEndNs: 3000, RequestHeadersSentNs: 3200, RequestSendEndNs: 3300,
			RequestChunks: 1, RequestBytes: 470, ResponseHeadersReceivedNs: 4000,
			ResponseReceiveStartNs: 4100, ResponseReceiveEndNs: 9000, ResponseChunks: 17, ResponseBytes: 3664},
		200,
		`{"trace_type":"aiohttp","request_send_start_ns":1000,"request_headers_sent_ns":3200,"request_chunks":[],"request_send_end_ns":3300,"request_chunks_count":1,"request_bytes_total":470,"response_status_code":200,"response_reason":"OK","response_receive_start_ns":4100,"response_headers_received_ns":4000,"response_chunks":[],"response_chunks_count":17,"response_bytes_total":3664,"response_receive_end_ns":9000,"connection_pool_wait_start_ns":1000,"connection_pool_wait_end_ns":1500,"tcp_connect_start_ns":1500,"tcp_connect_end_ns":3000,"sending_ns":2300,"waiting_ns":800,"receiving_ns":4900,"duration_ns":8000,"blocked_ns":500,"connecting_ns":1500}`},
	{"reused connection, whole body",
		sdk.HTTPTrace{RequestSendStartNs: 1000, PoolWaitStartNs: 1000, PoolWaitEndNs: 1010, ConnectionReused: true,
			RequestHeadersSentNs: 1100, RequestSendEndNs: 1150, RequestChunks: 1, RequestBytes: 431,
			ResponseHeadersReceivedNs: 5000, ResponseReceiveStartNs: 5200, ResponseReceiveEndNs: 5200,
			ResponseChunks: 1, ResponseBytes: 412},
		200,
		`{"trace_type":"aiohttp","request_send_start_ns":1000,"request_headers_sent_ns":1100,"request_chunks":[],"request_send_end_ns":1150,"request_chunks_count":1,"request_bytes_total":431,"response_status_code":200,"response_reason":"OK","response_receive_start_ns":5200,"response_headers_received_ns":5000,"response_chunks":[],"response_chunks_count":1,"response_bytes_total":412,"response_receive_end_ns":5200,"connection_pool_wait_start_ns":1000,"connection_pool_wait_end_ns":1010,"connection_reused_ns":1010,"sending_ns":150,"waiting_ns":4050,"receiving_ns":0,"duration_ns":4200,"blocked_ns":10}`},
	{"DNS lookup",
		sdk.HTTPTrace{RequestSendStartNs: 1000, PoolWaitStartNs: 1000, PoolWaitEndNs: 1200,
			TCPConnectStartNs: 1200, TCPConnectEndNs: 4000, DNSLookupStartNs: 1200, DNSLookupEndNs: 2500,
			RequestHeadersSentNs: 4100, RequestSendEndNs: 4150, RequestChunks: 1, RequestBytes: 400,
			ResponseHeadersReceivedNs: 6000, ResponseReceiveStartNs: 6100, ResponseReceiveEndNs: 6100,
			ResponseChunks: 1, ResponseBytes: 411},
		200,
		`{"trace_type":"aiohttp","request_send_start_ns":1000,"request_headers_sent_ns":4100,"request_chunks":[],"request_send_end_ns":4150,"request_chunks_count":1,"request_bytes_total":400,"response_status_code":200,"response_reason":"OK","response_receive_start_ns":6100,"response_headers_received_ns":6000,"response_chunks":[],"response_chunks_count":1,"response_bytes_total":411,"response_receive_end_ns":6100,"connection_pool_wait_start_ns":1000,"connection_pool_wait_end_ns":1200,"tcp_connect_start_ns":1200,"tcp_connect_end_ns":4000,"dns_cache_miss_ns":1200,"dns_lookup_start_ns":1200,"dns_lookup_end_ns":2500,"sending_ns":3150,"waiting_ns":1950,"receiving_ns":0,"duration_ns":5100,"blocked_ns":200,"dns_lookup_ns":1300,"connecting_ns":2800}`},
	{"HTTP 500",
		sdk.HTTPTrace{RequestSendStartNs: 1000, PoolWaitStartNs: 1000, PoolWaitEndNs: 1010, ConnectionReused: true,
			RequestHeadersSentNs: 1100, RequestSendEndNs: 1150, RequestChunks: 1, RequestBytes: 439,
			ResponseHeadersReceivedNs: 3000, ResponseReceiveStartNs: 3100, ResponseReceiveEndNs: 3100,
			ResponseChunks: 1, ResponseBytes: 120},
		500,
		`{"trace_type":"aiohttp","request_send_start_ns":1000,"request_headers_sent_ns":1100,"request_chunks":[],"request_send_end_ns":1150,"request_chunks_count":1,"request_bytes_total":439,"response_status_code":500,"response_reason":"Internal Server Error","response_receive_start_ns":3100,"response_headers_received_ns":3000,"response_chunks":[],"response_chunks_count":1,"response_bytes_total":120,"response_receive_end_ns":3100,"connection_pool_wait_start_ns":1000,"connection_pool_wait_end_ns":1010,"connection_reused_ns":1010,"sending_ns":150,"waiting_ns":1950,"receiving_ns":0,"duration_ns":2100,"blocked_ns":10}`},
	{"headers but no body chunk",
		sdk.HTTPTrace{RequestSendStartNs: 1000, PoolWaitStartNs: 1000, PoolWaitEndNs: 1010, ConnectionReused: true,
			RequestHeadersSentNs: 1100, RequestSendEndNs: 1150, RequestChunks: 1, RequestBytes: 439,
			ResponseHeadersReceivedNs: 3000},
		200,
		`{"trace_type":"aiohttp","request_send_start_ns":1000,"request_headers_sent_ns":1100,"request_chunks":[],"request_send_end_ns":1150,"request_chunks_count":1,"request_bytes_total":439,"response_status_code":200,"response_reason":"OK","response_headers_received_ns":3000,"response_chunks":[],"response_chunks_count":0,"response_bytes_total":0,"connection_pool_wait_start_ns":1000,"connection_pool_wait_end_ns":1010,"connection_reused_ns":1010,"sending_ns":150,"blocked_ns":10}`},
}

func traceRecord(tr sdk.HTTPTrace, status int) *sdk.RecordInfo {
	rec := successRecord(1)
	rec.Request = &sdk.RequestRecord{Status: status, HTTPTrace: &tr}
	return rec
}

// With export_http_trace the line carries AIPerf's trace_data member for
// member, in its order, with wall-clock stamps and ns durations.
func TestTraceDataMatchesAIPerf(t *testing.T) {
	for _, tc := range traceCases {
		t.Run(tc.name, func(t *testing.T) {
			line, err := appendRecord(&scratch{}, traceRecord(tc.trace, tc.status), true)
			if err != nil {
				t.Fatal(err)
			}
			got := traceFromLine(t, line)
			want := orderedMembers(t, []byte(tc.aiperf))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("trace_data\n got %v\nwant %v", got, want)
			}
		})
	}
}

// trace_data sits between metrics and error, as in AIPerf's
// MetricRecordInfo; the stamps are wall-clock epoch nanoseconds.
func TestTraceDataPlacementAndClock(t *testing.T) {
	rec := traceRecord(traceCases[3].trace, 500)
	rec.Error = &sdk.ErrorDetails{Code: 500, Type: "Internal Server Error", Message: "boom"}
	line, err := appendRecord(&scratch{}, rec, true)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, m := range orderedMembers(t, bytes.TrimSpace(line)) {
		keys = append(keys, m.Key)
	}
	if want := []string{"metadata", "metrics", "trace_data", "error"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("members %v, want %v", keys, want)
	}
	var doc struct {
		TraceData struct {
			Start int64 `json:"request_send_start_ns"`
			End   int64 `json:"response_receive_end_ns"`
		} `json:"trace_data"`
	}
	if err := json.Unmarshal(line, &doc); err != nil {
		t.Fatal(err)
	}
	if got, want := doc.TraceData.Start, clock.WallNs(1000); got != want {
		t.Errorf("request_send_start_ns = %d, want clock.WallNs(1000) = %d", got, want)
	}
	if got, want := doc.TraceData.End, clock.WallNs(3100); got != want {
		t.Errorf("response_receive_end_ns = %d, want clock.WallNs(3100) = %d", got, want)
	}
}

// Without the setting, or without a trace, the line is the plain one.
func TestNoTraceData(t *testing.T) {
	plain, err := appendRecord(&scratch{}, successRecord(1), false)
	if err != nil {
		t.Fatal(err)
	}
	plain = append([]byte(nil), plain...)
	for _, tc := range []struct {
		name  string
		rec   *sdk.RecordInfo
		trace bool
	}{
		{"setting off", traceRecord(traceCases[0].trace, 200), false},
		{"no request record", successRecord(1), true},
		{"request without trace", func() *sdk.RecordInfo {
			r := successRecord(1)
			r.Request = &sdk.RequestRecord{Status: 200}
			return r
		}(), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line, err := appendRecord(&scratch{}, tc.rec, tc.trace)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(line, plain) {
				t.Errorf("line\n got %s\nwant %s", line, plain)
			}
		})
	}
}

// The setting is export_http_trace, decoded strictly; it is off by default.
func TestExportHTTPTraceSetting(t *testing.T) {
	e := New()
	if e.settings.ExportHTTPTrace {
		t.Fatal("export_http_trace is on by default")
	}
	if err := sdk.ApplyConfig(e, "data_exporter.jsonl", []byte(`{"export_http_trace":true}`)); err != nil {
		t.Fatal(err)
	}
	if !e.settings.ExportHTTPTrace {
		t.Fatal("export_http_trace not applied")
	}
	if err := sdk.ApplyConfig(New(), "data_exporter.jsonl", []byte(`{"http_trace":true}`)); err == nil {
		t.Error("an unknown setting was accepted")
	}

	// Through the sink: every line carries its trace.
	dir := t.TempDir()
	if err := e.Open(&sdk.ExportContext{ArtifactDir: dir}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range traceCases {
		if err := e.WriteRecord(traceRecord(tc.trace, tc.status)); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, filepath.Join(dir, DefaultFileName))
	if len(lines) != len(traceCases) {
		t.Fatalf("%d lines, want %d", len(lines), len(traceCases))
	}
	for i, l := range lines {
		if got, want := traceFromLine(t, []byte(l)), orderedMembers(t, []byte(traceCases[i].aiperf)); !reflect.DeepEqual(got, want) {
			t.Errorf("line %d trace_data\n got %v\nwant %v", i, got, want)
		}
	}
}

// Writing a line allocates nothing in the steady state, with the trace and
// without it.
func TestWriteRecordAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop buffers")
	}
	for _, trace := range []bool{false, true} {
		e := New()
		e.settings.ExportHTTPTrace = trace
		if err := e.Open(&sdk.ExportContext{ArtifactDir: t.TempDir()}); err != nil {
			t.Fatal(err)
		}
		rec := traceRecord(traceCases[0].trace, 200)
		if allocs := testing.AllocsPerRun(200, func() {
			if err := e.WriteRecord(rec); err != nil {
				t.Fatal(err)
			}
		}); allocs != 0 {
			t.Errorf("export_http_trace=%v: %v allocations per record", trace, allocs)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func BenchmarkJSONLWriteHTTPTrace(b *testing.B) {
	e := New()
	e.settings.ExportHTTPTrace = true
	if err := e.Open(&sdk.ExportContext{ArtifactDir: b.TempDir()}); err != nil {
		b.Fatal(err)
	}
	rec := traceRecord(traceCases[0].trace, 200)
	b.ReportAllocs()
	for b.Loop() {
		if err := e.WriteRecord(rec); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if err := e.Close(); err != nil {
		b.Fatal(err)
	}
}
