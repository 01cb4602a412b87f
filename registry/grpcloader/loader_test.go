package grpcloader

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/transport"
	"github.com/aiperf-go/aiperf/mockserver"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/registry"
)

func intp(v int) *int { return &v }

func mustLoad[T any](t *testing.T, l *Loader, e *registry.Entry) T {
	t.Helper()
	v, err := l.Load(context.Background(), e)
	if err != nil {
		t.Fatalf("Load %s.%s: %v", e.Category, e.Name, err)
	}
	tv, ok := v.(T)
	if !ok {
		t.Fatalf("Load returned %T", v)
	}
	return tv
}

func startMock(t *testing.T) string {
	t.Helper()
	s, err := mockserver.New(mockserver.Config{Host: "127.0.0.1", Fast: true})
	if err != nil {
		t.Fatal(err)
	}
	addr, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	})
	return "http://" + addr
}

// The example plugin formats a textgen request, the real transport sends it
// to the mock's /v1/textgen, and the plugin parses the record: the text has
// exactly the requested number of tokens and the usage says so too.
func TestTextgenRoundTripThroughMock(t *testing.T) {
	base := startMock(t)
	l, _ := newLoader(t, Options{})
	ep := mustLoad[*Endpoint](t, l, entry(sdk.CategoryEndpoint, "textgen", textgenBin))
	md := ep.Metadata()
	if md.EndpointPath != "/v1/textgen" || !md.SupportsStreaming || md.ServiceKind != "textgen" {
		t.Fatalf("metadata = %+v", md)
	}
	info := ep.PluginInfo()
	if info.Name != "textgen" || info.Version != "0.1.0" || info.APIVersion != 1 || info.PID <= 0 {
		t.Fatalf("info = %+v", info)
	}
	tr := transport.New(transport.Options{})
	defer tr.Close()
	// 13 tokens in the mock server's default tokenizer (o200k_base).
	const prompt, promptTokens = "Measure the time to first token of a streaming text generation API.", 13
	tests := []struct {
		name       string
		streaming  bool
		maxTokens  int
		wantUnits  int
		usageIndex int
	}{
		{"streaming", true, 25, 26, 25},
		{"non-streaming", false, 40, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			payload, err := ep.FormatPayload(sdk.RequestInfo{Model: "mock-model", Streaming: tc.streaming,
				Turn: sdk.Turn{Texts: []string{prompt}, MaxTokens: intp(tc.maxTokens)}, ExtraInputs: map[string]any{"ignore_eos": true}})
			if err != nil {
				t.Fatal(err)
			}
			rec := &sdk.RequestRecord{}
			tr.Send(context.Background(), &sdk.TransportRequest{URL: base + md.EndpointPath, Body: payload, Streaming: tc.streaming,
				Headers: map[string]string{"Content-Type": "application/json"}, Timeout: 10 * time.Second}, rec)
			if rec.Error != nil || rec.Status != 200 {
				t.Fatalf("send: status %d error %+v", rec.Status, rec.Error)
			}
			if len(rec.Responses) != tc.wantUnits {
				t.Fatalf("%d response units, want %d", len(rec.Responses), tc.wantUnits)
			}
			parsed, err := ep.ParseRecord(rec.Responses)
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			withText := 0
			for i, p := range parsed {
				if p.PerfNs != rec.Responses[i].PerfNs {
					t.Fatalf("unit %d PerfNs %d, want %d", i, p.PerfNs, rec.Responses[i].PerfNs)
				}
				if p.Text != "" {
					withText++
				}
				text.WriteString(p.Text)
			}
			// The mock streams one token per event: every event but the usage
			// one carries text.
			if text.Len() == 0 || (tc.streaming && withText != tc.maxTokens) {
				t.Errorf("parsed %d units with text (%q), want %d", withText, text.String(), tc.maxTokens)
			}
			u := parsed[tc.usageIndex].Usage
			if u == nil || *u.CompletionTokens != tc.maxTokens || *u.PromptTokens != promptTokens ||
				*u.TotalTokens != tc.maxTokens+promptTokens {
				t.Errorf("usage = %+v, want completion %d prompt %d", u, tc.maxTokens, promptTokens)
			}
			// ParseResponse is the same call for one unit.
			one, err := ep.ParseResponse(rec.Responses[0].Data)
			if err != nil || one.Text != parsed[0].Text {
				t.Errorf("ParseResponse = %+v, %v; want text %q", one, err, parsed[0].Text)
			}
		})
	}
}

