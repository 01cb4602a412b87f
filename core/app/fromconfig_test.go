package app

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/config"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/spf13/cobra"
)

// loadConfig parses args with the real profile flags and loads them.
func loadConfig(t *testing.T, args ...string) *config.RunConfig {
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
	return cfg
}

// settingsFrom is FromConfig on the flags, with the service kind of the chat
// and completions endpoints.
func settingsFrom(t *testing.T, args ...string) *Settings {
	t.Helper()
	s, err := FromConfig(loadConfig(t, args...), "openai", append([]string{"profile"}, args...))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestFromConfigEveryField(t *testing.T) {
	dir := t.TempDir()
	const secret = "sk-very-secret-123"
	s := settingsFrom(t,
		"--model-names", "org/model-a,model-b", "-u", "localhost:9000", "-u", "https://h2/",
		"--endpoint-type", "Completions", "--custom-endpoint", "/v1/x", "--streaming",
		"--api-key", secret, "-H", "X-Team:blue",
		"--extra-inputs", "ignore_eos:true", "--extra-inputs", "temperature:0.5",
		"--request-timeout-seconds", "2.5", "--use-legacy-max-tokens",
		"--concurrency", "3", "--warmup-request-count", "2",
		"--isl", "64", "--isl-stddev", "4", "--osl", "16", "--osl-stddev", "2", "--num-dataset-entries", "7",
		"--random-seed", "99", "--tokenizer", "builtin",
		"--artifact-dir", dir, "--profile-export-prefix", "run1", "--export-level", "raw",
		"--goodput", "request_latency:300", "--ui", "none", "--log-level", "debug",
		"--plugin-config", "Timing-Strategy.request_rate.rate=100", "--plugin-config", "ui.simple.label=hello world")

	models := []string{"org/model-a", "model-b"}
	want := Settings{
		Models:          models,
		CustomEndpoint:  "/v1/x",
		URLs:            []string{"http://localhost:9000", "https://h2/"},
		Streaming:       true,
		APIKey:          secret,
		UserHeaders:     map[string]string{"Authorization": "Bearer " + secret, "X-Team": "blue"},
		ExtraInputs:     map[string]any{"ignore_eos": true, "temperature": 0.5},
		Timeout:         2500 * time.Millisecond,
		LegacyMaxToks:   true,
		ModelSelection:  "round_robin", // the flag defaults
		ConnectionReuse: "pooled", VideoPollInterval: 100 * time.Millisecond,
		Dataset: sdk.DatasetOptions{Models: models, NumEntries: 7, InputTokensMean: 64, InputTokensStddev: 4,
			OutputTokensMean: 16, OutputTokensStddev: 2, RandomSeed: 99},
		Tokenizer:   sdk.TokenizerSource{Name: "builtin", Revision: "main"},
		Seed:        99,
		ArtifactDir: dir,
		Files: sdk.ArtifactFiles{SummaryJSON: "run1.json", SummaryCSV: "run1.csv", RecordsJSONL: "run1.jsonl",
			Inputs: "inputs.json", Log: filepath.Join("logs", "aiperf.log")},
		ExportLevel: "raw",
		Goodput:     "request_latency:300",
		LogLevel:    slog.LevelDebug,
		PluginSettings: []config.PluginSetting{
			{Category: "timing_strategy", Name: "request_rate", Key: "rate", Value: 100},
			{Category: "ui", Name: "simple", Key: "label", Value: "hello world"},
		},
	}
	// Server metrics (issue 12): every --url's /metrics, default formats.
	want.ServerMetricsURLs = []string{"http://localhost:9000/metrics", "https://h2/metrics"}
	want.ServerMetricsFormats = []string{"json", "csv"}
	// GPU telemetry is on by default in DCGM mode, at the default exporter URLs.
	want.GPUTelemetryCollector = "dcgm"
	want.Shard = config.Sharding{Manager: "inprocess", Shards: 1, Count: 1, Timeout: 5 * time.Minute}
	want.GPUTelemetryURLs = []string{"http://localhost:9400/metrics", "http://localhost:9401/metrics"}
	got := *s
	got.InputConfig, got.CLICommand = nil, ""
	wantPicks := picks{Endpoint: "completions", Transport: "http", Composer: "synthetic", Tokenizer: "builtin",
		UI: "none", URLSelection: "round_robin", Sampler: "shuffle", Ramp: "linear"}
	if p := picksOf(got.Plugins); p != wantPicks {
		t.Errorf("selection\n got %+v\nwant %+v", p, wantPicks)
	}
	if len(got.Plugins.Settings) != 0 {
		t.Errorf("plugin settings from flags: %v", got.Plugins.Settings)
	}
	got.Plugins = Selection{}
	// Phases and the turn delay ratio come from config's own
	// accessors (tested there); check the values this run sets.
	if p := got.Profiling; p.Mode != config.ModeConcurrency || p.Concurrency != 3 || p.Count != 10 { // max(10, 2*3)
		t.Errorf("Profiling = %+v", p)
	}
	if w := got.Warmup; w == nil || w.Count != 2 || w.Concurrency != 3 {
		t.Errorf("Warmup = %+v, want 2 requests inheriting concurrency 3", w)
	}
	got.Profiling, got.Warmup, got.ScheduleWindow, got.Cancellation = config.PhaseSettings{}, nil, config.ScheduleWindow{}, config.Cancellation{}
	got.Dataset.TurnDelayRatio = 0
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Settings\n%+v\nwant\n%+v", got, want)
	}
	// The redacted config and the command line never carry the api key.
	ep, _ := s.InputConfig["endpoint"].(map[string]any)
	if ic := fmt.Sprint(s.InputConfig); strings.Contains(ic, secret) || ep["api_key"] != config.Redacted {
		t.Errorf("InputConfig leaks or drops the api key: %v", s.InputConfig)
	}
	if ph, _ := s.InputConfig["phases"].([]any); len(ph) != 2 || ph[1].(map[string]any)["concurrency"] != 3 || ep["type"] != "completions" {
		t.Errorf("InputConfig = %v", s.InputConfig)
	}
	if !strings.HasPrefix(s.CLICommand, "aiperf profile --model-names") || strings.Contains(s.CLICommand, secret) ||
		!strings.Contains(s.CLICommand, config.Redacted) {
		t.Errorf("CLICommand = %q", s.CLICommand)
	}
}

