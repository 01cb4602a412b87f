package jsonlexport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func i64(v int64) *int64 { return &v }

var profilingIndex0 = 0

func successRecord(n int) *sdk.RecordInfo {
	return &sdk.RecordInfo{
		Metadata: sdk.RecordMetadata{
			SessionNum: n, XRequestID: fmt.Sprintf("req-%d", n), XCorrelationID: "corr-1",
			ConversationID: "conv-1", TurnIndex: 0,
			RequestStartNs: 1759813207532900363, RequestAckNs: i64(1759813207650730976),
			RequestEndNs: 1759813207838764604, WorkerID: "worker_359d423a",
			RecordProcessorID: "record_processor_1fa47cd7", BenchmarkPhase: sdk.PhaseProfiling,
			CreditIssuedNs: i64(1759813207530000000), ProfilingIndex: &profilingIndex0,
			PhaseName: sdk.PhaseProfiling, PhaseKind: sdk.PhaseProfiling, RootCorrelationID: "corr-1",
		},
		Metrics: map[string]sdk.RecordMetric{
			"time_to_first_token":    {Value: 255.886568, Unit: "ms"},
			"output_sequence_length": {Value: 9, Unit: "tokens"},
			"inter_chunk_latency":    {Value: []float64{4.898437, 5.316006, 5.0}, Unit: "ms"},
			"request_latency":        {Value: 297.525228, Unit: "ms"},
		},
	}
}

func cancelledRecord() *sdk.RecordInfo {
	return &sdk.RecordInfo{
		Metadata: sdk.RecordMetadata{
			SessionNum: 7, XRequestID: "req-c", XCorrelationID: "corr-c", ConversationID: "conv-c",
			RequestStartNs: 100, RequestEndNs: 200, WorkerID: "w", RecordProcessorID: "rp",
			BenchmarkPhase: sdk.PhaseWarmup, PhaseName: sdk.PhaseWarmup, PhaseKind: sdk.PhaseWarmup,
			WasCancelled: true, CancellationTimeNs: i64(1759879161119772754), RootCorrelationID: "corr-c",
		},
		Metrics: map[string]sdk.RecordMetric{"error_isl": {Value: int64(550), Unit: "tokens"}},
		Error:   &sdk.ErrorDetails{Code: 499, Type: "RequestCancellationError", Message: "Request was cancelled after 0.000 seconds"},
	}
}