func sha256Hex(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func TestChecksum(t *testing.T) {
	good := sha256Hex(t, textgenBin)
	wrong := strings.Repeat("ab", 32)
	tests := []struct {
		name    string
		sha     string
		skip    bool
		wantErr string
	}{
		{"matching digest", good, false, ""},
		{"prefixed upper-case digest", "sha256:" + strings.ToUpper(good), false, ""},
		{"mismatch", wrong, false, "checksum mismatch for plugin endpoint.textgen: manifest says " + wrong + ", file is " + good},
		{"malformed digest", "abc123", false, `manifest sha256 "abc123" is not a 64-digit hex SHA-256 digest`},
		{"mismatch with the check off", wrong, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, _ := newLoader(t, Options{SkipHashCheck: tc.skip})
			e := entry(sdk.CategoryEndpoint, "textgen", textgenBin)
			e.SHA256 = tc.sha
			_, err := l.Load(context.Background(), e)
			if tc.wantErr == "" && err != nil {
				t.Fatalf("Load: %v", err)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if tc.wantErr != "" && len(l.procs) != 0 {
				t.Errorf("a refused binary was started")
			}
		})
	}
}

func TestBinaryProblems(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "plain")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	notPlugin := filepath.Join(dir, "not-a-plugin")
	if err := os.WriteFile(notPlugin, []byte("#!/bin/sh\necho hello\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(dir, "nope"), "plugin endpoint.x: binary " + filepath.Join(dir, "nope") + " does not exist"},
		{"no path", "", "plugin endpoint.x: the manifest entry has no path"},
		{"not executable", notExec, "binary " + notExec + " is not executable (mode -rw-r--r--"},
		{"directory", dir, dir + " is not a regular file"},
		{"not a plugin", notPlugin, "plugin endpoint.x: starting " + notPlugin},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, _ := newLoader(t, Options{StartTimeout: 5 * time.Second})
			_, err := l.Load(context.Background(), entry(sdk.CategoryEndpoint, "x", tc.path))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestRelativePathResolvesAgainstManifestDir(t *testing.T) {
	l, _ := newLoader(t, Options{})
	e := entry(sdk.CategoryEndpoint, "textgen", filepath.Base(textgenBin))
	e.Dir = filepath.Dir(textgenBin)
	ep := mustLoad[*Endpoint](t, l, e)
	if ep.PluginInfo().Path != textgenBin {
		t.Errorf("path = %s, want %s", ep.PluginInfo().Path, textgenBin)
	}
}

func TestWrongAPIVersionHandshake(t *testing.T) {
	// Plugins see only allowlisted variables; AIPERF_PLUGIN_ENV_* passes one on.
	t.Setenv("AIPERF_PLUGIN_ENV_AIPERF_TESTPLUGIN_API_VERSION", "2")
	l, _ := newLoader(t, Options{})
	_, err := l.Load(context.Background(), entry(sdk.CategoryEndpoint, "tp", testPluginBin))
	want := "plugin endpoint.tp speaks plugin API v2, this aiperf speaks v1"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if len(l.procs) != 0 {
		t.Error("a refused plugin is still registered")
	}
}

// A plugin can pass the handshake and still report another version in
// Describe (hand-written non-Go plugins): same refusal.
func TestCheckAPIVersion(t *testing.T) {
	tests := []struct {
		v    uint32
		want string
	}{
		{1, ""},
		{0, "plugin endpoint.py speaks plugin API v0, this aiperf speaks v1"},
		{3, "plugin endpoint.py speaks plugin API v3, this aiperf speaks v1"},
	}
	for _, tc := range tests {
		err := checkAPIVersion("endpoint.py", tc.v)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("v%d: err = %v, want %q", tc.v, err, tc.want)
		}
	}
}

func TestCategoryRefusals(t *testing.T) {
	tests := []struct {
		category, want string
	}{
		{sdk.CategoryRecordProcessor, "plugin record_processor.textgen: the binary does not implement category record_processor (it implements: endpoint)"},
		{sdk.CategoryDatasetComposer, "plugin dataset_composer.textgen: category dataset_composer is not available to grpc plugins"},
	}
	l, _ := newLoader(t, Options{})
	for _, tc := range tests {
		_, err := l.Load(context.Background(), entry(tc.category, "textgen", textgenBin))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.category, err, tc.want)
		}
	}
}

