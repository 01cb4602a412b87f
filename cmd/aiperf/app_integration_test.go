package main

// Integration tests of core/app with this binary's distribution: the real
// built-in plugins, wired by the exported core/app API (the core's own
// tests use stubs and never import a plugin).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/app"
	"github.com/aiperf-go/aiperf/core/config"
	"github.com/aiperf-go/aiperf/mockserver"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/chat"
	"github.com/aiperf-go/aiperf/registry"
	"github.com/spf13/cobra"
)

// testRegistry is the registry of the built-ins alone.
func testRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	reg, err := embeddedRegistry()
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// settingsFrom parses args with the real profile flags, validates them
// against the built-ins (as `aiperf profile` does) and derives the run
// settings with the chat and completions endpoints' service kind.
func settingsFrom(t *testing.T, args ...string) *app.Settings {
	t.Helper()
	cmd := &cobra.Command{Use: "profile"}
	config.RegisterProfileFlags(cmd)
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatalf("ParseFlags(%q): %v", args, err)
	}
	cfg, _, err := config.Load(cmd, nil)
	if err != nil {
		t.Fatalf("Load(%q): %v", args, err)
	}
	if err := cfg.Validate(choices(testRegistry(t))); err != nil {
		t.Fatalf("Validate(%q): %v", args, err)
	}
	s, err := app.FromConfig(cfg, "openai", append([]string{"profile"}, args...))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// newHost is the plugin host of one run over the built-ins; it is closed
// (every plugin it built, in reverse order) when the test ends.
func newHost(t *testing.T, s *app.Settings) *app.Host {
	t.Helper()
	h := app.NewPluginHost(testRegistry(t), s)
	t.Cleanup(func() {
		if err := h.Close(); err != nil {
			t.Errorf("close plugins: %v", err)
		}
	})
	return h
}