func TestFromConfigDefaults(t *testing.T) {
	s := settingsFrom(t, "-m", "org/m")
	checks := []struct {
		name      string
		got, want any
	}{
		{"Plugins.Endpoint", s.Plugins.Name(sdk.CategoryEndpoint), "chat"},
		{"Plugins.Transport", s.Plugins.Name(sdk.CategoryTransport), "http"},
		{"Plugins.Composer", s.Plugins.Name(sdk.CategoryDatasetComposer), "synthetic"},
		// No --tokenizer builtin: the hf plugin loads the model's tokenizer.
		{"Plugins.Tokenizer", s.Plugins.Name(sdk.CategoryTokenizer), "hf"},
		{"Plugins.URLSelection", s.Plugins.Name(sdk.CategoryURLSelection), "round_robin"},
		{"Plugins.Sampler", s.Plugins.Name(sdk.CategoryDatasetSampler), "shuffle"},
		{"Plugins.Ramp", s.Plugins.Name(sdk.CategoryRamp), "linear"},
		{"PluginSettings", len(s.PluginSettings), 0},
		{"URLs", s.URLs, []string{"http://localhost:8000"}},
		{"Timeout", s.Timeout, 6 * time.Hour},
		{"Profiling.Mode", s.Profiling.Mode, config.ModeConcurrency},
		{"Profiling.Concurrency", s.Profiling.Concurrency, 1},
		{"Profiling.Count", s.Profiling.Count, 10},
		{"Warmup", s.Warmup == nil, true},
		{"Dataset.InputTokensMean", s.Dataset.InputTokensMean, 550},
		{"Dataset.NumEntries", s.Dataset.NumEntries, 100},
		// No --osl: the composer leaves the output length to the server.
		{"Dataset.OutputTokensMean", s.Dataset.OutputTokensMean, 0},
		// No --tokenizer: the first model's own tokenizer, as in AIPerf.
		{"Tokenizer", s.Tokenizer, sdk.TokenizerSource{Name: "org/m", Revision: "main"}},
		{"UseServerTokenCount", s.UseServerTokenCount, false},
		{"UserHeaders", len(s.UserHeaders), 0},
		{"ExtraInputs", len(s.ExtraInputs), 0},
		{"ExportLevel", s.ExportLevel, "records"},
		{"LogLevel", s.LogLevel, slog.LevelInfo},
		// Without --artifact-dir a per-run subdirectory is added (AIPerf naming).
		{"ArtifactDir", s.ArtifactDir, filepath.Join("artifacts", "org_m-openai-chat-concurrency1")},
		{"Files.SummaryJSON", s.Files.SummaryJSON, "profile_export_aiperf.json"},
		{"Files.RecordsJSONL", s.Files.RecordsJSONL, "profile_export.jsonl"},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.name, c.got, c.want)
		}
	}
}

