package config

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestDefaults(t *testing.T) {
	pinTerminal(t, false)
	cfg, warns := load(t, nil, "-m", "m1")
	if len(warns) != 0 {
		t.Errorf("warnings = %q, want none", warns)
	}
	checks := []struct {
		name string
		got  any
		want any
	}{
		{"url", cfg.URL, []string{"localhost:8000"}},
		{"URLs()", cfg.URLs(), []string{"http://localhost:8000"}},
		{"endpoint_type", cfg.EndpointType, "chat"},
		{"streaming", cfg.Streaming, false},
		{"request_timeout_seconds", cfg.RequestTimeoutSeconds, 21600.0},
		{"isl", cfg.InputTokensMean, 550},
		{"isl_stddev", cfg.InputTokensStddev, 0.0},
		{"osl unset", cfg.OutputTokensMean == nil, true},
		{"osl_stddev", cfg.OutputTokensStddev, 0.0},
		{"num_dataset_entries", cfg.NumDatasetEntries, 100},
		{"random_seed unset", cfg.RandomSeed == nil, true},
		{"tokenizer unset", cfg.Tokenizer, ""},
		{"artifact dir", cfg.ArtifactDir, "artifacts"},
		{"artifact dir set", cfg.ArtifactDirSet, false},
		{"export level", cfg.ExportLevel, "records"},
		{"ui (not a tty)", cfg.UIType, "none"},
		{"log level", cfg.LogLevel, "INFO"},
		{"concurrency unset", cfg.Concurrency == nil, true},
		{"effective concurrency", cfg.EffectiveConcurrency(), 1},
		{"effective request count", cfg.EffectiveRequestCount(), 10},
		{"warmup unset", cfg.WarmupRequestCount == nil, true},
		{"effective warmup", cfg.EffectiveWarmupRequestCount(), 0},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.name, c.got, c.want)
		}
	}
	if err := cfg.Validate(testChoices); err != nil {
		t.Errorf("Validate(defaults) = %v", err)
	}
}

func TestDefaultUIOnTerminal(t *testing.T) {
	pinTerminal(t, true)
	cfg, _ := load(t, nil, "-m", "m")
	if cfg.UIType != "dashboard" {
		t.Errorf("UIType on a terminal = %q, want dashboard", cfg.UIType)
	}
}

func TestEffectiveRequestCount(t *testing.T) {
	tests := []struct {
		args []string
		want int
	}{
		{[]string{}, 10},
		{[]string{"--concurrency", "4"}, 10},
		{[]string{"--concurrency", "5"}, 10},
		{[]string{"--concurrency", "6"}, 12},
		{[]string{"--concurrency", "64"}, 128},
		{[]string{"--concurrency", "64", "--request-count", "7"}, 7},
		{[]string{"--num-requests", "3"}, 3},
	}
	for _, tt := range tests {
		cfg, _ := load(t, nil, append([]string{"-m", "m"}, tt.args...)...)
		if got := cfg.EffectiveRequestCount(); got != tt.want {
			t.Errorf("%q: EffectiveRequestCount = %d, want %d", tt.args, got, tt.want)
		}
	}
}