// One binary declared under four categories runs as one process.
func TestSharedProcessPerBinary(t *testing.T) {
	l, _ := newLoader(t, Options{})
	ep := mustLoad[*Endpoint](t, l, entry(sdk.CategoryEndpoint, "tp", testPluginBin))
	rp := mustLoad[*RecordProcessor](t, l, entry(sdk.CategoryRecordProcessor, "tp_metrics", testPluginBin))
	dl := mustLoad[*DatasetLoader](t, l, entry(sdk.CategoryCustomDataset, "tp_data", testPluginBin))
	ex := mustLoad[*DataExporter](t, l, entry(sdk.CategoryDataExporter, "tp_export", testPluginBin))
	pid := ep.PluginInfo().PID
	for _, d := range []Described{rp, dl, ex} {
		if d.PluginInfo().PID != pid {
			t.Errorf("%s runs as pid %d, endpoint as %d", d.PluginInfo().Label, d.PluginInfo().PID, pid)
		}
	}
	if len(l.procs) != 1 {
		t.Errorf("%d processes, want 1", len(l.procs))
	}
	if got := strings.Join(ep.PluginInfo().Categories, ","); got != "endpoint,custom_dataset_loader,record_processor,data_exporter,gpu_telemetry_collector,server_metrics_collector,plot" {
		t.Errorf("categories = %s", got)
	}
	if rp.PluginInfo().Label != "record_processor.tp_metrics" {
		t.Errorf("label = %s", rp.PluginInfo().Label)
	}
}

func TestPluginErrorsAndPanicsNameThePluginAndKeepServing(t *testing.T) {
	l, logs := newLoader(t, Options{})
	ep := mustLoad[*Endpoint](t, l, entry(sdk.CategoryEndpoint, "tp", testPluginBin))
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"impl error", func() error { _, err := ep.FormatPayload(sdk.RequestInfo{Model: "fail"}); return err },
			"plugin endpoint.tp: FormatPayload: model fail is not served here"},
		{"panic in FormatPayload", func() error { _, err := ep.FormatPayload(sdk.RequestInfo{Model: "panic"}); return err },
			"plugin endpoint.tp: FormatPayload: panic in FormatPayload: assignment to entry in nil map"},
		{"panic in ParseRecord", func() error {
			_, err := ep.ParseRecord([]sdk.Response{{Data: []byte("ok")}, {Data: []byte("panic")}})
			return err
		}, "plugin endpoint.tp: ParseRecord: panic in ParseRecord: testplugin: unit says panic"},
		{"record error", func() error { _, err := ep.ParseRecord([]sdk.Response{{Data: []byte("bad")}}); return err },
			"plugin endpoint.tp: ParseRecord: unit 0 is bad"},
	}
	for _, tc := range tests {
		err := tc.call()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
		// Still serving after each failure.
		got, err := ep.ParseRecord([]sdk.Response{{PerfNs: 5, Event: "r", Data: []byte("alive")}})
		if err != nil || got[0].Text != "alive" || got[0].Reasoning != "r" || got[0].PerfNs != 5 {
			t.Fatalf("after %s: %+v, %v", tc.name, got, err)
		}
	}
	logs.waitFor(t, `level=WARN msg="[WARN] grpcplugin: recovered panic in ParseRecord: testplugin: unit says panic" plugin=endpoint.tp`,
		`level=DEBUG msg="[DEBUG] goroutine`)
}

func TestCallTimeout(t *testing.T) {
	l, _ := newLoader(t, Options{})
	e := entry(sdk.CategoryEndpoint, "tp", testPluginBin)
	e.Limits.CallTimeoutMS = 300
	ep := mustLoad[*Endpoint](t, l, e)
	_, err := ep.FormatPayload(sdk.RequestInfo{Model: "sleep"})
	want := "plugin endpoint.tp: FormatPayload: no answer within 300ms"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if _, err := ep.ParseRecord([]sdk.Response{{Data: []byte("x")}}); err != nil {
		t.Fatalf("plugin unusable after a timed-out call: %v", err)
	}
}

