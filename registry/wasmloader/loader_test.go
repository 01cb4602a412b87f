package wasmloader

import (
	"bytes"
	"context"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/registry"
)

func ip(v int) *int { return &v }

func newLoader(t testing.TB, opts Options) *Loader {
	t.Helper()
	if opts.CacheDir == "" {
		opts.CacheDir = cacheDir
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	l := New(opts)
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return l
}

func entry(category, name, path string) *registry.Entry {
	return &registry.Entry{Category: category, Name: name, Kind: registry.KindWASM, Path: path, APIVersion: sdk.APIVersion, Source: "test"}
}

// processor is what the loader's record processor adapter implements.
type processor interface {
	sdk.RecordProcessor
	sdk.Initializer
	registry.ConfigSink
}

func loadProcessor(t testing.TB, l *Loader, e *registry.Entry) processor {
	t.Helper()
	v, err := l.Load(context.Background(), e)
	if err != nil {
		t.Fatalf("load %s: %v", e.Path, err)
	}
	p, ok := v.(processor)
	if !ok {
		t.Fatalf("%T is not a RecordProcessor, Initializer and ConfigSink", v)
	}
	return p
}

func TestMetricExampleProcessRecord(t *testing.T) {
	e := entry(sdk.CategoryRecordProcessor, "go_wasm_metric", metricWasm)
	e.SHA256 = fileSHA256(t, metricWasm)
	p := loadProcessor(t, newLoader(t, Options{}), e)
	if err := p.Init(context.Background(), sdk.RunInfo{Streaming: true}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		rec  *sdk.ParsedRecord
		want map[string]sdk.MetricValue
	}{
		{"multibyte text over two chunks", &sdk.ParsedRecord{Record: &sdk.RequestRecord{XRequestID: "a"},
			Responses: []sdk.ParsedResponse{{Text: "héllo "}, {Text: "wörld", Reasoning: "ignored"}}, OutputTokens: ip(4)},
			map[string]sdk.MetricValue{"answer_characters": {Scalar: 11}, "characters_per_token": {Scalar: 2.75}}},
		{"no token count", &sdk.ParsedRecord{Record: &sdk.RequestRecord{}, Responses: []sdk.ParsedResponse{{Text: "abc"}}},
			map[string]sdk.MetricValue{"answer_characters": {Scalar: 3}}},
		{"zero output tokens", &sdk.ParsedRecord{Record: &sdk.RequestRecord{}, OutputTokens: ip(0)},
			map[string]sdk.MetricValue{"answer_characters": {Scalar: 0}}},
		{"failed request", &sdk.ParsedRecord{Record: &sdk.RequestRecord{Error: &sdk.ErrorDetails{Code: 500, Type: "HTTP", Message: "x"}},
			Responses: []sdk.ParsedResponse{{Text: "partial"}}}, map[string]sdk.MetricValue{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rm, err := p.Process(tt.rec)
			if err != nil {
				t.Fatal(err)
			}
			if rm.Record != tt.rec.Record || !reflect.DeepEqual(rm.Values, tt.want) {
				t.Fatalf("Process = %+v (record %p), want %+v (record %p)", rm.Values, rm.Record, tt.want, tt.rec.Record)
			}
		})
	}
}

func TestConcurrentProcessRecordReplaysInitPerInstance(t *testing.T) {
	p := loadProcessor(t, newLoader(t, Options{PoolSize: 4}), entry(sdk.CategoryRecordProcessor, "misbehave", misbehaveWasm))
	if err := p.Init(context.Background(), sdk.RunInfo{Streaming: true}); err != nil {
		t.Fatal(err)
	}
	const workers, perWorker = 8, 40
	var wg sync.WaitGroup
	errs := make(chan string, workers*perWorker)
	for w := range workers {
		wg.Go(func() {
			for i := range perWorker {
				text := strings.Repeat("x", w*100+i)
				rm, err := p.Process(&sdk.ParsedRecord{Record: &sdk.RequestRecord{XRequestID: strings.Repeat("r", w)},
					Responses: []sdk.ParsedResponse{{Text: text}}})
				switch {
				case err != nil:
					errs <- err.Error()
				case rm.Values["answer_bytes"].Scalar != float64(len(text)):
					errs <- "answer_bytes mismatch"
				case rm.Values["streaming_seen"].Scalar != 1:
					errs <- "an instance never saw Init"
				case rm.Values["request_id_len"].Scalar != float64(w):
					errs <- "request id mismatch"
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

func TestCallDeadlineStopsRunawayGuest(t *testing.T) {
	e := entry(sdk.CategoryRecordProcessor, "misbehave", misbehaveWasm)
	e.Limits.CallTimeoutMS = 200
	p := loadProcessor(t, newLoader(t, Options{PoolSize: 1}), e)
	if err := p.Init(context.Background(), sdk.RunInfo{Streaming: true}); err != nil {
		t.Fatal(err)
	}
	_, err := p.Process(&sdk.ParsedRecord{InputText: "loop"})
	for _, want := range []string{"record_processor.misbehave", "ProcessRecord", "exceeded its 200ms call deadline"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("error %v, want it to contain %q", err, want)
		}
	}
	// The pool's only instance was replaced, and Init replayed on the new one.
	rm, err := p.Process(&sdk.ParsedRecord{Responses: []sdk.ParsedResponse{{Text: "ok"}}})
	if err != nil || rm.Values["answer_bytes"].Scalar != 2 || rm.Values["streaming_seen"].Scalar != 1 {
		t.Fatalf("after deadline: %+v, %v", rm, err)
	}
}

func TestMemoryCapStopsGuestCleanly(t *testing.T) {
	e := entry(sdk.CategoryRecordProcessor, "misbehave", misbehaveWasm)
	e.Limits.MemoryMB = 32
	var logs syncBuffer
	p := loadProcessor(t, newLoader(t, Options{PoolSize: 1, Logger: slog.New(slog.NewTextHandler(&logs, nil))}), e)
	_, err := p.Process(&sdk.ParsedRecord{InputText: "oom"})
	for _, want := range []string{"record_processor.misbehave", "ProcessRecord", "ran out of its 32 MiB memory cap", "instance was discarded"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("error %v, want it to contain %q", err, want)
		}
	}
	if !strings.Contains(logs.String(), "out of memory") {
		t.Errorf("guest's fatal error not forwarded to the log:\n%s", logs.String())
	}
	if rm, err := p.Process(&sdk.ParsedRecord{Responses: []sdk.ParsedResponse{{Text: "abc"}}}); err != nil || rm.Values["answer_bytes"].Scalar != 3 {
		t.Fatalf("after OOM: %+v, %v", rm, err)
	}
}

func TestGuestErrorsKeepTheInstance(t *testing.T) {
	p := loadProcessor(t, newLoader(t, Options{PoolSize: 1}), entry(sdk.CategoryRecordProcessor, "misbehave", misbehaveWasm))
	if err := p.Init(context.Background(), sdk.RunInfo{Endpoint: sdk.EndpointMetadata{MetricsTitle: "fail"}}); err == nil ||
		!strings.Contains(err.Error(), "wasm plugin record_processor.misbehave: InitRecordProcessor: refusing this run") {
		t.Fatalf("Init error = %v", err)
	}
	if err := p.Init(context.Background(), sdk.RunInfo{}); err != nil {
		t.Fatal(err)
	}
	_, err := p.Process(&sdk.ParsedRecord{InputText: "panic"})
	if err == nil || !strings.Contains(err.Error(), "ProcessRecord: plugin panicked in ProcessRecord: asked to panic") {
		t.Fatalf("panic error = %v", err)
	}
	if rm, err := p.Process(&sdk.ParsedRecord{}); err != nil || rm.Values["streaming_seen"].Scalar != 0 {
		t.Fatalf("after panic: %+v, %v", rm, err)
	}
}

func TestFilesystemOnlyThroughGrants(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data.txt")
	if err := os.WriteFile(path, []byte("hello world"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := newLoader(t, Options{PoolSize: 1})
	denied := loadProcessor(t, l, entry(sdk.CategoryRecordProcessor, "misbehave", misbehaveWasm))
	if _, err := denied.Process(&sdk.ParsedRecord{InputText: "read:" + path}); err == nil || !strings.Contains(err.Error(), "data.txt") {
		t.Fatalf("read without grant: err = %v, want the guest's open error", err)
	}
	e := entry(sdk.CategoryRecordProcessor, "misbehave", misbehaveWasm)
	e.Grants.ReadDirs = []string{dir}
	granted := loadProcessor(t, l, e)
	rm, err := granted.Process(&sdk.ParsedRecord{InputText: "read:" + path})
	if err != nil || rm.Values["file_bytes"].Scalar != 11 {
		t.Fatalf("read with grant: %+v, %v", rm, err)
	}
}

func TestStdoutAndStderrGoToTheLog(t *testing.T) {
	var logs syncBuffer
	p := loadProcessor(t, newLoader(t, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))}),
		entry(sdk.CategoryRecordProcessor, "misbehave", misbehaveWasm))
	if _, err := p.Process(&sdk.ParsedRecord{InputText: "print"}); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	for _, want := range []string{
		`level=INFO msg="plugin output" plugin=record_processor.misbehave stream=stdout line="hello from the guest"`,
		`level=WARN msg="plugin output" plugin=record_processor.misbehave stream=stderr line="warning from the guest"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s:\n%s", want, out)
		}
	}
}

func TestLoadRefusals(t *testing.T) {
	wrongSum := entry(sdk.CategoryRecordProcessor, "m", metricWasm)
	wrongSum.SHA256 = strings.Repeat("ab", 32)
	network := entry(sdk.CategoryRecordProcessor, "m", metricWasm)
	network.Grants.Network = true
	manifestV2 := entry(sdk.CategoryRecordProcessor, "m", metricWasm)
	manifestV2.APIVersion = 2
	noDir := entry(sdk.CategoryRecordProcessor, "m", metricWasm)
	noDir.Grants.ReadDirs = []string{"/does/not/exist"}
	tests := []struct {
		name string
		e    *registry.Entry
		want []string
	}{
		{"sha256 mismatch", wrongSum, []string{"sha256 mismatch", "manifest says abab", "file has " + fileSHA256(t, metricWasm)}},
		{"non-WASI import", entry(sdk.CategoryRecordProcessor, "b", badImportWasm), []string{"imports env.host_secret", "only wasi_snapshot_preview1 is allowed"}},
		{"plugin built for API v2", entry(sdk.CategoryRecordProcessor, "r", rawV2Wasm), []string{"built for plugin API version 2, this aiperf speaks version 1"}},
		{"manifest declares API v2", manifestV2, []string{"api_version 2", "plugin API version 1"}},
		{"category not implemented", entry(sdk.CategoryEndpoint, "m", metricWasm), []string{"does not implement category endpoint", "implements: record_processor"}},
		{"category without adapter", entry(sdk.CategoryDataExporter, "m", metricWasm), []string{"data_exporter cannot be served by a wasm plugin"}},
		{"network grant", network, []string{"grants.network is not supported"}},
		{"missing read dir", noDir, []string{`grants.read_dirs "/does/not/exist"`}},
		{"missing file", entry(sdk.CategoryRecordProcessor, "m", filepath.Join(t.TempDir(), "nope.wasm")), []string{"read wasm module", "nope.wasm"}},
	}
	l := newLoader(t, Options{PoolSize: 1})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := l.Load(context.Background(), tt.e)
			if err == nil {
				t.Fatalf("Load succeeded with %T", v)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestEndpointFormatAndParseRecord(t *testing.T) {
	v, err := newLoader(t, Options{}).Load(context.Background(), entry(sdk.CategoryEndpoint, "misbehave", misbehaveWasm))
	if err != nil {
		t.Fatal(err)
	}
	ep := v.(sdk.Endpoint)
	want := sdk.EndpointMetadata{EndpointPath: "/v1/generate", ServiceKind: "custom", SupportsStreaming: true, ProducesTokens: true, MetricsTitle: "Custom LLM"}
	if ep.Metadata() != want {
		t.Fatalf("Metadata = %+v", ep.Metadata())
	}
	body, err := ep.FormatPayload(sdk.RequestInfo{Model: "m1", Streaming: true, Turn: sdk.Turn{Texts: []string{"a", "b"}}})
	if err != nil || string(body) != `{"model":"m1","prompt":"a\nb","stream":true}` {
		t.Fatalf("FormatPayload = %s, %v", body, err)
	}
	rp := v.(sdk.RecordParser)
	got, err := rp.ParseRecord([]sdk.Response{
		{PerfNs: 100, Data: []byte(`{"text":"Hel"}`)},
		{PerfNs: 200, Data: []byte(`{"text":"lo","tokens":2}`)},
		{PerfNs: 300, Data: []byte(`[DONE]`)},
	})
	wantParsed := []sdk.ParsedResponse{{PerfNs: 100, Text: "Hel"}, {PerfNs: 200, Text: "lo", Usage: &sdk.Usage{CompletionTokens: ip(2)}}, {PerfNs: 300}}
	if err != nil || !reflect.DeepEqual(got, wantParsed) {
		t.Fatalf("ParseRecord = %+v, %v", got, err)
	}
	_, err = rp.ParseRecord([]sdk.Response{{Data: []byte(`{"text":"ok"}`)}, {Data: []byte(`<html>`)}})
	if err == nil || !strings.Contains(err.Error(), "ParseRecord: unit 1: not a generate chunk") {
		t.Fatalf("bad unit error = %v", err)
	}
	if one, err := ep.ParseResponse([]byte(`{"text":"x"}`)); err != nil || one.Text != "x" {
		t.Fatalf("ParseResponse = %+v, %v", one, err)
	}
}

func TestCloseStopsPlugins(t *testing.T) {
	l := New(Options{CacheDir: cacheDir, Logger: slog.New(slog.DiscardHandler)})
	p := loadProcessor(t, l, entry(sdk.CategoryRecordProcessor, "m", metricWasm))
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Process(&sdk.ParsedRecord{}); err == nil || !strings.Contains(err.Error(), "plugin is closed") {
		t.Fatalf("Process after Close: %v", err)
	}
	if _, err := l.Load(context.Background(), entry(sdk.CategoryRecordProcessor, "m", metricWasm)); err == nil {
		t.Fatal("Load after Close succeeded")
	}
}

// The on-disk cache is what makes the second run's load cheap; timings are
// logged, not asserted (shared machines are noisy).
func TestCompilationCacheAcrossLoaders(t *testing.T) {
	dir := t.TempDir()
	timeLoad := func() time.Duration {
		l := newLoader(t, Options{CacheDir: dir, PoolSize: 1})
		start := time.Now()
		loadProcessor(t, l, entry(sdk.CategoryRecordProcessor, "m", metricWasm))
		return time.Since(start)
	}
	cold := timeLoad()
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		t.Fatalf("cache dir empty after the first load: %v", err)
	}
	warm := timeLoad()
	t.Logf("load with compile: %v; load from the on-disk cache: %v (%.1fx)", cold, warm, float64(cold)/math.Max(float64(warm), 1))
}

func TestDefaultCacheDir(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "/xdg")
	if got := DefaultCacheDir(); got != "/xdg/aiperf/wazero" {
		t.Fatalf("with XDG_CACHE_HOME: %q", got)
	}
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "/home/u")
	if got := DefaultCacheDir(); got != "/home/u/.cache/aiperf/wazero" {
		t.Fatalf("without XDG_CACHE_HOME: %q", got)
	}
}

// syncBuffer is a bytes.Buffer safe for the log handler's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