// Every alias must set the same field as the primary name.
func TestFlagAliases(t *testing.T) {
	pinTerminal(t, false)
	tests := []struct {
		args []string
		get  func(*RunConfig) any
		want any
	}{
		{[]string{"-m", "a"}, func(c *RunConfig) any { return c.ModelNames }, []string{"a"}},
		{[]string{"--model", "a"}, func(c *RunConfig) any { return c.ModelNames }, []string{"a"}},
		{[]string{"--model-names", "a,b"}, func(c *RunConfig) any { return c.ModelNames }, []string{"a", "b"}},
		{[]string{"-m", "a", "--model", "b", "--model-names", "c"}, func(c *RunConfig) any { return c.ModelNames }, []string{"a", "b", "c"}},
		{[]string{"-u", "h1:1"}, func(c *RunConfig) any { return c.URL }, []string{"h1:1"}},
		{[]string{"--url", "h1:1", "--url", "https://h2"}, func(c *RunConfig) any { return c.URLs() }, []string{"http://h1:1", "https://h2"}},
		{[]string{"--endpoint", "/x"}, func(c *RunConfig) any { return c.CustomEndpoint }, "/x"},
		{[]string{"--custom-endpoint", "/y"}, func(c *RunConfig) any { return c.CustomEndpoint }, "/y"},
		{[]string{"--endpoint-type", "COMPLETIONS"}, func(c *RunConfig) any { return c.EndpointType }, "completions"},
		{[]string{"--streaming"}, func(c *RunConfig) any { return c.Streaming }, true},
		{[]string{"--api-key", "k"}, func(c *RunConfig) any { return c.APIKey }, "k"},
		{[]string{"-H", "A:1", "--header", "B:2"}, func(c *RunConfig) any { return c.Header }, []string{"A:1", "B:2"}},
		{[]string{"--extra-inputs", "a:1,b:2"}, func(c *RunConfig) any { return c.ExtraInputsRaw }, []string{"a:1,b:2"}},
		{[]string{"--request-timeout-seconds", "2.5"}, func(c *RunConfig) any { return c.RequestTimeoutSeconds }, 2.5},
		{[]string{"--use-legacy-max-tokens"}, func(c *RunConfig) any { return c.UseLegacyMaxTokens }, true},
		{[]string{"--concurrency", "8"}, func(c *RunConfig) any { return derefInt(c.Concurrency) }, 8},
		{[]string{"--request-count", "9"}, func(c *RunConfig) any { return derefInt(c.RequestCount) }, 9},
		{[]string{"--num-requests", "9"}, func(c *RunConfig) any { return derefInt(c.RequestCount) }, 9},
		{[]string{"--warmup-request-count", "3"}, func(c *RunConfig) any { return derefInt(c.WarmupRequestCount) }, 3},
		{[]string{"--num-warmup-requests", "3"}, func(c *RunConfig) any { return derefInt(c.WarmupRequestCount) }, 3},
		{[]string{"--isl", "100"}, func(c *RunConfig) any { return c.InputTokensMean }, 100},
		{[]string{"--synthetic-input-tokens-mean", "101"}, func(c *RunConfig) any { return c.InputTokensMean }, 101},
		{[]string{"--prompt-input-tokens-mean", "102"}, func(c *RunConfig) any { return c.InputTokensMean }, 102},
		{[]string{"--isl-stddev", "1.5"}, func(c *RunConfig) any { return c.InputTokensStddev }, 1.5},
		{[]string{"--synthetic-input-tokens-stddev", "2"}, func(c *RunConfig) any { return c.InputTokensStddev }, 2.0},
		{[]string{"--prompt-input-tokens-stddev", "3"}, func(c *RunConfig) any { return c.InputTokensStddev }, 3.0},
		{[]string{"--osl", "50"}, func(c *RunConfig) any { return derefInt(c.OutputTokensMean) }, 50},
		{[]string{"--output-tokens-mean", "51"}, func(c *RunConfig) any { return derefInt(c.OutputTokensMean) }, 51},
		{[]string{"--prompt-output-tokens-mean", "52"}, func(c *RunConfig) any { return derefInt(c.OutputTokensMean) }, 52},
		{[]string{"--osl", "5", "--osl-stddev", "1"}, func(c *RunConfig) any { return c.OutputTokensStddev }, 1.0},
		{[]string{"--osl", "5", "--output-tokens-stddev", "2"}, func(c *RunConfig) any { return c.OutputTokensStddev }, 2.0},
		{[]string{"--osl", "5", "--prompt-output-tokens-stddev", "3"}, func(c *RunConfig) any { return c.OutputTokensStddev }, 3.0},
		{[]string{"--num-dataset-entries", "7"}, func(c *RunConfig) any { return c.NumDatasetEntries }, 7},
		{[]string{"--num-prompts", "8"}, func(c *RunConfig) any { return c.NumDatasetEntries }, 8},
		{[]string{"--random-seed", "42"}, func(c *RunConfig) any { return *c.RandomSeed }, int64(42)},
		{[]string{"--tokenizer", "gpt2"}, func(c *RunConfig) any { return c.Tokenizer }, "gpt2"},
		{[]string{"--artifact-dir", "out"}, func(c *RunConfig) any { return []any{c.ArtifactDir, c.ArtifactDirSet} }, []any{"out", true}},
		{[]string{"--output-artifact-dir", "out2"}, func(c *RunConfig) any { return []any{c.ArtifactDir, c.ArtifactDirSet} }, []any{"out2", true}},
		{[]string{"--profile-export-prefix", "p"}, func(c *RunConfig) any { return c.ProfileExportPrefix }, "p"},
		{[]string{"--profile-export-file", "q"}, func(c *RunConfig) any { return c.ProfileExportPrefix }, "q"},
		{[]string{"--export-level", "raw"}, func(c *RunConfig) any { return c.ExportLevel }, "raw"},
		{[]string{"--profile-export-level", "SUMMARY"}, func(c *RunConfig) any { return c.ExportLevel }, "summary"},
		{[]string{"--goodput", "request_latency:250"}, func(c *RunConfig) any { return c.Goodput }, "request_latency:250"},
		{[]string{"--ui", "simple"}, func(c *RunConfig) any { return c.UIType }, "simple"},
		{[]string{"--ui-type", "none"}, func(c *RunConfig) any { return c.UIType }, "none"},
		{[]string{"--log-level", "warning"}, func(c *RunConfig) any { return c.LogLevel }, "WARNING"},
		{[]string{"-v"}, func(c *RunConfig) any { return []any{c.Verbose, c.ExtraVerbose, c.LogLevel} }, []any{true, false, "DEBUG"}},
		{[]string{"--verbose"}, func(c *RunConfig) any { return []any{c.Verbose, c.ExtraVerbose, c.LogLevel} }, []any{true, false, "DEBUG"}},
		{[]string{"-vv"}, func(c *RunConfig) any { return []any{c.ExtraVerbose, c.LogLevel} }, []any{true, "TRACE"}},
		{[]string{"--extra-verbose"}, func(c *RunConfig) any { return []any{c.ExtraVerbose, c.LogLevel} }, []any{true, "TRACE"}},
		{[]string{"--log-level", "ERROR", "-v"}, func(c *RunConfig) any { return c.LogLevel }, "DEBUG"},
		{[]string{"--user-config-file", "/dev/null"}, func(c *RunConfig) any { return c.ConfigFile }, "/dev/null"},
		{[]string{"--config", "/dev/null"}, func(c *RunConfig) any { return c.ConfigFile }, "/dev/null"},
	}
	for _, tt := range tests {
		args := tt.args
		if !strings.HasPrefix(args[0], "-m") && !strings.HasPrefix(args[0], "--model") {
			args = append([]string{"-m", "x"}, args...)
		}
		cfg, _ := load(t, nil, args...)
		if got := tt.get(cfg); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: got %#v, want %#v", tt.args, got, tt.want)
		}
	}
}