func TestLineFormatGolden(t *testing.T) {
	tests := []struct {
		name string
		rec  *sdk.RecordInfo
		want string
	}{
		// AIPerf 0.13's metadata order; no "error" member on a success.
		{"success", successRecord(45),
			`{"metadata":{"session_num":45,"x_request_id":"req-45","x_correlation_id":"corr-1","conversation_id":"conv-1","turn_index":0,"credit_issued_ns":1759813207530000000,"request_start_ns":1759813207532900363,"request_ack_ns":1759813207650730976,"request_end_ns":1759813207838764604,"worker_id":"worker_359d423a","record_processor_id":"record_processor_1fa47cd7","benchmark_phase":"profiling","phase_index":0,"profiling_index":0,"phase_name":"profiling","phase_kind":"profiling","was_cancelled":false,"context_overflow_skip":false,"agent_depth":0,"root_correlation_id":"corr-1"},` +
				`"metrics":{"inter_chunk_latency":{"value":[4.898437,5.316006,5.0],"unit":"ms"},"output_sequence_length":{"value":9,"unit":"tokens"},"request_latency":{"value":297.525228,"unit":"ms"},"time_to_first_token":{"value":255.886568,"unit":"ms"}}}` + "\n"},
		// A warmup record has no profiling_index.
		{"cancelled", cancelledRecord(),
			`{"metadata":{"session_num":7,"x_request_id":"req-c","x_correlation_id":"corr-c","conversation_id":"conv-c","turn_index":0,"request_start_ns":100,"request_end_ns":200,"worker_id":"w","record_processor_id":"rp","benchmark_phase":"warmup","phase_index":0,"phase_name":"warmup","phase_kind":"warmup","was_cancelled":true,"cancellation_time_ns":1759879161119772754,"context_overflow_skip":false,"agent_depth":0,"root_correlation_id":"corr-c"},` +
				`"metrics":{"error_isl":{"value":550,"unit":"tokens"}},"error":{"code":499,"type":"RequestCancellationError","message":"Request was cancelled after 0.000 seconds"}}` + "\n"},
		{"transport error without status", &sdk.RecordInfo{Error: &sdk.ErrorDetails{Type: "ClientConnectorError", Message: "refused"}},
			`{"metadata":{"session_num":0,"x_request_id":"","x_correlation_id":"","conversation_id":"","turn_index":0,"request_start_ns":0,"request_end_ns":0,"worker_id":"","record_processor_id":"","benchmark_phase":"","phase_index":0,"phase_name":"","phase_kind":"","was_cancelled":false,"context_overflow_skip":false,"agent_depth":0,"root_correlation_id":""},"metrics":{},"error":{"type":"ClientConnectorError","message":"refused"}}` + "\n"},
		// Our extension: the server's Retry-After on a 429 or 503.
		{"rate limited with Retry-After", &sdk.RecordInfo{Error: &sdk.ErrorDetails{Code: 429, Type: "Too Many Requests", Message: "slow down", RetryAfter: "30"}},
			`{"metadata":{"session_num":0,"x_request_id":"","x_correlation_id":"","conversation_id":"","turn_index":0,"request_start_ns":0,"request_end_ns":0,"worker_id":"","record_processor_id":"","benchmark_phase":"","phase_index":0,"phase_name":"","phase_kind":"","was_cancelled":false,"context_overflow_skip":false,"agent_depth":0,"root_correlation_id":""},"metrics":{},"error":{"code":429,"type":"Too Many Requests","message":"slow down","retry_after":"30"}}` + "\n"},
		{"non-finite becomes null", &sdk.RecordInfo{Metrics: map[string]sdk.RecordMetric{
			"a": {Value: math.Inf(1), Unit: "ms"}, "b": {Value: []float64{1, math.NaN()}, Unit: "ms"}}},
			`{"metadata":{"session_num":0,"x_request_id":"","x_correlation_id":"","conversation_id":"","turn_index":0,"request_start_ns":0,"request_end_ns":0,"worker_id":"","record_processor_id":"","benchmark_phase":"","phase_index":0,"phase_name":"","phase_kind":"","was_cancelled":false,"context_overflow_skip":false,"agent_depth":0,"root_correlation_id":""},"metrics":{"a":{"value":null,"unit":"ms"},"b":{"value":[1.0,null],"unit":"ms"}}}` + "\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := appendRecord(&scratch{}, tc.rec, false)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("line\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// The hand-written encoder must agree with encoding/json on the RecordInfo
// json tags (same keys, same values) for finite data.
func TestLineMatchesStructTags(t *testing.T) {
	for _, rec := range []*sdk.RecordInfo{successRecord(1), cancelledRecord()} {
		line, err := appendRecord(&scratch{}, rec, false)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		var got, want any
		if err := json.Unmarshal(line, &got); err != nil {
			t.Fatalf("line is not JSON: %v\n%s", err, line)
		}
		_ = json.Unmarshal(ref, &want)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("mismatch\n got %s\nwant %s", line, ref)
		}
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.TrimSuffix(string(data), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func openSink(t *testing.T, level string) (*Exporter, string) {
	t.Helper()
	return openSinkWith(t, New(), level)
}

func openSinkWith(t *testing.T, e *Exporter, level string) (*Exporter, string) {
	t.Helper()
	dir := t.TempDir()
	ec := &sdk.ExportContext{ArtifactDir: dir, ExportLevel: level, Files: sdk.ArtifactFiles{RecordsJSONL: "profile_export.jsonl"}}
	if err := e.Open(ec); err != nil {
		t.Fatal(err)
	}
	return e, filepath.Join(dir, "profile_export.jsonl")
}

func TestStreamsBeforeCloseByRecordCount(t *testing.T) {
	// Only the count trigger may flush here.
	e, path := openSinkWith(t, &Exporter{flushInterval: time.Hour, flushRecords: 3}, LevelRecords)
	defer e.Close()
	for i := range 2 {
		if err := e.WriteRecord(successRecord(i)); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(readLines(t, path)); n != 0 {
		t.Fatalf("flushed early: %d lines", n)
	}
	if err := e.WriteRecord(successRecord(2)); err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, path)
	if len(lines) != 3 {
		t.Fatalf("want 3 lines visible while open, got %d", len(lines))
	}
	for i, l := range lines {
		var rec sdk.RecordInfo
		if err := json.Unmarshal([]byte(l), &rec); err != nil || rec.Metadata.SessionNum != i {
			t.Fatalf("line %d: %v %+v", i, err, rec.Metadata)
		}
	}
}

func TestStreamsBeforeCloseByTimer(t *testing.T) {
	e, path := openSink(t, "") // unset level defaults to records
	defer e.Close()
	if err := e.WriteRecord(cancelledRecord()); err != nil {
		t.Fatal(err)
	}
	// The 100 ms flusher must make the line visible; the deadline is generous.
	deadline := time.Now().Add(10 * time.Second)
	for len(readLines(t, path)) != 1 {
		if time.Now().After(deadline) {
			t.Fatal("record never flushed while the file was open")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestConcurrentWriters(t *testing.T) {
	e, path := openSink(t, LevelRaw)
	const writers, each = 8, 500
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if err := e.WriteRecord(successRecord(w*each + i)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, path)
	if len(lines) != writers*each {
		t.Fatalf("got %d lines, want %d", len(lines), writers*each)
	}
	seen := make(map[int]bool, len(lines))
	for _, l := range lines {
		var rec sdk.RecordInfo
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("torn line %q: %v", l, err)
		}
		seen[rec.Metadata.SessionNum] = true
	}
	if len(seen) != writers*each {
		t.Fatalf("got %d distinct records", len(seen))
	}
	files, err := e.Export(context.Background(), nil)
	if err != nil || len(files) != 1 || files[0].Path != path || files[0].Label != "JSONL Export" {
		t.Fatalf("Export = %+v, %v", files, err)
	}
}

func TestSummaryLevelWritesNothing(t *testing.T) {
	e, path := openSink(t, LevelSummary)
	if err := e.WriteRecord(successRecord(1)); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("file exists at summary level: %v", err)
	}
	files, err := e.Export(context.Background(), nil)
	if err != nil || len(files) != 0 {
		t.Fatalf("Export = %+v, %v", files, err)
	}
}

func TestMisuseReturnsErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		run  func() error
		want string
	}{
		{"unknown level", func() error {
			return New().Open(&sdk.ExportContext{ArtifactDir: dir, ExportLevel: "everything"})
		}, `unknown export level "everything"`},
		{"nil context", func() error { return New().Open(nil) }, "nil export context"},
		{"write before open", func() error { return New().WriteRecord(successRecord(1)) }, "before Open"},
		{"nil record", func() error { return New().WriteRecord(nil) }, "nil record"},
		{"open twice", func() error {
			e := New()
			ec := &sdk.ExportContext{ArtifactDir: dir}
			_ = e.Open(ec)
			defer e.Close()
			return e.Open(ec)
		}, "Open called twice"},
		{"write after close", func() error {
			e := New()
			_ = e.Open(&sdk.ExportContext{ArtifactDir: dir})
			_ = e.Close()
			if err := e.Close(); err != nil {
				return fmt.Errorf("second Close: %w", err)
			}
			return e.WriteRecord(successRecord(1))
		}, "after Close"},
		{"unencodable value", func() error {
			e := New()
			_ = e.Open(&sdk.ExportContext{ArtifactDir: dir})
			defer e.Close()
			return e.WriteRecord(&sdk.RecordInfo{Metadata: sdk.RecordMetadata{XRequestID: "r9"},
				Metrics: map[string]sdk.RecordMetric{"weird": {Value: make(chan int)}}})
		}, `encode record r9: metric "weird"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want containing %q", err, tc.want)
			}
		})
	}
}

func TestCloseWithoutRecordsLeavesEmptyFile(t *testing.T) {
	e, path := openSink(t, LevelRecords)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Size() != 0 {
		t.Fatalf("stat = %v, %v", info, err)
	}
}

func BenchmarkJSONLWrite(b *testing.B) {
	e := New()
	if err := e.Open(&sdk.ExportContext{ArtifactDir: b.TempDir()}); err != nil {
		b.Fatal(err)
	}
	rec := successRecord(1)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		if err := e.WriteRecord(rec); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "records/s")
	b.StopTimer()
	if err := e.Close(); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkJSONLWriteParallel(b *testing.B) {
	e := New()
	if err := e.Open(&sdk.ExportContext{ArtifactDir: b.TempDir()}); err != nil {
		b.Fatal(err)
	}
	rec := successRecord(1)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := e.WriteRecord(rec); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "records/s")
	b.StopTimer()
	_ = e.Close()
}

// Guard against a bufio regression: a record larger than the buffer must
// still come out whole.
func TestLargeRecord(t *testing.T) {
	e, path := openSink(t, LevelRecords)
	big := make([]float64, 20000)
	for i := range big {
		big[i] = float64(i) + 0.5
	}
	rec := &sdk.RecordInfo{Metrics: map[string]sdk.RecordMetric{"inter_chunk_latency": {Value: big, Unit: "ms"}}}
	if err := e.WriteRecord(rec); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(path)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	if !sc.Scan() {
		t.Fatal("no line")
	}
	var back sdk.RecordInfo
	if err := json.Unmarshal(sc.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if got := back.Metrics["inter_chunk_latency"].Value.([]any); len(got) != 20000 || got[19999] != 19999.5 {
		t.Fatalf("list came back with %d values", len(got))
	}
	if !bytes.HasSuffix(sc.Bytes(), []byte(`,"unit":"ms"}}}`)) {
		t.Fatal("line not terminated properly")
	}
}