// The composer builds as many conversations as the user's count asks for
// (AIPerf 0.13), unless --num-dataset-entries is given, which wins even when
// it is smaller than --num-sessions.
func TestFromConfigDatasetSize(t *testing.T) {
	cases := []struct {
		args []string
		want int
	}{
		{[]string{"--request-count", "1000"}, 1000},
		{[]string{"--num-sessions", "300"}, 300},
		{[]string{"--num-sessions", "300", "--num-dataset-entries", "20"}, 20},
		{[]string{"--request-count", "1000", "--num-dataset-entries", "100"}, 100},
		{[]string{"--benchmark-duration", "30"}, 100},
	}
	for _, c := range cases {
		s := settingsFrom(t, append([]string{"-m", "m", "--tokenizer", "builtin"}, c.args...)...)
		if s.Dataset.NumEntries != c.want {
			t.Errorf("%v: Dataset.NumEntries = %d, want %d", c.args, s.Dataset.NumEntries, c.want)
		}
	}
}

func TestFromConfigDrawsASeedWhenNoneIsGiven(t *testing.T) {
	a := settingsFrom(t, "-m", "m")
	b := settingsFrom(t, "-m", "m")
	for _, s := range []*Settings{a, b} {
		if s.Seed < 0 || s.Dataset.RandomSeed != s.Seed {
			t.Errorf("Seed %d, Dataset.RandomSeed %d: want one non-negative seed for the whole run", s.Seed, s.Dataset.RandomSeed)
		}
	}
	// 63 random bits: equal seeds mean the seed is not drawn.
	if a.Seed == b.Seed {
		t.Errorf("two runs without --random-seed got the same seed %d", a.Seed)
	}
	if s := settingsFrom(t, "-m", "m", "--random-seed", "0"); s.Seed != 0 || s.Dataset.RandomSeed != 0 {
		t.Errorf("--random-seed 0 gave seed %d", s.Seed)
	}
}

func TestFromConfigVerbosityFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want slog.Level
	}{
		{[]string{"-v"}, slog.LevelDebug},
		{[]string{"-vv"}, slog.LevelDebug - 4},
		{[]string{"--log-level", "WARNING"}, slog.LevelWarn},
	} {
		if s := settingsFrom(t, append([]string{"-m", "m"}, c.args...)...); s.LogLevel != c.want {
			t.Errorf("%v: LogLevel %v, want %v", c.args, s.LogLevel, c.want)
		}
	}
}

func TestFromConfigRejectsAnUnknownLogLevel(t *testing.T) {
	cfg := loadConfig(t, "-m", "m")
	cfg.LogLevel = "LOUD" // Validate would refuse it; FromConfig must not guess.
	if s, err := FromConfig(cfg, "openai", nil); err == nil || !strings.Contains(err.Error(), `--log-level "LOUD"`) {
		t.Errorf("FromConfig = %+v, %v; want a --log-level error", s, err)
	}
}

