package rawexport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/sdktest"
)

const secret = "sk-unit-test-secret-0123456789"

func i64(v int64) *int64 { return &v }
func intp(v int) *int    { return &v }

func ctxFor(dir, level string) *sdk.ExportContext {
	return &sdk.ExportContext{ArtifactDir: dir, ExportLevel: level,
		Files: sdk.ArtifactFiles{RecordsJSONL: "profile_export.jsonl"}}
}

// streamed is a small streamed chat record with an api key and a -H header.
func streamed() *sdk.RecordInfo {
	rec := &sdk.RequestRecord{
		XRequestID: "req-1", XCorrelationID: "corr-1", Streaming: true, Status: 200,
		StartPerfNs: 1000,
		RequestHeaders: map[string]string{
			"Content-Type": "application/json", "Accept": "text/event-stream",
			"Authorization": "Bearer " + secret, "X-Correlation-ID": "corr-1",
			"X-Request-ID": "req-1", "User-Agent": "aiperf/0.13.0", "X-Tenant": "blue",
			"X-Acme-Token": secret,
		},
		RequestBody: []byte(`{"messages":[{"role":"user","content":"hi <b>&"}],"model":"m","stream":true}`),
		Responses: []sdk.Response{
			{PerfNs: 1100, Data: []byte(`{"choices":[{"delta":{"content":"a"}}]}`)},
			{PerfNs: 1200, Data: []byte(`[DONE]`)},
		},
	}
	return &sdk.RecordInfo{
		Metadata: sdk.RecordMetadata{SessionNum: 3, XRequestID: "req-1", XCorrelationID: "corr-1",
			ConversationID: "session_000003", CreditIssuedNs: i64(5), RequestStartNs: 6, RequestAckNs: i64(7),
			RequestEndNs: 8, WorkerID: "worker_0", RecordProcessorID: "record_processor_0", BenchmarkPhase: "profiling",
			ProfilingIndex: intp(0), PhaseName: "profiling", PhaseKind: "profiling", RootCorrelationID: "corr-1"},
		Metrics: map[string]sdk.RecordMetric{"request_latency": {Value: 1.5, Unit: "ms"}},
		Request: rec,
	}
}

func writeAll(t *testing.T, level string, recs ...*sdk.RecordInfo) (string, []sdk.ExportedFile) {
	t.Helper()
	dir := t.TempDir()
	e := New()
	if err := e.Open(ctxFor(dir, level)); err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := e.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	files, err := e.Export(context.Background(), ctxFor(dir, level))
	if err != nil {
		t.Fatal(err)
	}
	return dir, files
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) == 0 {
		return nil
	}
	if b[len(b)-1] != '\n' {
		t.Fatalf("file does not end in a newline")
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func TestLineFormatGolden(t *testing.T) {
	dir, files := writeAll(t, LevelRaw, streamed())
	path := filepath.Join(dir, "profile_export_raw.jsonl")
	if len(files) != 1 || files[0] != (sdk.ExportedFile{Label: "Raw Records", Path: path}) {
		t.Fatalf("Export = %+v", files)
	}
	lines := readLines(t, path)
	want := `{"metadata":{"session_num":3,"x_request_id":"req-1","x_correlation_id":"corr-1","conversation_id":"session_000003","turn_index":0,` +
		`"credit_issued_ns":5,"request_start_ns":6,"request_ack_ns":7,"request_end_ns":8,"worker_id":"worker_0","record_processor_id":"record_processor_0",` +
		`"benchmark_phase":"profiling","phase_index":0,"profiling_index":0,"phase_name":"profiling","phase_kind":"profiling","was_cancelled":false,` +
		`"context_overflow_skip":false,"agent_depth":0,"root_correlation_id":"corr-1"},` +
		`"start_perf_ns":1000,` +
		`"request_headers":{"User-Agent":"aiperf/0.13.0","X-Request-ID":"req-1","X-Correlation-ID":"corr-1","X-Acme-Token":"<redacted>","X-Tenant":"blue",` +
		`"Authorization":"<redacted>","Accept":"text/event-stream","Content-Type":"application/json"},` +
		`"status":200,` +
		`"responses":[{"perf_ns":1100,"packets":[{"name":"data","value":"{\"choices\":[{\"delta\":{\"content\":\"a\"}}]}"}]},` +
		`{"perf_ns":1200,"packets":[{"name":"data","value":"[DONE]"}]}],` +
		`"payload":{"messages":[{"role":"user","content":"hi <b>&"}],"model":"m","stream":true}}`
	if len(lines) != 1 || lines[0] != want {
		t.Fatalf("line:\n%s\nwant:\n%s", strings.Join(lines, "\n"), want)
	}
	if !json.Valid([]byte(lines[0])) {
		t.Fatal("line is not valid JSON")
	}
}

func TestMetadataMatchesEncodingJSON(t *testing.T) {
	info := streamed()
	info.Metadata.CancellationTimeNs = i64(99)
	info.Metadata.WasCancelled = true
	info.Metadata.ConversationID = "a<b>&\u2028\"c"
	line, err := appendRaw(newScratch(), info)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Metadata json.RawMessage `json:"metadata"`
	}
	if err := json.Unmarshal(line, &got); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(info.Metadata); err != nil {
		t.Fatal(err)
	}
	if string(got.Metadata) != strings.TrimSuffix(want.String(), "\n") {
		t.Fatalf("metadata %s\nwant %s", got.Metadata, want.String())
	}
}

