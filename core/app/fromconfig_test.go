package app

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"reflect"
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
		"--goodput", "request_latency:300", "--ui", "none", "--log-level", "debug")

	models := []string{"org/model-a", "model-b"}
	want := Settings{
		Models:          models,
		EndpointType:    "completions",
		CustomEndpoint:  "/v1/x",
		URLs:            []string{"http://localhost:9000", "https://h2/"},
		Streaming:       true,
		APIKey:          secret,
		UserHeaders:     map[string]string{"Authorization": "Bearer " + secret, "X-Team": "blue"},
		ExtraInputs:     map[string]any{"ignore_eos": true, "temperature": 0.5},
		Timeout:         2500 * time.Millisecond,
		LegacyMaxToks:   true,
		ModelSelection:  "round_robin", // the flag defaults
		ConnectionReuse: "pooled",
		Dataset: sdk.DatasetOptions{Models: models, NumEntries: 7, InputTokensMean: 64, InputTokensStddev: 4,
			OutputTokensMean: 16, OutputTokensStddev: 2, RandomSeed: 99},
		Tokenizer:   sdk.TokenizerSource{Name: "builtin", Revision: "main"},
		Seed:        99,
		ArtifactDir: dir,
		Files: sdk.ArtifactFiles{SummaryJSON: "run1.json", SummaryCSV: "run1.csv", RecordsJSONL: "run1.jsonl",
			Inputs: "inputs.json", Log: filepath.Join("logs", "aiperf.log")},
		ExportLevel: "raw",
		Goodput:     "request_latency:300",
		UI:          "none",
		LogLevel:    slog.LevelDebug,
	}
	got := *s
	got.InputConfig, got.CLICommand = nil, ""
	// Phases and the multi-turn dataset fields come from config's own
	// accessors (tested there); check the values this run sets.
	if p := got.Profiling; p.Mode != config.ModeConcurrency || p.Concurrency != 3 || p.Count != 10 { // max(10, 2*3)
		t.Errorf("Profiling = %+v", p)
	}
	if w := got.Warmup; w == nil || w.Count != 2 || w.Concurrency != 3 {
		t.Errorf("Warmup = %+v, want 2 requests inheriting concurrency 3", w)
	}
	got.Profiling, got.Warmup, got.ScheduleWindow, got.Cancellation = config.PhaseSettings{}, nil, config.ScheduleWindow{}, config.Cancellation{}
	d := got.Dataset
	d.SessionTurnsMean, d.SessionTurnsStddev, d.TurnDelayMeanMs, d.TurnDelayStddevMs, d.TurnDelayRatio = 0, 0, 0, 0, 0
	got.Dataset = d
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Settings\n%+v\nwant\n%+v", got, want)
	}
	// The redacted config and the command line never carry the api key.
	if ic := fmt.Sprint(s.InputConfig); strings.Contains(ic, secret) || s.InputConfig["api_key"] != config.Redacted {
		t.Errorf("InputConfig leaks or drops the api key: %v", s.InputConfig)
	}
	if s.InputConfig["concurrency"] != 3 || s.InputConfig["endpoint_type"] != "completions" {
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
		{"EndpointType", s.EndpointType, "chat"},
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