func TestParseLevel(t *testing.T) {
	cases := []struct {
		in   string
		want slog.Level
	}{
		{"TRACE", slog.LevelDebug - 4},
		{"DEBUG", slog.LevelDebug},
		{"", slog.LevelInfo},
		{"INFO", slog.LevelInfo},
		{"NOTICE", slog.LevelInfo},
		{"SUCCESS", slog.LevelInfo},
		{"WARNING", slog.LevelWarn},
		{"ERROR", slog.LevelError},
		{"CRITICAL", slog.LevelError},
		{"debug", slog.LevelDebug},
		{"Warning", slog.LevelWarn},
	}
	for _, c := range cases {
		got, err := parseLevel(c.in)
		if err != nil || got != c.want {
			t.Errorf("parseLevel(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"WARN", "FATAL", "verbose"} {
		if _, err := parseLevel(bad); err == nil || !strings.Contains(err.Error(), "--log-level") {
			t.Errorf("parseLevel(%q) error = %v, want a --log-level error", bad, err)
		}
	}
}

// TestSelectPlugins is the selection table, from the flags: every
// single-choice category's plugin.
func TestSelectPlugins(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace.jsonl")
	if err := os.WriteFile(trace, []byte(`{"timestamp": 0, "input_length": 8, "output_length": 2}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	defaults := picks{Endpoint: "chat", Transport: "http", Composer: "synthetic", Tokenizer: "hf",
		URLSelection: "round_robin", Sampler: "shuffle", Ramp: "linear"}
	with := func(edit func(*picks)) picks {
		s := defaults
		edit(&s)
		return s
	}
	cases := []struct {
		name string
		args []string
		want picks
	}{
		{"defaults", nil, defaults},
		{"--input-file reads the file with the custom composer", []string{"--input-file", trace},
			with(func(s *picks) { s.Composer = "custom" })},
		{"--input-file with a dataset type", []string{"--input-file", trace, "--custom-dataset-type", "single_turn"},
			with(func(s *picks) { s.Composer = "custom" })},
		{"fixed schedule replays in order", []string{"--input-file", trace, "--fixed-schedule"},
			with(func(s *picks) { s.Composer, s.Sampler = "custom", "sequential" })},
		{"a mooncake trace with timestamps is replayed", []string{"--input-file", trace, "--custom-dataset-type", "mooncake_trace"},
			with(func(s *picks) { s.Composer, s.Sampler = "custom", "sequential" })},
		{"fixed schedule overrides the sampling flag", []string{"--input-file", trace, "--fixed-schedule", "--dataset-sampling-strategy", "random"},
			with(func(s *picks) { s.Composer, s.Sampler = "custom", "sequential" })},
		{"--no-fixed-schedule keeps the default sampler", []string{"--input-file", trace, "--custom-dataset-type", "mooncake_trace", "--no-fixed-schedule"},
			with(func(s *picks) { s.Composer = "custom" })},
		{"--dataset-sampling-strategy", []string{"--dataset-sampling-strategy", "Random"},
			with(func(s *picks) { s.Sampler = "random" })},
		{"--tokenizer builtin picks the builtin plugin", []string{"--tokenizer", "builtin"},
			with(func(s *picks) { s.Tokenizer = "builtin" })},
		{"--tokenizer builtin, other spelling", []string{"--tokenizer", " BuiltIn "},
			with(func(s *picks) { s.Tokenizer = "builtin" })},
		{"--tokenizer builtin wins over --tokenizer-plugin", []string{"--tokenizer", "builtin", "--tokenizer-plugin", "hf"},
			with(func(s *picks) { s.Tokenizer = "builtin" })},
		{"--tokenizer-plugin", []string{"--tokenizer", "./tok.json", "--tokenizer-plugin", "Custom-Tok"},
			with(func(s *picks) { s.Tokenizer = "custom_tok" })},
		{"--endpoint-type", []string{"--endpoint-type", "Completions"}, with(func(s *picks) { s.Endpoint = "completions" })},
		{"--ramp-type", []string{"--ramp-type", "EXPONENTIAL"}, with(func(s *picks) { s.Ramp = "exponential" })},
		{"--transport", []string{"--transport", "grpc"}, with(func(s *picks) { s.Transport = "grpc" })},
		{"--transport-type", []string{"--transport-type", "HTTP"}, defaults},
		{"--url-strategy", []string{"--url-strategy", "Round-Robin"}, defaults},
		{"--ui-type", []string{"--ui-type", "simple"}, with(func(s *picks) { s.UI = "simple" })},
		{"--ui dashboard runs as simple", []string{"--ui", "dashboard"}, with(func(s *picks) { s.UI = "simple" })},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := picksOf(settingsFrom(t, append([]string{"-m", "m"}, c.args...)...).Plugins)
			if !slices.Contains(c.args, "--ui-type") && !slices.Contains(c.args, "--ui") {
				got.UI = "" // none or simple, depending on whether stderr is a terminal
			}
			if got != c.want {
				t.Errorf("selection\n got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestFromConfigParsesPluginConfig(t *testing.T) {
	s := settingsFrom(t, "-m", "m", "--plugin-config", "Timing-Strategy.Request-Rate.rate=2.5",
		"--plugin-config", "endpoint.chat.extra=[1]", "--plugin-config", "ramp.linear.steps=3")
	want := []string{"timing_strategy.request_rate rate 2.5", "endpoint.chat extra [1]", "ramp.linear steps 3"}
	if len(s.PluginSettings) != len(want) {
		t.Fatalf("PluginSettings = %+v", s.PluginSettings)
	}
	for i, p := range s.PluginSettings {
		if got := fmt.Sprintf("%s %s %v", p.ID(), p.Key, p.Value); got != want[i] {
			t.Errorf("setting %d = %s, want %s", i, got, want[i])
		}
	}
	if _, ok := s.PluginSettings[2].Value.(int); !ok {
		t.Errorf("ramp.linear.steps = %#v, want the JSON number as an int", s.PluginSettings[2].Value)
	}
	cfg := loadConfig(t, "-m", "m", "--plugin-config", "rate=1")
	if _, err := FromConfig(cfg, "openai", nil); err == nil || !strings.Contains(err.Error(), `--plugin-config "rate=1" is not valid`) {
		t.Errorf("FromConfig with a malformed --plugin-config: %v", err)
	}
}

func TestEveryTimingModeHasAStrategy(t *testing.T) {
	for _, m := range []config.TimingMode{config.ModeFixedSchedule, config.ModeUserCentric, config.ModeRequestRate, config.ModeConcurrency} {
		// The mode's value doubles as the strategy's plugin name.
		if got := selectPhase(config.PhaseSettings{Mode: m}).Timing; got != string(m) {
			t.Errorf("mode %s: strategy %q", m, got)
		}
	}
}

// TestSelectPhase is the per-phase part of the table: the timing strategy
// of each mode and the settings AIPerf's flags give it and the arrival
// pattern.
func TestSelectPhase(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace.jsonl")
	if err := os.WriteFile(trace, []byte(`{"timestamp": 0, "input_length": 8, "output_length": 2}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want phasePlugins
	}{
		{"concurrency", []string{"--concurrency", "4"},
			phasePlugins{Timing: "concurrency", Arrival: "concurrency_burst"}},
		{"default mode is concurrency", nil,
			phasePlugins{Timing: "concurrency", Arrival: "concurrency_burst"}},
		{"request rate, poisson by default", []string{"--request-rate", "50"},
			phasePlugins{Timing: "request_rate", TimingSettings: map[string]any{"rate": 50.0, "ramp_duration": 0.0}, Arrival: "poisson"}},
		{"request rate with a ramp", []string{"--request-rate", "12.5", "--request-rate-ramp-duration", "2.5", "--arrival-pattern", "constant"},
			phasePlugins{Timing: "request_rate", TimingSettings: map[string]any{"rate": 12.5, "ramp_duration": 2.5}, Arrival: "constant"}},
		{"gamma with smoothness", []string{"--request-rate", "10", "--arrival-pattern", "gamma", "--arrival-smoothness", "2"},
			phasePlugins{Timing: "request_rate", TimingSettings: map[string]any{"rate": 10.0, "ramp_duration": 0.0}, Arrival: "gamma",
				ArrivalSettings: map[string]any{"smoothness": 2.0}}},
		{"smoothness alone selects gamma", []string{"--request-rate", "10", "--arrival-smoothness", "0.5"},
			phasePlugins{Timing: "request_rate", TimingSettings: map[string]any{"rate": 10.0, "ramp_duration": 0.0}, Arrival: "gamma",
				ArrivalSettings: map[string]any{"smoothness": 0.5}}},
		{"gamma without smoothness leaves the plugin's default", []string{"--request-rate", "10", "--arrival-pattern", "gamma"},
			phasePlugins{Timing: "request_rate", TimingSettings: map[string]any{"rate": 10.0, "ramp_duration": 0.0}, Arrival: "gamma"}},
		{"smoothness is for gamma only", []string{"--request-rate", "10", "--arrival-pattern", "constant", "--arrival-smoothness", "2"},
			phasePlugins{Timing: "request_rate", TimingSettings: map[string]any{"rate": 10.0, "ramp_duration": 0.0}, Arrival: "constant"}},
		{"user-centric rate", []string{"--user-centric-rate", "4", "--num-users", "8", "--session-turns-mean", "3"},
			phasePlugins{Timing: "user_centric_rate", TimingSettings: map[string]any{"rate": 4.0, "num_users": 8}}},
		{"fixed schedule", []string{"--input-file", trace, "--fixed-schedule"},
			phasePlugins{Timing: "fixed_schedule"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := selectPhase(loadConfig(t, append([]string{"-m", "m"}, c.args...)...).Profiling())
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("selectPhase\n got %#v\nwant %#v", got, c.want)
			}
		})
	}
	// Literal phases: the overlay follows the mode, not the fields set.
	literal := []struct {
		name string
		ps   config.PhaseSettings
		want phasePlugins
	}{
		{"a rate outside request-rate mode is no setting", config.PhaseSettings{Mode: config.ModeConcurrency, Rate: 9, ArrivalPattern: "concurrency_burst"},
			phasePlugins{Timing: "concurrency", Arrival: "concurrency_burst"}},
		{"smoothness with a non-gamma pattern", config.PhaseSettings{Mode: config.ModeRequestRate, Rate: 1, ArrivalPattern: "poisson", Smoothness: 3},
			phasePlugins{Timing: "request_rate", TimingSettings: map[string]any{"rate": 1.0, "ramp_duration": 0.0}, Arrival: "poisson"}},
		{"user-centric without users", config.PhaseSettings{Mode: config.ModeUserCentric, UserCentricRate: 2},
			phasePlugins{Timing: "user_centric_rate", TimingSettings: map[string]any{"rate": 2.0, "num_users": 0}}},
		{"warmup rate ramp", config.PhaseSettings{Mode: config.ModeRequestRate, Rate: 5, RateRamp: 1500 * time.Millisecond, ArrivalPattern: "constant"},
			phasePlugins{Timing: "request_rate", TimingSettings: map[string]any{"rate": 5.0, "ramp_duration": 1.5}, Arrival: "constant"}},
	}
	for _, c := range literal {
		if got := selectPhase(c.ps); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: selectPhase\n got %#v\nwant %#v", c.name, got, c.want)
		}
	}
}

// picks is a selection's names of the run-wide categories, as a struct the
// tables can spell.
type picks struct {
	Endpoint, Transport, Composer, Tokenizer, UI, URLSelection, Sampler, Ramp string
}

func picksOf(s Selection) picks {
	return picks{Endpoint: s.Name(sdk.CategoryEndpoint), Transport: s.Name(sdk.CategoryTransport),
		Composer: s.Name(sdk.CategoryDatasetComposer), Tokenizer: s.Name(sdk.CategoryTokenizer), UI: s.Name(sdk.CategoryUI),
		URLSelection: s.Name(sdk.CategoryURLSelection), Sampler: s.Name(sdk.CategoryDatasetSampler), Ramp: s.Name(sdk.CategoryRamp)}
}