// TestMatchesAIPerfFixtures rebuilds each fixture line (AIPerf 0.13's first
// raw record of configs f and h) as a record and requires the same bytes:
// key order, header order and redaction, packets, error and payload.
func TestMatchesAIPerfFixtures(t *testing.T) {
	for _, name := range []string{"f_chat_raw", "h_chat_errors_raw"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("..", "..", "..", "..", "testdata", "aiperf013", name, "profile_export_raw.jsonl")
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			fixture := bytes.TrimSpace(bytes.SplitN(b, []byte{'\n'}, 2)[0])
			var raw struct {
				Metadata       sdk.RecordMetadata `json:"metadata"`
				StartPerfNs    int64              `json:"start_perf_ns"`
				RequestHeaders orderedHeaders     `json:"request_headers"`
				Status         int                `json:"status"`
				Responses      []struct {
					PerfNs  int64 `json:"perf_ns"`
					Packets []struct {
						Name  string `json:"name"`
						Value string `json:"value"`
					} `json:"packets"`
				} `json:"responses"`
				Error   *sdk.ErrorDetails `json:"error"`
				Payload json.RawMessage   `json:"payload"`
			}
			if err := json.Unmarshal(fixture, &raw); err != nil {
				t.Fatal(err)
			}
			rec := &sdk.RequestRecord{StartPerfNs: raw.StartPerfNs, Status: raw.Status, Streaming: true,
				Error: raw.Error, RequestBody: raw.Payload, RequestHeaders: map[string]string{}}
			for _, h := range raw.RequestHeaders {
				v := h[1]
				if v == Redacted { // what was sent: the secret the export must hide
					v = "Bearer " + secret
				}
				rec.RequestHeaders[h[0]] = v
			}
			for _, r := range raw.Responses {
				if len(r.Packets) != 1 || r.Packets[0].Name != "data" {
					t.Fatalf("fixture packets %+v", r.Packets)
				}
				rec.Responses = append(rec.Responses, sdk.Response{PerfNs: r.PerfNs, Data: []byte(r.Packets[0].Value)})
			}
			line, err := appendRaw(newScratch(), &sdk.RecordInfo{Metadata: raw.Metadata, Error: raw.Error, Request: rec})
			if err != nil {
				t.Fatal(err)
			}
			if got := bytes.TrimSuffix(line, []byte{'\n'}); !bytes.Equal(got, fixture) {
				t.Fatalf("line differs from AIPerf's:\n got %s\nwant %s", got, fixture)
			}
			if bytes.Contains(line, []byte(secret)) {
				t.Fatal("secret written")
			}
		})
	}
}

// orderedHeaders decodes a JSON object into its (name, value) pairs in order.
type orderedHeaders [][2]string

func (o *orderedHeaders) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		return err
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return err
		}
		var v string
		if err := dec.Decode(&v); err != nil {
			return err
		}
		*o = append(*o, [2]string{k.(string), v})
	}
	return nil
}

