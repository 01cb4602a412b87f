package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/transport"
	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/chat"
	"github.com/aiperf-go/aiperf/registry"
	"go.uber.org/fx/fxtest"
)

func newRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	reg, err := NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestNewTokenizer(t *testing.T) {
	reg := newRegistry(t)
	t.Chdir(t.TempDir())
	cases := []struct {
		name    string
		in      string
		wantErr []string
	}{
		{name: "builtin", in: "builtin"},
		{name: "builtin, other spelling", in: " BuiltIn "},
		{name: "nothing to load", in: "", wantErr: []string{"--tokenizer: no tokenizer and no model name given"}},
		// With or without Hugging Face support compiled in, a missing file is
		// refused before any request, naming the flag and the way out.
		{name: "missing local path", in: "./models/tok", wantErr: []string{`--tokenizer: `, "./models/tok", "--tokenizer builtin"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var logs bytes.Buffer
			s := &Settings{Tokenizer: sdk.TokenizerSource{Name: c.in, Revision: "main"}}
			tok, err := NewTokenizer(context.Background(), reg, s, slog.New(slog.NewTextHandler(&logs, nil)))
			if len(c.wantErr) > 0 {
				for _, w := range c.wantErr {
					if err == nil || !strings.Contains(err.Error(), w) {
						t.Fatalf("NewTokenizer(%q) = %v, %v; want error containing %q", c.in, tok, err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tok.Name() != "builtin" || tok.Count("Hello world") != 2 {
				t.Errorf("tokenizer %q counts %d tokens in \"Hello world\"", tok.Name(), tok.Count("Hello world"))
			}
		})
	}
}

func TestNewRunInfo(t *testing.T) {
	noStreaming := metaEndpoint{Endpoint: chat.New(), edit: func(m *sdk.EndpointMetadata) { m.SupportsStreaming = false }}
	cases := []struct {
		name          string
		ep            sdk.Endpoint
		streaming     bool
		goodput       string
		wantStreaming bool
		wantGoodput   map[string]float64
		wantErr       []string
	}{
		{name: "no goodput", ep: chat.New(), streaming: true, wantStreaming: true},
		{name: "blank goodput", ep: chat.New(), goodput: "  ", wantStreaming: false},
		{name: "endpoint without streaming", ep: noStreaming, streaming: true, wantStreaming: false},
		{name: "TTFT SLO on a streaming run", ep: chat.New(), streaming: true, goodput: "time_to_first_token:100 request_latency:2000",
			wantStreaming: true, wantGoodput: map[string]float64{"time_to_first_token": 100, "request_latency": 2000}},
		{name: "latency SLO on a non-streaming run", ep: chat.New(), goodput: "request_latency:250",
			wantGoodput: map[string]float64{"request_latency": 250}},
		{name: "TTFT SLO on a non-streaming run", ep: chat.New(), goodput: "time_to_first_token:100",
			wantErr: []string{"--goodput: ", "time_to_first_token", "does not apply"}},
		{name: "TTFT SLO where the endpoint cannot stream", ep: noStreaming, streaming: true, goodput: "time_to_first_token:100",
			wantErr: []string{"--goodput: ", "time_to_first_token"}},
		{name: "malformed", ep: chat.New(), goodput: "request_latency", wantErr: []string{"--goodput: ", "malformed"}},
		{name: "unknown tag", ep: chat.New(), goodput: "speed:1", wantErr: []string{"--goodput: ", `unknown metric tag "speed"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			info, err := NewRunInfo(c.ep, &Settings{Streaming: c.streaming, Goodput: c.goodput})
			if len(c.wantErr) > 0 {
				if err == nil {
					t.Fatalf("no error; info %+v", info)
				}
				for _, w := range c.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if info.Streaming != c.wantStreaming || info.Endpoint != c.ep.Metadata() {
				t.Errorf("info %+v, want streaming=%v and the endpoint's metadata", info, c.wantStreaming)
			}
			if len(info.Goodput) != len(c.wantGoodput) {
				t.Errorf("Goodput %v, want %v", info.Goodput, c.wantGoodput)
			}
			for k, v := range c.wantGoodput {
				if info.Goodput[k] != v {
					t.Errorf("Goodput[%s] = %v, want %v", k, info.Goodput[k], v)
				}
			}
		})
	}
}

func TestComponentErrorsNameTheFlag(t *testing.T) {
	reg := newRegistry(t)
	if _, err := NewEndpoint(reg, &Settings{EndpointType: "chatt"}); err == nil ||
		!strings.HasPrefix(err.Error(), "--endpoint-type: ") || !strings.Contains(err.Error(), "valid: chat, completions") {
		t.Errorf("NewEndpoint(chatt) error = %v", err)
	}
	if _, err := NewUI(reg, &Settings{UI: "fancy"}); err == nil || !strings.HasPrefix(err.Error(), "--ui: ") {
		t.Errorf("NewUI(fancy) error = %v", err)
	}
	for _, name := range []string{"chat", "completions"} {
		ep, err := NewEndpoint(reg, &Settings{EndpointType: name})
		if err != nil || ep.Metadata().ServiceKind != "openai" {
			t.Errorf("NewEndpoint(%s) = %v, %v", name, ep, err)
		}
	}
}

func TestNewOutputsInitializesEveryPlugin(t *testing.T) {
	reg := newRegistry(t)
	ep := chat.New()
	info := sdk.RunInfo{Endpoint: ep.Metadata(), Streaming: true}
	o, err := NewOutputs(reg, ep, info)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Processors) != 1 || len(o.Accumulators) != 1 || len(o.Exporters) != 4 || len(o.Consoles) != 2 {
		t.Fatalf("outputs: %d processors, %d accumulators, %d exporters, %d consoles",
			len(o.Processors), len(o.Accumulators), len(o.Exporters), len(o.Consoles))
	}
	// Initialized: Summarize works on an empty accumulator, Process on a record.
	if _, err := o.Accumulators[0].Summarize(); err != nil {
		t.Errorf("accumulator not initialized: %v", err)
	}
	rec := &sdk.RequestRecord{StartPerfNs: 1, EndPerfNs: 2, Status: 200}
	if _, err := o.Processors[0].Process(&sdk.ParsedRecord{Record: rec}); err != nil {
		t.Errorf("processor not initialized: %v", err)
	}
	// A goodput SLO that does not apply is refused by the accumulator's Init.
	_, err = NewOutputs(reg, ep, sdk.RunInfo{Endpoint: ep.Metadata(), Goodput: map[string]float64{"time_to_first_token": 1}})
	if err == nil || !strings.Contains(err.Error(), "time_to_first_token") {
		t.Errorf("NewOutputs with a non-applicable SLO: %v", err)
	}
}

func TestNewLoggerWritesTheLogFile(t *testing.T) {
	dir := t.TempDir()
	s := &Settings{ArtifactDir: filepath.Join(dir, "nested"), Files: sdk.ArtifactFiles{Log: filepath.Join("logs", "aiperf.log")},
		LogLevel: slog.LevelWarn}
	lc := fxtest.NewLifecycle(t)
	var stderr bytes.Buffer
	log, err := NewLogger(lc, s, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	lc.RequireStart()
	log.Debug("debug detail")
	log.Warn("careful")
	lc.RequireStop()
	b, err := os.ReadFile(filepath.Join(dir, "nested", "logs", "aiperf.log"))
	if err != nil {
		t.Fatal(err)
	}
	// The file gets everything; stderr only the chosen level and above.
	if !strings.Contains(string(b), "debug detail") || !strings.Contains(string(b), "careful") {
		t.Errorf("log file:\n%s", b)
	}
	if strings.Contains(stderr.String(), "debug detail") || !strings.Contains(stderr.String(), "careful") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

// --- Profile, end to end within the package ----------------------------------

func startMock(t *testing.T) string {
	return mocktest.Start(t, mockserver.Config{Fast: true})
}

// served is the number of successful requests the mock answered.
func served(t *testing.T, base string) int {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	n := 0.0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "vllm:request_success_total{") {
			f := strings.Fields(line)
			v, err := strconv.ParseFloat(f[len(f)-1], 64)
			if err != nil {
				t.Fatal(err)
			}
			n += v
		}
	}
	return int(n)
}

func TestProfileExcludesWarmupFromResults(t *testing.T) {
	base := startMock(t)
	dir := t.TempDir()
	s := settingsFrom(t, "-m", "m", "-u", base, "--streaming", "--warmup-request-count", "3", "--request-count", "5",
		"--concurrency", "2", "--isl", "16", "--osl", "4", "--extra-inputs", "ignore_eos:true",
		"--artifact-dir", dir, "--ui", "none", "--random-seed", "1", "--tokenizer", "builtin")
	var stdout, stderr bytes.Buffer
	out, err := Profile(context.Background(), newRegistry(t), s, &stdout, &stderr)
	if err != nil {
		t.Fatalf("Profile: %v\n%s", err, stderr.String())
	}
	if out.ExitCode != ExitOK || out.Results.WasCancelled {
		t.Errorf("exit %d, cancelled %v", out.ExitCode, out.Results.WasCancelled)
	}
	// Warmup requests were sent but are in no result. The mock counts a
	// request after its handler returns, which can trail the client's last
	// read by a moment: poll briefly.
	got := served(t, base)
	for deadline := time.Now().Add(5 * time.Second); got != 8 && time.Now().Before(deadline); got = served(t, base) {
		time.Sleep(10 * time.Millisecond)
	}
	if got != 8 {
		t.Errorf("mock served %d requests, want 3 warmup + 5 profiling", got)
	}
	if rc, ok := out.Results.Metric("request_count"); !ok || rc.Avg == nil || *rc.Avg != 5 || out.Results.CompletedRecords != 5 {
		t.Errorf("request_count %v, CompletedRecords %d; want 5", rc.Avg, out.Results.CompletedRecords)
	}
	b, err := os.ReadFile(filepath.Join(dir, "profile_export.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d JSONL records, want 5", len(lines))
	}
	for _, l := range lines {
		var r sdk.RecordInfo
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		if r.Metadata.BenchmarkPhase != sdk.PhaseProfiling {
			t.Errorf("JSONL record of phase %q", r.Metadata.BenchmarkPhase)
		}
	}
	labels := map[string]bool{}
	for _, f := range out.Exported {
		labels[f.Label] = true
		if _, err := os.Stat(f.Path); err != nil {
			t.Errorf("exported %s: %v", f.Label, err)
		}
	}
	if !labels["JSONL Export"] || len(out.Exported) < 4 {
		t.Errorf("exported files %+v", out.Exported)
	}
	logText, err := os.ReadFile(filepath.Join(dir, "logs", "aiperf.log"))
	if err != nil || !strings.Contains(string(logText), "warmup phase") || !strings.Contains(string(logText), "profiling phase") {
		t.Errorf("log file (%v):\n%s", err, logText)
	}
	if !strings.Contains(stdout.String(), "CLI Command: aiperf profile") || !strings.Contains(stdout.String(), "Log File: ") {
		t.Errorf("footer missing:\n%s", stdout.String())
	}
}

func TestProfileReportsTheFaultyComponent(t *testing.T) {
	base := startMock(t)
	s := settingsFrom(t, "-m", "m", "-u", base, "--request-count", "2", "--artifact-dir", t.TempDir(), "--ui", "none", "--tokenizer", "builtin")
	s.UI = "fancy" // past config validation: the registry refuses it
	out, err := Profile(context.Background(), newRegistry(t), s, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || out != nil {
		t.Fatalf("Profile = %+v, %v; want an error", out, err)
	}
	// fx's dependency chain is reduced to the constructor's own message.
	if !strings.HasPrefix(err.Error(), "--ui: ") {
		t.Errorf("error %q does not start with the flag", err)
	}
	if got := served(t, base); got != 0 {
		t.Errorf("%d requests sent despite the error", got)
	}
}

// newRunner builds a Runner from the real constructors without fx.
func newRunner(t *testing.T, s *Settings, stdout *bytes.Buffer) *Runner {
	t.Helper()
	reg := newRegistry(t)
	log := slog.New(slog.DiscardHandler)
	ep, err := NewEndpoint(reg, s)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := NewTokenizer(context.Background(), reg, s, log)
	if err != nil {
		t.Fatal(err)
	}
	comp, err := NewComposer(reg, s)
	if err != nil {
		t.Fatal(err)
	}
	ui, err := NewUI(reg, s)
	if err != nil {
		t.Fatal(err)
	}
	info, err := NewRunInfo(ep, s)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := NewOutputs(reg, ep, info)
	if err != nil {
		t.Fatal(err)
	}
	tr := transport.New(transport.Options{MaxConnsPerHost: s.Profiling.Concurrency, Timeout: s.Timeout})
	t.Cleanup(func() { _ = tr.Close() })
	return &Runner{Settings: s, Log: log, Endpoint: ep, Tokenizer: tok, Composer: comp, Transport: tr, Registry: reg,
		UI: ui, Outputs: outs, RunInfo: info, Stdout: stdout}
}

// cancelAfterCompose is the real composer followed by a cancellation, as
// when Ctrl-C arrives once the dataset is built but before any request.
type cancelAfterCompose struct {
	sdk.DatasetComposer
	cancel context.CancelFunc
}

func (c cancelAfterCompose) Compose(ctx context.Context, opts sdk.DatasetOptions) ([]sdk.Conversation, error) {
	convs, err := c.DatasetComposer.Compose(ctx, opts)
	c.cancel()
	return convs, err
}

func TestRunCancelledBeforeTheFirstRequest(t *testing.T) {
	base := startMock(t)
	dir := t.TempDir()
	s := settingsFrom(t, "-m", "m", "-u", base, "--warmup-request-count", "2", "--request-count", "4",
		"--artifact-dir", dir, "--ui", "none", "--isl", "8", "--tokenizer", "builtin")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout bytes.Buffer
	r := newRunner(t, s, &stdout)
	r.Composer = cancelAfterCompose{DatasetComposer: r.Composer, cancel: cancel}
	out, err := r.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Results.WasCancelled || out.ExitCode != ExitOK || out.Results.CompletedRecords != 0 {
		t.Errorf("outcome: cancelled %v, exit %d, %d records", out.Results.WasCancelled, out.ExitCode, out.Results.CompletedRecords)
	}
	if got := served(t, base); got != 0 {
		t.Errorf("mock served %d requests after cancellation", got)
	}
	if !strings.Contains(stdout.String(), "cancelled early") {
		t.Errorf("no cancellation note:\n%s", stdout.String())
	}
	// What was prepared is still exported.
	if _, err := os.Stat(filepath.Join(dir, "inputs.json")); err != nil {
		t.Errorf("inputs.json not written: %v", err)
	}
}

func TestRunAllFailedExitCode(t *testing.T) {
	srv, err := mockserver.New(mockserver.Config{Host: "127.0.0.1", Fast: true, ErrorRate: 100})
	if err != nil {
		t.Fatal(err)
	}
	addr, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	s := settingsFrom(t, "-m", "m", "-u", addr, "--request-count", "3", "--artifact-dir", t.TempDir(), "--ui", "none", "--isl", "8", "--tokenizer", "builtin")
	out, err := newRunner(t, s, &bytes.Buffer{}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if out.ExitCode != ExitFailed {
		t.Errorf("exit %d, want %d when every request failed", out.ExitCode, ExitFailed)
	}
	if ec, ok := out.Results.Metric("error_request_count"); !ok || ec.Avg == nil || *ec.Avg != 3 {
		t.Errorf("error_request_count %+v", ec.Avg)
	}
}