// AIPerf's choice of UI: dashboard on a terminal, none otherwise, simple
// with -v/-vv on a terminal; an explicit dashboard that cannot run there
// runs as simple and says so.
func TestUIChoice(t *testing.T) {
	tests := []struct {
		tty      bool
		args     []string
		want     string
		warnWith string // "" : no warning
	}{
		{true, nil, "dashboard", ""},
		{false, nil, "none", ""},
		{true, []string{"-v"}, "simple", ""},
		{true, []string{"-vv"}, "simple", ""},
		{false, []string{"-v"}, "none", ""},
		{true, []string{"--ui", "dashboard"}, "dashboard", ""},
		{true, []string{"--ui-type", "simple"}, "simple", ""},
		{false, []string{"--ui", "none"}, "none", ""},
		{false, []string{"--ui", "dashboard"}, "simple", "needs stderr to be a terminal"},
		{true, []string{"--ui", "dashboard", "--verbose"}, "simple", "--verbose/--extra-verbose"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("tty=%v %q", tt.tty, tt.args), func(t *testing.T) {
			pinTerminal(t, tt.tty)
			cfg, warns := load(t, nil, append([]string{"-m", "m"}, tt.args...)...)
			if cfg.UIType != tt.want {
				t.Errorf("UIType = %q, want %q", cfg.UIType, tt.want)
			}
			switch {
			case tt.warnWith == "" && len(warns) != 0:
				t.Errorf("warnings = %q, want none", warns)
			case tt.warnWith != "" && (len(warns) != 1 || !strings.Contains(warns[0], tt.warnWith) || !strings.Contains(warns[0], `"dashboard"`)):
				t.Errorf("warnings = %q, want one about dashboard saying %q", warns, tt.warnWith)
			}
		})
	}
}

func TestOSLStddevWithoutMeanWarns(t *testing.T) {
	_, warns := load(t, nil, "-m", "m", "--osl-stddev", "3")
	if len(warns) != 1 || !strings.Contains(warns[0], "--prompt-output-tokens-stddev") {
		t.Errorf("warnings = %q", warns)
	}
}