func TestErrorRecord(t *testing.T) {
	info := streamed()
	info.Request.Status = 500
	info.Request.Responses = nil
	info.Request.Error = &sdk.ErrorDetails{Code: 500, Type: "Internal Server Error", Message: "boom\n"}
	info.Error = info.Request.Error
	line, err := appendRaw(newScratch(), info)
	if err != nil {
		t.Fatal(err)
	}
	s := string(line)
	if !strings.Contains(s, `"status":500,"responses":[],"error":{"code":500,"type":"Internal Server Error","message":"boom\n"},"payload":{`) {
		t.Fatalf("error line %s", s)
	}

	// A transport error: no status, no code.
	info.Request.Status = 0
	info.Request.Error = &sdk.ErrorDetails{Type: "ConnectionError", Message: "refused"}
	info.Error = info.Request.Error
	line, _ = appendRaw(newScratch(), info)
	if s := string(line); strings.Contains(s, `"status"`) || !strings.Contains(s, `"responses":[],"error":{"type":"ConnectionError","message":"refused"},"payload":`) {
		t.Fatalf("transport error line %s", s)
	}

	// Never sent (a later turn that could not be rendered): no headers, no payload.
	info.Request.RequestHeaders, info.Request.RequestBody = nil, nil
	line, _ = appendRaw(newScratch(), info)
	if s := string(line); !strings.Contains(s, `"request_headers":{},"responses":[]`) || strings.Contains(s, `"payload"`) {
		t.Fatalf("unsent line %s", s)
	}
}

func TestNonStreamingResponse(t *testing.T) {
	info := streamed()
	info.Request.Streaming = false
	info.Request.Responses = []sdk.Response{{PerfNs: 42, Data: []byte("{\"choices\":[{\"message\":{\"content\":\"é\"}}]}\n")}}
	line, _ := appendRaw(newScratch(), info)
	want := `"responses":[{"perf_ns":42,"text":"{\"choices\":[{\"message\":{\"content\":\"é\"}}]}\n"}]`
	if !strings.Contains(string(line), want) {
		t.Fatalf("line %s\nwant %s", line, want)
	}
}

func TestPackets(t *testing.T) {
	cases := []struct {
		resp sdk.Response
		want string
	}{
		{sdk.Response{PerfNs: 1, Data: []byte("a\nb ")}, `[{"name":"data","value":"a"},{"name":"data","value":"b"}]`},
		{sdk.Response{PerfNs: 1, Event: "error", Data: []byte(`{"x":1}`)}, `[{"name":"event","value":"error"},{"name":"data","value":"{\"x\":1}"}]`},
		{sdk.Response{PerfNs: 1, Event: "error"}, `[{"name":"event","value":"error"}]`},
		{sdk.Response{PerfNs: 1}, `[{"name":"data","value":""}]`},
		{sdk.Response{PerfNs: 1, Data: []byte("bad \xff utf8")}, `[{"name":"data","value":"bad \ufffd utf8"}]`},
	}
	for _, tc := range cases {
		got := string(appendResponse(nil, &tc.resp, true))
		if want := `{"perf_ns":1,"packets":` + tc.want + `}`; got != want {
			t.Errorf("%q: %s\nwant %s", tc.resp.Data, got, want)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("%s is not valid JSON", got)
		}
	}
}

func TestPayload(t *testing.T) {
	cases := []struct{ body, want string }{
		{`{"a":1,"b":"<&>"}`, `{"a":1,"b":"<&>"}`},
		{"{\n  \"a\": 1,\r\n  \"b\": [1, 2]\n}", `{"a":1,"b":[1,2]}`},
		{`not json`, `"not json"`},
		{`{}`, `{}`},
		{` [1, 2] `, ` [1, 2] `},
		{"{\n bad", `"{\n bad"`},
		{"{\n\"a\": }", `"{\n\"a\": }"`},
		{`"str"`, `"\"str\""`},
	}
	for _, tc := range cases {
		if got := string(appendPayload(nil, []byte(tc.body))); got != tc.want {
			t.Errorf("%q: %s, want %s", tc.body, got, tc.want)
		}
	}
}