func TestProcessExitsMidCall(t *testing.T) {
	l, _ := newLoader(t, Options{})
	ep := mustLoad[*Endpoint](t, l, entry(sdk.CategoryEndpoint, "tp", testPluginBin))
	_, err := ep.FormatPayload(sdk.RequestInfo{Model: "exit"})
	if err == nil || !strings.Contains(err.Error(), "plugin endpoint.tp: FormatPayload: the plugin process") ||
		!strings.Contains(err.Error(), "has exited") {
		t.Fatalf("err = %v, want one saying the process of endpoint.tp exited", err)
	}
	_, err = ep.ParseRecord([]sdk.Response{{Data: []byte("x")}})
	if err == nil || !strings.Contains(err.Error(), "plugin endpoint.tp: ParseRecord: the plugin process") {
		t.Fatalf("later call: err = %v", err)
	}
	// Loading again starts a fresh process instead of reusing the dead one.
	again := mustLoad[*Endpoint](t, l, entry(sdk.CategoryEndpoint, "tp", testPluginBin))
	if again.PluginInfo().PID == ep.PluginInfo().PID {
		t.Fatal("the dead process was reused")
	}
	if _, err := again.ParseRecord([]sdk.Response{{Data: []byte("x")}}); err != nil {
		t.Fatalf("restarted plugin: %v", err)
	}
}

func TestProcessKilledFromOutside(t *testing.T) {
	l, _ := newLoader(t, Options{})
	ep := mustLoad[*Endpoint](t, l, entry(sdk.CategoryEndpoint, "tp", testPluginBin))
	proc, err := os.FindProcess(ep.PluginInfo().PID)
	if err != nil {
		t.Fatal(err)
	}
	if err := proc.Kill(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := ep.ParseRecord([]sdk.Response{{Data: []byte("x")}})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "plugin endpoint.tp: ParseRecord") || !strings.Contains(err.Error(), "exited") {
			t.Fatalf("err = %v, want one naming the plugin and its exit", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("call on a killed plugin hung")
	}
}

func TestStderrIsForwardedWithThePluginName(t *testing.T) {
	l, logs := newLoader(t, Options{})
	ep := mustLoad[*Endpoint](t, l, entry(sdk.CategoryEndpoint, "tp", testPluginBin))
	if _, err := ep.FormatPayload(sdk.RequestInfo{Model: "log"}); err != nil {
		t.Fatal(err)
	}
	// One line written to os.Stderr (the stdio stream), one through the log
	// package (the raw stderr file descriptor).
	logs.waitFor(t, "stderr line from testplugin", "log line from testplugin")
	for _, text := range []string{"stderr line from testplugin", "log line from testplugin"} {
		for line := range strings.SplitSeq(logs.String(), "\n") {
			if strings.Contains(line, text) && (!strings.Contains(line, "level=INFO") || !strings.Contains(line, "plugin=endpoint.tp")) {
				t.Errorf("log line %q lacks level=INFO or plugin=endpoint.tp", line)
			}
		}
	}
}

func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

func TestCloseKillsProcesses(t *testing.T) {
	l := New(Options{})
	a := mustLoad[*Endpoint](t, l, entry(sdk.CategoryEndpoint, "tp", testPluginBin))
	b := mustLoad[*Endpoint](t, l, entry(sdk.CategoryEndpoint, "textgen", textgenBin))
	pids := []int{a.PluginInfo().PID, b.PluginInfo().PID}
	for _, pid := range pids {
		if processGone(pid) {
			t.Fatalf("pid %d not running before Close", pid)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if !processGone(pid) {
			t.Errorf("pid %d still exists after Close", pid)
		}
	}
	if _, err := a.FormatPayload(sdk.RequestInfo{Model: "m"}); err == nil || !strings.Contains(err.Error(), "has exited") {
		t.Errorf("call after Close: err = %v", err)
	}
	if _, err := l.Load(context.Background(), entry(sdk.CategoryEndpoint, "tp", testPluginBin)); err == nil ||
		!strings.Contains(err.Error(), "loader is closed") {
		t.Errorf("Load after Close: err = %v", err)
	}
}

// A second entry for a running binary is still held to its own sha256.
func TestChecksumOfSharedProcess(t *testing.T) {
	l, _ := newLoader(t, Options{})
	first := entry(sdk.CategoryEndpoint, "tp", testPluginBin)
	first.SHA256 = sha256Hex(t, testPluginBin)
	mustLoad[*Endpoint](t, l, first)
	second := entry(sdk.CategoryRecordProcessor, "tp", testPluginBin)
	second.SHA256 = strings.Repeat("0", 64)
	_, err := l.Load(context.Background(), second)
	if err == nil || !strings.Contains(err.Error(), "checksum mismatch for plugin record_processor.tp: manifest says "+second.SHA256) {
		t.Fatalf("err = %v, want a checksum mismatch", err)
	}
	second.SHA256 = first.SHA256
	mustLoad[*RecordProcessor](t, l, second)
}