// Precedence: default < file < env < flag, checked on one key at a time so
// each layer's win is visible.
func TestPrecedence(t *testing.T) {
	file := writeFile(t, "cfg.yaml", "model_names: [file-model]\nconcurrency: 2\nrequest_count: 20\nprompt_input_tokens_mean: 200\nstreaming: true\n")
	tests := []struct {
		name string
		env  []string
		args []string
		want [4]any // concurrency, request_count, isl, model
	}{
		{"defaults only", nil, []string{"-m", "flag-model"}, [4]any{nil, nil, 550, "flag-model"}},
		{"file over defaults", nil, []string{"--config", file}, [4]any{2, 20, 200, "file-model"}},
		{"env over file", []string{"AIPERF_CONCURRENCY=3", "AIPERF_ISL=300"}, []string{"--config", file}, [4]any{3, 20, 300, "file-model"}},
		{"flag over env and file", []string{"AIPERF_CONCURRENCY=3", "AIPERF_MODEL_NAMES=env-model"}, []string{"--config", file, "--concurrency", "4", "--isl", "400"}, [4]any{4, 20, 400, "env-model"}},
		{"flag equal to default still wins", []string{"AIPERF_ISL=300"}, []string{"--config", file, "--isl", "550"}, [4]any{2, 20, 550, "file-model"}},
		{"file via AIPerf env name", []string{"AIPERF_CONFIG_USER_FILE=" + file}, nil, [4]any{2, 20, 200, "file-model"}},
		{"file via our env name", []string{"AIPERF_USER_CONFIG_FILE=" + file}, nil, [4]any{2, 20, 200, "file-model"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _ := load(t, tt.env, tt.args...)
			got := [4]any{derefInt(cfg.Concurrency), derefInt(cfg.RequestCount), cfg.InputTokensMean, cfg.ModelNames[0]}
			if got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// An unchanged bool flag (false by default) must not undo streaming: true
// from the file — the classic posflag trap.
func TestUnchangedFlagDefaultsDoNotOverrideFile(t *testing.T) {
	file := writeFile(t, "cfg.yaml", "model_names: m\nstreaming: true\nurl: [a:1, b:2]\nexport_level: raw\n")
	cfg, _ := load(t, nil, "--config", file)
	if !cfg.Streaming || cfg.ExportLevel != "raw" || !reflect.DeepEqual(cfg.URL, []string{"a:1", "b:2"}) {
		t.Errorf("streaming=%v export=%q url=%q; file values lost", cfg.Streaming, cfg.ExportLevel, cfg.URL)
	}
}

func TestEnvValues(t *testing.T) {
	pinTerminal(t, false)
	env := []string{
		"AIPERF_MODEL_NAMES=a, b",
		"AIPERF_URL=h1:1,https://h2",
		"AIPERF_STREAMING=true",
		"AIPERF_HEADER=X-A:1,X-B:2",
		`AIPERF_EXTRA_INPUTS={"temperature":0.5,"n":2}`,
		"AIPERF_REQUEST_TIMEOUT_SECONDS=12.5",
		"AIPERF_ARTIFACT_DIR=envdir",
		"AIPERF_UI=simple",
		"AIPERF_UI_CONSOLE_EXPORT_WIDTH=140", // AIPerf runtime setting: ignored
		"AIPERF_TIMING_MAX_CATCHUP_SECONDS=0.01",
		"AIPERF_CONCURRENCY=", // empty: unset
		"OTHER_CONCURRENCY=5",
	}
	cfg, _ := load(t, env)
	if !reflect.DeepEqual(cfg.ModelNames, []string{"a", "b"}) {
		t.Errorf("ModelNames = %q", cfg.ModelNames)
	}
	if !reflect.DeepEqual(cfg.URLs(), []string{"http://h1:1", "https://h2"}) {
		t.Errorf("URLs = %q", cfg.URLs())
	}
	if !cfg.Streaming || cfg.RequestTimeoutSeconds != 12.5 || cfg.UIType != "simple" {
		t.Errorf("streaming=%v timeout=%v ui=%q", cfg.Streaming, cfg.RequestTimeoutSeconds, cfg.UIType)
	}
	if h := cfg.Headers(); h["X-A"] != "1" || h["X-B"] != "2" {
		t.Errorf("Headers = %v", h)
	}
	if x := cfg.ExtraInputs(); x["temperature"] != 0.5 || x["n"] != 2 {
		t.Errorf("ExtraInputs = %#v", x)
	}
	if cfg.ArtifactDir != "envdir" || !cfg.ArtifactDirSet {
		t.Errorf("artifact dir = %q set=%v", cfg.ArtifactDir, cfg.ArtifactDirSet)
	}
	if cfg.Concurrency != nil {
		t.Errorf("empty AIPERF_CONCURRENCY set concurrency to %d", *cfg.Concurrency)
	}
}

func TestFileForms(t *testing.T) {
	file := writeFile(t, "cfg.yaml", `
model: "org/model"
isl: 64
header:
  X-Team: perf
  Authorization: Bearer s3cr3t
extra_inputs:
  - "temperature:0.7"
  - {top_k: 5}
concurrency: ~
tokenizer: 123
`)
	cfg, _ := load(t, nil, "--config", file)
	if !reflect.DeepEqual(cfg.ModelNames, []string{"org/model"}) || cfg.InputTokensMean != 64 {
		t.Errorf("models=%q isl=%d", cfg.ModelNames, cfg.InputTokensMean)
	}
	if h := cfg.Headers(); h["X-Team"] != "perf" || h["Authorization"] != "Bearer s3cr3t" {
		t.Errorf("Headers = %v", h)
	}
	if x := cfg.ExtraInputs(); x["temperature"] != 0.7 || x["top_k"] != 5 {
		t.Errorf("ExtraInputs = %#v", x)
	}
	if cfg.Concurrency != nil || cfg.Tokenizer != "123" {
		t.Errorf("concurrency=%v tokenizer=%q", cfg.Concurrency, cfg.Tokenizer)
	}
}

// JSON is YAML: AIPerf accepts .json user config files too.
func TestJSONConfigFile(t *testing.T) {
	file := writeFile(t, "cfg.json", `{"model_names": ["a"], "concurrency": 3, "extra_inputs": {"temperature": 0.2}}`)
	cfg, _ := load(t, nil, "--user-config-file", file)
	if cfg.ModelNames[0] != "a" || derefInt(cfg.Concurrency) != 3 || cfg.ExtraInputs()["temperature"] != 0.2 {
		t.Errorf("models=%q concurrency=%v extra=%v", cfg.ModelNames, derefInt(cfg.Concurrency), cfg.ExtraInputs())
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name    string
		file    string // config file content; "" = no file
		env     []string
		args    []string
		wantErr []string
	}{
		{"missing file", "", nil, []string{"--config", "/nonexistent/x.yaml"}, []string{`--user-config-file "/nonexistent/x.yaml"`, "no such file"}},
		{"malformed yaml", "model_names: a\nconcurrency: 1\nurl: d: e\n", nil, nil, []string{"--user-config-file", "cfg.yaml", "line 3", "mapping values"}},
		{"top level list", "- a\n- b\n", nil, nil, []string{"line 1", "mapping"}},
		{"unknown key", "model_names: a\nconcurency: 2\n", nil, nil, []string{"line 2", `unknown key "concurency"`, `did you mean "concurrency"`}},
		{"config file inside file", "user_config_file: x.yaml\n", nil, nil, []string{`unknown key "user_config_file"`}},
		{"duplicate yaml key", "isl: 1\nisl: 2\n", nil, nil, []string{"line 2", `"isl"`}},
		{"alias and key together", "isl: 1\nprompt_input_tokens_mean: 2\n", nil, nil, []string{"line 2", "prompt_input_tokens_mean"}},
		{"bad type in file", "model_names: a\nconcurrency: lots\n", nil, nil, []string{"line 2", "concurrency", `expected an integer, got "lots"`}},
		{"bad list in file", "url: {a: 1}\n", nil, nil, []string{"line 1", "url", "a mapping"}},
		{"bad env int", "", []string{"AIPERF_REQUEST_COUNT=ten"}, nil, []string{"AIPERF_REQUEST_COUNT", `expected an integer, got "ten"`}},
		{"bad env bool", "", []string{"AIPERF_STREAMING=maybe"}, nil, []string{"AIPERF_STREAMING", "true or false"}},
		{"env alias clash", "", []string{"AIPERF_ISL=1", "AIPERF_PROMPT_INPUT_TOKENS_MEAN=2"}, nil, []string{"AIPERF_ISL", "AIPERF_PROMPT_INPUT_TOKENS_MEAN"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if tt.file != "" {
				args = append([]string{"--config", writeFile(t, "cfg.yaml", tt.file)}, args...)
			}
			_, _, err := Load(newProfileCmd(t, args...), tt.env)
			if err == nil {
				t.Fatal("Load succeeded, want error")
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestLoadWithoutRegisteredFlags(t *testing.T) {
	_, _, err := Load(newBareCmd(), nil)
	if err == nil || !strings.Contains(err.Error(), "RegisterProfileFlags") {
		t.Errorf("err = %v, want a RegisterProfileFlags hint", err)
	}
}

func TestBadFlagValueIsCobraError(t *testing.T) {
	cmd := newBareCmd()
	RegisterProfileFlags(cmd)
	err := cmd.ParseFlags([]string{"--concurrency", "many"})
	if err == nil || !strings.Contains(err.Error(), "--concurrency") {
		t.Errorf("ParseFlags err = %v", err)
	}
}