func TestSensitiveHeader(t *testing.T) {
	for _, name := range []string{
		// AIPerf 0.13's exact names.
		"Authorization", "proxy-authorization", "X-API-Key", "api-key", "Ocp-Apim-Subscription-Key", "x-goog-api-key",
		"x-functions-key", "aeg-sas-key", "X-Amz-Security-Token", "Cookie", "set-cookie", "x-auth-token",
		"x-access-token", "x-session-token", "x-csrf-token", "x-xsrf-token",
		// AIPerf's fragments.
		"X-Session-Affinity", "X-Session-ID", "X-Tenant-Secret", "X-Acme-Token", "x-password", "x-passwd",
		"x-credential", "x-apikey", "x-api_key", "x-signature", "x-private-key", "x-access-key",
		// core/config's additions.
		"key", "X-Custom-Key", "x_custom_key", "X-Bearer", " Authorization ",
	} {
		if !SensitiveHeader(name) {
			t.Errorf("SensitiveHeader(%q) = false", name)
		}
	}
	for _, name := range []string{"User-Agent", "X-Request-ID", "X-Correlation-ID", "Accept", "Content-Type", "X-Tenant", "Accept-Language", "Keyboard"} {
		if SensitiveHeader(name) {
			t.Errorf("SensitiveHeader(%q) = true", name)
		}
	}
}

func TestFileName(t *testing.T) {
	for in, want := range map[string]string{
		"": "profile_export_raw.jsonl", "profile_export.jsonl": "profile_export_raw.jsonl",
		"foo.jsonl": "foo_raw.jsonl", "weird": "weird_raw.jsonl",
	} {
		if got := FileName(sdk.ArtifactFiles{RecordsJSONL: in}); got != want {
			t.Errorf("FileName(%q) = %q, want %q", in, got, want)
		}
	}
	dir := t.TempDir()
	e := New()
	ec := ctxFor(dir, LevelRaw)
	ec.Files.RecordsJSONL = "run1.jsonl"
	if err := e.Open(ec); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "run1_raw.jsonl")); err != nil {
		t.Fatal(err)
	}
}

func TestInactiveBelowRawLevel(t *testing.T) {
	for _, level := range []string{"", LevelSummary, LevelRecords} {
		dir, files := writeAll(t, level, streamed(), &sdk.RecordInfo{}) // no Request: not even looked at
		if len(files) != 0 {
			t.Errorf("level %q: Export = %+v", level, files)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("level %q wrote %v", level, entries)
		}
	}
}

func TestInactiveWriteAllocatesNothing(t *testing.T) {
	e := New()
	if err := e.Open(ctxFor(t.TempDir(), LevelRecords)); err != nil {
		t.Fatal(err)
	}
	rec := streamed()
	if n := testing.AllocsPerRun(100, func() { _ = e.WriteRecord(rec) }); n != 0 {
		t.Fatalf("inactive WriteRecord allocates %v times", n)
	}
}

func TestActiveWriteAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	e := New()
	if err := e.Open(ctxFor(t.TempDir(), LevelRaw)); err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	rec := streamed()
	for range 20 {
		rec.Request.Responses = append(rec.Request.Responses, rec.Request.Responses[0])
	}
	if n := testing.AllocsPerRun(200, func() { _ = e.WriteRecord(rec) }); n != 0 {
		t.Fatalf("WriteRecord allocates %v times per record", n)
	}
}