// mockServed is the number of successful requests the mock answered.
func mockServed(t *testing.T, base string) int {
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

// awaitServed polls the mock until it counted want requests: it counts a
// request after its handler returns, which can trail the client's last
// read by a moment.
func awaitServed(t *testing.T, base string, want int) int {
	t.Helper()
	got := mockServed(t, base)
	for deadline := time.Now().Add(5 * time.Second); got != want && time.Now().Before(deadline); got = mockServed(t, base) {
		time.Sleep(10 * time.Millisecond)
	}
	return got
}

// noStreamingChat is the chat endpoint claiming it cannot stream, a
// capability combination no built-in has.
type noStreamingChat struct{ sdk.Endpoint }

func (e noStreamingChat) Metadata() sdk.EndpointMetadata {
	md := e.Endpoint.Metadata()
	md.SupportsStreaming = false
	return md
}

func TestNewTokenizer(t *testing.T) {
	t.Chdir(t.TempDir())
	cases := []struct {
		name     string
		settings func(t *testing.T) *app.Settings
		wantErr  []string
	}{
		{name: "builtin", settings: func(t *testing.T) *app.Settings { return settingsFrom(t, "-m", "m", "--tokenizer", "builtin") }},
		{name: "builtin, other spelling", settings: func(t *testing.T) *app.Settings {
			return settingsFrom(t, "-m", "m", "--tokenizer", " BuiltIn ")
		}},
		{name: "builtin plugin for another name", settings: func(t *testing.T) *app.Settings {
			return settingsFrom(t, "-m", "m", "--tokenizer-plugin", "builtin")
		}},
		{name: "nothing to load", settings: func(*testing.T) *app.Settings {
			return &app.Settings{Plugins: app.Selection{Names: map[string]string{"tokenizer": "builtin"}}}
		}, wantErr: []string{"--tokenizer: no tokenizer and no model name given"}},
		// With or without Hugging Face support compiled in, a missing file is
		// refused before any request, naming the flag and the way out.
		{name: "missing local path", settings: func(t *testing.T) *app.Settings {
			return settingsFrom(t, "-m", "m", "--tokenizer", "./models/tok")
		}, wantErr: []string{`--tokenizer: `, "./models/tok", "--tokenizer builtin"}},
		{name: "unknown tokenizer plugin", settings: func(*testing.T) *app.Settings {
			return &app.Settings{Tokenizer: sdk.TokenizerSource{Name: "m"}, Plugins: app.Selection{Names: map[string]string{"tokenizer": "sentencepiece"}}}
		}, wantErr: []string{`--tokenizer-plugin: `, `unknown tokenizer "sentencepiece"`, "builtin"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var logs bytes.Buffer
			s := c.settings(t)
			h := newHost(t, s)
			tok, err := app.NewTokenizer(context.Background(), h, h.Run(), s, slog.New(slog.NewTextHandler(&logs, nil)))
			if len(c.wantErr) > 0 {
				for _, w := range c.wantErr {
					if err == nil || !strings.Contains(err.Error(), w) {
						t.Fatalf("NewTokenizer(%+v) = %v, %v; want error containing %q", s.Tokenizer, tok, err, w)
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
			if !strings.Contains(logs.String(), "tokenizer loaded") || !strings.Contains(logs.String(), "plugin=builtin") {
				t.Errorf("log:\n%s", logs.String())
			}
		})
	}
}

// TestNewOutputsChecksGoodput: NewRunInfo parses --goodput; NewOutputs
// refuses an SLO on a metric the built-in record processor does not declare
// or that does not apply to the run, before any request.
func TestNewOutputsChecksGoodput(t *testing.T) {
	cases := []struct {
		name        string
		ep          sdk.Endpoint
		streaming   bool
		goodput     string
		wantGoodput map[string]float64
		wantErr     []string
	}{
		{name: "TTFT SLO on a streaming run", ep: chat.New(), streaming: true, goodput: "time_to_first_token:100 request_latency:2000",
			wantGoodput: map[string]float64{"time_to_first_token": 100, "request_latency": 2000}},
		{name: "latency SLO on a non-streaming run", ep: chat.New(), goodput: "request_latency:250",
			wantGoodput: map[string]float64{"request_latency": 250}},
		{name: "TTFT SLO on a non-streaming run", ep: chat.New(), goodput: "time_to_first_token:100",
			wantErr: []string{"--goodput: ", "time_to_first_token", "does not apply"}},
		{name: "TTFT SLO where the endpoint cannot stream", ep: noStreamingChat{chat.New()}, streaming: true, goodput: "time_to_first_token:100",
			wantErr: []string{"--goodput: ", "time_to_first_token", "does not apply"}},
		{name: "unknown tag", ep: chat.New(), goodput: "speed:1", wantErr: []string{"--goodput: ", `unknown metric tag "speed"`}},
		{name: "malformed", ep: chat.New(), goodput: "request_latency", wantErr: []string{"--goodput: ", "malformed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			s := &app.Settings{Streaming: c.streaming, Goodput: c.goodput}
			h := newHost(t, s)
			info, err := app.NewRunInfo(h, c.ep, s)
			var o *app.Outputs
			if err == nil {
				o, err = app.NewOutputs(ctx, h, info)
			}
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
			if len(info.Goodput) != len(c.wantGoodput) {
				t.Errorf("Goodput %v, want %v", info.Goodput, c.wantGoodput)
			}
			for k, v := range c.wantGoodput {
				if info.Goodput[k] != v {
					t.Errorf("Goodput[%s] = %v, want %v", k, info.Goodput[k], v)
				}
				if !o.Catalog.Applies(k) {
					t.Errorf("SLO metric %s does not apply", k)
				}
			}
		})
	}
}

func TestComponentErrorsNameTheFlag(t *testing.T) {
	ctx := context.Background()
	sel := func(edit func(names map[string]string)) *app.Settings {
		names := map[string]string{"endpoint": "chat", "transport": "http", "dataset_composer": "synthetic", "tokenizer": "builtin",
			"ui": "none", "url_selection_strategy": "round_robin", "dataset_sampler": "shuffle", "ramp": "linear"}
		edit(names)
		return &app.Settings{Plugins: app.Selection{Names: names}}
	}
	s := sel(func(p map[string]string) { p["endpoint"] = "chatt" })
	if _, err := app.NewEndpoint(ctx, newHost(t, s), s); err == nil ||
		!strings.HasPrefix(err.Error(), "--endpoint-type: ") || !strings.Contains(err.Error(), "valid: chat, completions") {
		t.Errorf("NewEndpoint(chatt) error = %v", err)
	}
	s = sel(func(p map[string]string) { p["ui"] = "fancy" })
	if _, err := app.NewUI(ctx, newHost(t, s), sdk.RunInfo{}, s); err == nil ||
		!strings.HasPrefix(err.Error(), "--ui-type: ") || !strings.Contains(err.Error(), `unknown ui "fancy"`) {
		t.Errorf("NewUI(fancy) error = %v", err)
	}
	s = sel(func(p map[string]string) { p["transport"] = "grpc" })
	if _, err := app.NewTransport(ctx, newHost(t, s), sdk.RunInfo{}, s); err == nil || !strings.HasPrefix(err.Error(), "--transport: ") {
		t.Errorf("NewTransport(grpc) error = %v", err)
	}
	// The engine asks the host for its routing plugins; the host names the
	// category and the valid plugins.
	s = sel(func(p map[string]string) { p["dataset_sampler"] = "lottery" })
	if _, err := newHost(t, s).Selected(ctx, sdk.DatasetSamplers.Category); err == nil || !strings.Contains(err.Error(), `unknown dataset_sampler "lottery"; valid: shuffle, sequential, random`) {
		t.Errorf("Selected(sampler lottery) error = %v", err)
	}
	s = sel(func(p map[string]string) { p["url_selection_strategy"] = "nearest" })
	if _, err := newHost(t, s).Selected(ctx, sdk.URLSelectionStrategies.Category); err == nil || !strings.Contains(err.Error(), `unknown url_selection_strategy "nearest"`) {
		t.Errorf("Selected(url nearest) error = %v", err)
	}
	s = sel(func(p map[string]string) { p["dataset_composer"] = "handwritten" })
	if _, err := app.NewComposer(ctx, newHost(t, s), sdk.RunInfo{}, s); err == nil || !strings.Contains(err.Error(), `unknown dataset_composer "handwritten"`) {
		t.Errorf("NewComposer(handwritten) error = %v", err)
	}
	// A plugin's own refusal names it as category.name after the flag.
	s = sel(func(map[string]string) {})
	s.PluginSettings = []config.PluginSetting{{Category: "endpoint", Name: "chat", Key: "temperature", Value: 1}}
	if _, err := app.NewEndpoint(ctx, newHost(t, s), s); err == nil ||
		!strings.HasPrefix(err.Error(), "--endpoint-type: ") || !strings.Contains(err.Error(), "endpoint.chat") ||
		!strings.Contains(err.Error(), "temperature") {
		t.Errorf("NewEndpoint with a setting chat does not take: %v", err)
	}
	for _, name := range []string{"chat", "completions", "Chat", " COMPLETIONS "} {
		s := sel(func(p map[string]string) { p["endpoint"] = name })
		ep, err := app.NewEndpoint(ctx, newHost(t, s), s)
		if err != nil || ep.Metadata().ServiceKind != "openai" {
			t.Errorf("NewEndpoint(%q) = %v, %v", name, ep, err)
		}
	}
}

func TestNewOutputsInitializesEveryPlugin(t *testing.T) {
	ctx := context.Background()
	s := &app.Settings{Streaming: true}
	h := newHost(t, s)
	info, err := app.NewRunInfo(h, chat.New(), s)
	if err != nil {
		t.Fatal(err)
	}
	o, err := app.NewOutputs(ctx, h, info)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Processors) != builtinCount(t, "record_processor") || len(o.Accumulators) != builtinCount(t, "accumulator") ||
		len(o.Exporters) != builtinCount(t, "data_exporter") || len(o.Consoles) != builtinCount(t, "console_exporter") || len(o.Consoles) < 3 {
		t.Fatalf("outputs: %d processors, %d accumulators, %d exporters, %d consoles",
			len(o.Processors), len(o.Accumulators), len(o.Exporters), len(o.Consoles))
	}
	// Declaration order is run order: AIPerf's console order.
	var order []string
	for _, c := range o.Consoles {
		order = append(order, c.Name)
	}
	if got := strings.Join(order, " "); got != "http_trace metrics_table error_summary power_efficiency_nvidia gpu_telemetry osl_mismatch_warning" {
		t.Errorf("consoles in order %s", got)
	}
	// The catalog holds the built-in record metrics, streaming ones included.
	for _, tag := range []string{"request_latency", "time_to_first_token", "inter_token_latency", "output_sequence_length"} {
		if !o.Catalog.Applies(tag) {
			t.Errorf("catalog: %s does not apply to a streaming chat run", tag)
		}
	}
	// Initialized: Summarize works on an empty accumulator, Process on a record.
	if _, err := o.Accumulators[0].Plugin.Summarize(); err != nil {
		t.Errorf("accumulator not initialized: %v", err)
	}
	rec := &sdk.RequestRecord{StartPerfNs: 1, EndPerfNs: 2, Status: 200}
	if _, err := o.Processors[0].Plugin.Process(&sdk.ParsedRecord{Record: rec}); err != nil {
		t.Errorf("processor not initialized: %v", err)
	}
	// A goodput SLO that does not apply is refused through the metrics
	// catalog, naming the flag and the tag.
	s = &app.Settings{Goodput: "time_to_first_token:1"}
	h = newHost(t, s)
	if info, err = app.NewRunInfo(h, chat.New(), s); err != nil {
		t.Fatal(err)
	}
	_, err = app.NewOutputs(ctx, h, info)
	if err == nil || !strings.Contains(err.Error(), "time_to_first_token") || !strings.Contains(err.Error(), "--goodput") {
		t.Errorf("NewOutputs with a non-applicable SLO: %v", err)
	}
}

// --- Profile, end to end through core/app -------------------------------------

func TestProfileExcludesWarmupFromResults(t *testing.T) {
	base := startMock(t, mockserver.Config{Fast: true})
	dir := t.TempDir()
	s := settingsFrom(t, "-m", "m", "-u", base, "--streaming", "--warmup-request-count", "3", "--request-count", "5",
		"--concurrency", "2", "--isl", "16", "--osl", "4", "--extra-inputs", "ignore_eos:true",
		"--artifact-dir", dir, "--ui", "none", "--random-seed", "1", "--tokenizer", "builtin")
	var stdout, stderr bytes.Buffer
	out, err := app.Profile(context.Background(), testRegistry(t), s, &stdout, &stderr)
	if err != nil {
		t.Fatalf("Profile: %v\n%s", err, stderr.String())
	}
	if out.ExitCode != app.ExitOK || out.Results.WasCancelled {
		t.Errorf("exit %d, cancelled %v", out.ExitCode, out.Results.WasCancelled)
	}
	// Warmup requests were sent but are in no result.
	if got := awaitServed(t, base, 8); got != 8 {
		t.Errorf("mock served %d requests, want 3 warmup + 5 profiling", got)
	}
	if rc, ok := out.Results.Metric("request_count"); !ok || rc.Avg == nil || *rc.Avg != 5 || out.Results.CompletedRecords != 5 {
		t.Errorf("request_count %v, CompletedRecords %d; want 5", rc.Avg, out.Results.CompletedRecords)
	}
	b, err := os.ReadFile(filepath.Join(dir, "profile_export.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// The JSONL carries the warmup records too, numbered as AIPerf's.
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 8 {
		t.Fatalf("%d JSONL records, want 3 warmup + 5 profiling", len(lines))
	}
	phases := map[string]int{}
	for _, l := range lines {
		var r sdk.RecordInfo
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		md := r.Metadata
		phases[md.BenchmarkPhase]++
		switch md.BenchmarkPhase {
		case sdk.PhaseWarmup:
			if md.PhaseIndex != 0 || md.ProfilingIndex != nil {
				t.Errorf("warmup record: phase_index %d profiling_index %v, want 0 and none", md.PhaseIndex, md.ProfilingIndex)
			}
		case sdk.PhaseProfiling:
			// Profiling comes second after a warmup (AIPerf's phase numbering).
			if md.PhaseIndex != 1 || md.ProfilingIndex == nil || *md.ProfilingIndex != 0 {
				t.Errorf("phase_index %d profiling_index %v after a warmup, want 1 and 0", md.PhaseIndex, md.ProfilingIndex)
			}
		default:
			t.Errorf("JSONL record of phase %q", md.BenchmarkPhase)
		}
	}
	if phases[sdk.PhaseWarmup] != 3 || phases[sdk.PhaseProfiling] != 5 {
		t.Errorf("JSONL records by phase %v, want 3 warmup and 5 profiling", phases)
	}
	// The warmup phase is summarised apart.
	if out.Results.CompletedRecords != 5 {
		t.Errorf("profiling results hold %d records", out.Results.CompletedRecords)
	}
	var manifest struct {
		Phases []struct {
			Name string `json:"phase_name"`
			OK   int    `json:"successful_request_count"`
		} `json:"phases"`
	}
	if b, err := os.ReadFile(filepath.Join(dir, "phase_manifest.json")); err != nil || json.Unmarshal(b, &manifest) != nil ||
		len(manifest.Phases) != 2 || manifest.Phases[0].Name != "warmup" || manifest.Phases[0].OK != 3 || manifest.Phases[1].OK != 5 {
		t.Errorf("phase_manifest.json = %+v (%v)", manifest, err)
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
	base := startMock(t, mockserver.Config{Fast: true})
	s := settingsFrom(t, "-m", "m", "-u", base, "--request-count", "2", "--artifact-dir", t.TempDir(), "--ui", "none", "--tokenizer", "builtin")
	s.Plugins.Names["ui"] = "fancy" // past config validation: the registry refuses it
	out, err := app.Profile(context.Background(), testRegistry(t), s, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || out != nil {
		t.Fatalf("Profile = %+v, %v; want an error", out, err)
	}
	// fx's dependency chain is reduced to the constructor's own message.
	if !strings.HasPrefix(err.Error(), "--ui-type: ") || !strings.Contains(err.Error(), `"fancy"`) {
		t.Errorf("error %q does not start with the flag", err)
	}
	if got := mockServed(t, base); got != 0 {
		t.Errorf("%d requests sent despite the error", got)
	}
}

// A --plugin-config setting is checked by the plugin it names before the
// first request: the concurrency strategy takes no settings.
func TestProfileRefusesASettingThePluginDoesNotTake(t *testing.T) {
	base := startMock(t, mockserver.Config{Fast: true})
	dir := t.TempDir()
	s := settingsFrom(t, "-m", "m", "-u", base, "--request-count", "3", "--warmup-request-count", "2", "--artifact-dir", dir,
		"--ui", "none", "--isl", "8", "--tokenizer", "builtin", "--plugin-config", "timing_strategy.concurrency.x=1")
	var stderr bytes.Buffer
	out, err := app.Profile(context.Background(), testRegistry(t), s, &bytes.Buffer{}, &stderr)
	if out != nil {
		t.Errorf("Profile returned an outcome for a run that never started: %+v", out)
	}
	if err == nil || !strings.Contains(err.Error(), "timing_strategy.concurrency") || !strings.Contains(err.Error(), "takes no settings") ||
		!strings.Contains(err.Error(), "x") {
		t.Fatalf("Profile error = %v; want timing_strategy.concurrency refusing the setting x\n%s", err, stderr.String())
	}
	// Not even the warmup ran.
	if got := mockServed(t, base); got != 0 {
		t.Errorf("mock served %d requests despite the bad setting", got)
	}
	// Nothing was written either: no empty result files.
	for _, name := range []string{"profile_export.jsonl", "profile_export_aiperf.json", "profile_export_aiperf.csv", "inputs.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s written for a run that never started", name)
		}
	}
}

// --plugin-config is applied over the settings the core derives from the
// flags: the request_rate strategy paces at 100/s, not --request-rate 50.
func TestProfilePluginConfigWinsOverTheFlag(t *testing.T) {
	base := startMock(t, mockserver.Config{Fast: true})
	dir := t.TempDir()
	s := settingsFrom(t, "-m", "m", "-u", base, "--request-rate", "50", "--arrival-pattern", "constant",
		"--plugin-config", "timing_strategy.request_rate.rate=100", "--request-count", "20",
		"--artifact-dir", dir, "--ui", "none", "--isl", "8", "--tokenizer", "builtin", "--random-seed", "3")
	var stderr bytes.Buffer
	out, err := app.Profile(context.Background(), testRegistry(t), s, &bytes.Buffer{}, &stderr)
	if err != nil {
		t.Fatalf("Profile: %v\n%s", err, stderr.String())
	}
	if out.ExitCode != app.ExitOK || out.Results.CompletedRecords != 20 {
		t.Fatalf("exit %d, %d records", out.ExitCode, out.Results.CompletedRecords)
	}
	// Each record's schedule is its start minus its schedule lag. With
	// constant arrivals the strategy's targets are 1/rate apart (more only
	// where it re-anchored after a stall), so the closest two are 10 ms
	// apart at 100/s; at 50/s none would be closer than 20 ms.
	b, err := os.ReadFile(filepath.Join(dir, "profile_export.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var scheduled []int64
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r sdk.RecordInfo
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		lag, ok := r.Metrics["schedule_lag"]
		ms, isNum := lag.Value.(float64)
		if !ok || !isNum || lag.Unit != "ms" {
			t.Fatalf("record without a schedule lag in ms: %+v", r.Metrics["schedule_lag"])
		}
		scheduled = append(scheduled, r.Metadata.RequestStartNs-int64(math.Round(ms*1e6)))
	}
	if len(scheduled) != 20 {
		t.Fatalf("%d records, want 20", len(scheduled))
	}
	slices.Sort(scheduled)
	closest := time.Duration(math.MaxInt64)
	for i := 1; i < len(scheduled); i++ {
		closest = min(closest, time.Duration(scheduled[i]-scheduled[i-1]))
	}
	if closest < 9900*time.Microsecond || closest > 15*time.Millisecond {
		t.Errorf("closest scheduled requests %v apart, want 10ms (rate 100/s from --plugin-config)", closest)
	}
}

// Plugin names follow the registry's name rule whatever the spelling.
func TestProfileNormalizesTheEndpointType(t *testing.T) {
	base := startMock(t, mockserver.Config{Fast: true})
	s := settingsFrom(t, "-m", "m", "-u", base, "--endpoint-type", "Chat", "--request-count", "3",
		"--artifact-dir", t.TempDir(), "--ui", "none", "--isl", "8", "--tokenizer", "builtin")
	if s.Plugins.Name("endpoint") != "chat" {
		t.Errorf("selection names endpoint %q", s.Plugins.Name("endpoint"))
	}
	s.Plugins.Names["endpoint"] = " CHAT " // and the host resolves any spelling
	var stderr bytes.Buffer
	out, err := app.Profile(context.Background(), testRegistry(t), s, &bytes.Buffer{}, &stderr)
	if err != nil {
		t.Fatalf("Profile: %v\n%s", err, stderr.String())
	}
	if rc, ok := out.Results.Metric("request_count"); !ok || rc.Avg == nil || *rc.Avg != 3 {
		t.Errorf("request_count %+v", rc)
	}
	if got := awaitServed(t, base, 3); got != 3 {
		t.Errorf("mock served %d requests, want 3", got)
	}
}

// newRunner builds a Runner from the real constructors without fx, in the
// order Profile's graph builds them.
func newRunner(t *testing.T, s *app.Settings, stdout *bytes.Buffer) *app.Runner {
	t.Helper()
	ctx := context.Background()
	h := newHost(t, s)
	log := slog.New(slog.DiscardHandler)
	ep, err := app.NewEndpoint(ctx, h, s)
	if err != nil {
		t.Fatal(err)
	}
	info, err := app.NewRunInfo(h, ep, s)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := app.NewTokenizer(ctx, h, info, s, log)
	if err != nil {
		t.Fatal(err)
	}
	comp, err := app.NewComposer(ctx, h, info, s)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := app.NewTransport(ctx, h, info, s)
	if err != nil {
		t.Fatal(err)
	}
	ui, err := app.NewUI(ctx, h, info, s)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := app.NewOutputs(ctx, h, info)
	if err != nil {
		t.Fatal(err)
	}
	return &app.Runner{Settings: s, Log: log, Endpoint: ep, Tokenizer: tok, Composer: comp, Transport: tr, Host: h,
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
	base := startMock(t, mockserver.Config{Fast: true})
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
	if !out.Results.WasCancelled || out.ExitCode != app.ExitOK || out.Results.CompletedRecords != 0 {
		t.Errorf("outcome: cancelled %v, exit %d, %d records", out.Results.WasCancelled, out.ExitCode, out.Results.CompletedRecords)
	}
	if got := mockServed(t, base); got != 0 {
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
	base := startMock(t, mockserver.Config{Fast: true, ErrorRate: 100})
	s := settingsFrom(t, "-m", "m", "-u", base, "--request-count", "3", "--artifact-dir", t.TempDir(), "--ui", "none", "--isl", "8", "--tokenizer", "builtin")
	out, err := newRunner(t, s, &bytes.Buffer{}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if out.ExitCode != app.ExitFailedRequests {
		t.Errorf("exit %d, want %d when every request failed", out.ExitCode, app.ExitFailedRequests)
	}
	if ec, ok := out.Results.Metric("error_request_count"); !ok || ec.Avg == nil || *ec.Avg != 3 {
		t.Errorf("error_request_count %+v", ec.Avg)
	}
}