func TestMisuseReturnsErrors(t *testing.T) {
	e := New()
	if err := e.WriteRecord(streamed()); err == nil {
		t.Error("WriteRecord before Open: no error")
	}
	if err := e.Open(nil); err == nil {
		t.Error("Open(nil): no error")
	}
	if err := New().Open(ctxFor(t.TempDir(), "verbose")); err == nil {
		t.Error("unknown level: no error")
	}
	if err := e.Open(ctxFor(t.TempDir(), LevelRaw)); err != nil {
		t.Fatal(err)
	}
	if err := e.Open(ctxFor(t.TempDir(), LevelRaw)); err == nil {
		t.Error("Open twice: no error")
	}
	if err := e.WriteRecord(nil); err == nil {
		t.Error("nil record: no error")
	}
	if err := e.WriteRecord(&sdk.RecordInfo{}); err == nil {
		t.Error("record without its request: no error")
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := e.WriteRecord(streamed()); err == nil {
		t.Error("WriteRecord after Close: no error")
	}
	if _, err := New().Export(canceled(), ctxFor("", LevelRaw)); err == nil {
		t.Error("Export with a cancelled context: no error")
	}
}

func canceled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

func TestStreamsBeforeClose(t *testing.T) {
	dir := t.TempDir()
	e := New()
	e.flushInterval = time.Hour // only the record count flushes
	if err := e.Open(ctxFor(dir, LevelRaw)); err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for range DefaultFlushRecords {
		if err := e.WriteRecord(streamed()); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(readLines(t, filepath.Join(dir, DefaultFileName))); got != DefaultFlushRecords {
		t.Fatalf("%d lines on disk before Close, want %d", got, DefaultFlushRecords)
	}
}

func TestStreamsBeforeCloseByTimer(t *testing.T) {
	dir := t.TempDir()
	e := New()
	e.flushInterval = 5 * time.Millisecond
	if err := e.Open(ctxFor(dir, LevelRaw)); err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.WriteRecord(streamed()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(readLines(t, filepath.Join(dir, DefaultFileName))) != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the record never reached the file before Close")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	e := New()
	if err := e.Open(ctxFor(dir, LevelRaw)); err != nil {
		t.Fatal(err)
	}
	const writers, each = 8, 200
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				r := streamed()
				r.Metadata.XRequestID = fmt.Sprintf("w%d-%d", w, i)
				if err := e.WriteRecord(r); err != nil {
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
	f, err := os.Open(filepath.Join(dir, DefaultFileName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var line struct {
			Metadata struct {
				XRequestID string `json:"x_request_id"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("bad line %q: %v", sc.Text(), err)
		}
		seen[line.Metadata.XRequestID] = true
	}
	if len(seen) != writers*each {
		t.Fatalf("%d distinct lines, want %d", len(seen), writers*each)
	}
}

func TestLargeRecord(t *testing.T) {
	info := streamed()
	big := bytes.Repeat([]byte("x"), 3<<20)
	info.Request.Responses = []sdk.Response{{PerfNs: 1, Data: big}}
	dir, _ := writeAll(t, LevelRaw, info, streamed())
	lines := readLines(t, filepath.Join(dir, DefaultFileName))
	if len(lines) != 2 || len(lines[0]) < 3<<20 || !json.Valid([]byte(lines[0])) {
		t.Fatalf("%d lines", len(lines))
	}
}

func TestDataExporterConformance(t *testing.T) {
	sdktest.DataExporter(t, New())
}

func BenchmarkWriteRecord(b *testing.B) {
	e := New()
	if err := e.Open(ctxFor(b.TempDir(), LevelRaw)); err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	rec := streamed()
	chunk := []byte(`{"id":"chatcmpl-mock","object":"chat.completion.chunk","created":1795668219,"model":"mock-model","choices":[{"index":0,"delta":{"content":" horse"},"finish_reason":null}]}`)
	rec.Request.Responses = nil
	for i := range 20 {
		rec.Request.Responses = append(rec.Request.Responses, sdk.Response{PerfNs: int64(i), Data: chunk})
	}
	rec.Request.RequestBody = []byte(`{"messages":[{"role":"user","content":"` + strings.Repeat("word ", 100) + `"}],"model":"mock-model","stream":true,"max_completion_tokens":16}`)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := e.WriteRecord(rec); err != nil {
			b.Fatal(err)
		}
	}
	runtime.KeepAlive(rec)
}

func BenchmarkEncode(b *testing.B) {
	rec := streamed()
	chunk := []byte(`{"id":"chatcmpl-mock","object":"chat.completion.chunk","created":1795668219,"model":"mock-model","choices":[{"index":0,"delta":{"content":" horse"},"finish_reason":null}]}`)
	rec.Request.Responses = nil
	for i := range 20 {
		rec.Request.Responses = append(rec.Request.Responses, sdk.Response{PerfNs: int64(i), Data: chunk})
	}
	s := newScratch()
	b.ReportAllocs()
	var n int
	for b.Loop() {
		line, err := appendRaw(s, rec)
		if err != nil {
			b.Fatal(err)
		}
		n = len(line)
	}
	b.SetBytes(int64(n))
}
