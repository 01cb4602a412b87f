package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseSeqDistFormats(t *testing.T) {
	want := []SeqDistPair{{ISL: 256, ISLStddev: 10, OSL: 128, OSLStddev: 5, Probability: 40}, {ISL: 512, OSL: 256, Probability: 60}}
	for _, s := range []string{
		"256|10,128|5:40;512,256:60",
		" 256|10 , 128|5 : 40 ; 512,256:60; ",
		"[(256|10,128|5):40,(512,256):60]",
		`{"pairs": [{"isl": 256, "isl_stddev": 10, "osl": 128, "osl_stddev": 5, "prob": 40}, {"isl": 512, "osl": 256, "prob": 60}]}`,
	} {
		got, err := ParseSeqDist(s)
		if err != nil {
			t.Errorf("%q: %v", s, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n got %+v\nwant %+v", s, got, want)
		}
	}
	if got, err := ParseSeqDist("128,64:33.3333333;256,64:33.3333333;512,64:33.3333334"); err != nil || len(got) != 3 {
		t.Errorf("fractional percentages: %v %v", got, err)
	}
}

// The messages are AIPerf 0.13's (DistributionParser, SequenceLengthPair).
func TestParseSeqDistErrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", "Distribution string cannot be empty"},
		{"abc", "Failed to parse distribution string 'abc': Invalid pair format: 'abc'. Expected 'ISL[|ISL_STDDEV],OSL[|OSL_STDDEV]:PROB'"},
		{"128,16:50;256,32:40", "Failed to parse distribution string '128,16:50;256,32:40': Probabilities must sum to 100.0, got 90.000000. Pairs: ['(128,16):50.0%', '(256,32):40.0%']"},
		{"128|2,16:50;256,32:40", "Failed to parse distribution string '128|2,16:50;256,32:40': Probabilities must sum to 100.0, got 90.000000. Pairs: ['(128|2.0,16|0.0):50.0%', '(256,32):40.0%']"},
		{"0,16:100", "Failed to parse distribution string '0,16:100': Input sequence length must be positive, got 0"},
		{"16,0:100", "Failed to parse distribution string '16,0:100': Output sequence length must be positive, got 0"},
		{"16,8:150", "Failed to parse distribution string '16,8:150': Probability must be in [0,100], got 150.0"},
		{"[nothing]", "Failed to parse distribution string '[nothing]': No valid pairs found in bracket format"},
		{";", "Failed to parse distribution string ';': No valid pairs found in semicolon format"},
		{`{"x": 1}`, `Failed to parse distribution string '{"x": 1}': JSON format must contain 'pairs' key`},
		{`{"pairs": [{"isl": 1}]}`, `Failed to parse distribution string '{"pairs": [{"isl": 1}]}': Pair 0 missing required keys: {'osl', 'prob'}`},
	} {
		_, err := ParseSeqDist(tt.in)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%q: got %v\nwant %s", tt.in, err, tt.want)
		}
	}
	if _, err := ParseSeqDist("{bad"); err == nil || !strings.HasPrefix(err.Error(), "Failed to parse distribution string '{bad': Invalid JSON format: ") {
		t.Errorf("bad JSON: %v", err)
	}
}

func TestValidatePrefixPrompts(t *testing.T) {
	dataset := filepath.Join(t.TempDir(), "d.jsonl")
	if err := os.WriteFile(dataset, []byte(`{"text": "hi"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"bad seq dist", []string{"--seq-dist", "abc"},
			"--seq-dist/--sequence-distribution: Failed to parse distribution string 'abc': Invalid pair format: 'abc'. Expected 'ISL[|ISL_STDDEV],OSL[|OSL_STDDEV]:PROB'"},
		{"negative pool", []string{"--num-prefix-prompts", "-1", "--prefix-prompt-length", "4"},
			"--prompt-prefix-pool-size/--prefix-prompt-pool-size/--num-prefix-prompts must be >= 0 (got -1)"},
		{"zero pool", []string{"--num-prefix-prompts", "0"},
			"--prompt-prefix-pool-size/--prefix-prompt-pool-size/--num-prefix-prompts must be >= 1 when given (got 0; AIPerf 0.13 rejects an explicit 0: leave the flag out to disable prefix prompts)"},
		{"zero length", []string{"--num-prefix-prompts", "2", "--prompt-prefix-length", "0"},
			"--prompt-prefix-length/--prefix-prompt-length must be >= 1 when given (got 0; AIPerf 0.13 rejects an explicit 0: leave the flag out to disable prefix prompts)"},
		{"length without pool", []string{"--prefix-prompt-length", "4"},
			"--prompt-prefix-length/--prefix-prompt-length requires --num-prefix-prompts (the pool the prefixes are drawn from)"},
		{"exclusive", []string{"--num-prefix-prompts", "2", "--prefix-prompt-length", "4", "--shared-system-prompt-length", "5"},
			"pool_size/length and shared_system_length/user_context_length are mutually exclusive (--num-prefix-prompts/--prefix-prompt-length cannot be combined with --shared-system-prompt-length/--user-context-prompt-length)"},
		{"two system prompts", []string{"--system-prompt", "be brief", "--system-prompt-file", dataset},
			"--system-prompt and --system-prompt-file are mutually exclusive; set exactly one"},
		{"system prompt and shared length", []string{"--system-prompt", "be brief", "--shared-system-prompt-length", "5"},
			"--system-prompt/--system-prompt-file and --shared-system-prompt-length are mutually exclusive: both fill the system message. Use the first for verbatim text, the second for synthetic filler of a target token length"},
		{"system prompt and pool", []string{"--system-prompt-file", dataset, "--num-prefix-prompts", "2", "--prefix-prompt-length", "4"},
			"--system-prompt/--system-prompt-file and --num-prefix-prompts/--prefix-prompt-length are mutually exclusive, matching --shared-system-prompt-length, which fills the same system-message slot"},
		{"blank system prompt", []string{"--system-prompt", "  \n"},
			"--system-prompt is empty or whitespace-only; omit the option to run without a system prompt"},
		{"missing system prompt file", []string{"--system-prompt-file", "/nonexistent/sys.txt"},
			"--system-prompt-file /nonexistent/sys.txt could not be read: open /nonexistent/sys.txt: no such file or directory"},
		{"system bound", []string{"--user-context-prompt-length", "0"}, "--user-context-prompt-length must be >= 1 (got 0)"},
		{"input file", []string{"--input-file", dataset, "--seq-dist", "8,8:100", "--num-prefix-prompts", "2", "--prefix-prompt-length", "4"},
			"--prompt-prefix-length/--prefix-prompt-length, --prompt-prefix-pool-size/--prefix-prompt-pool-size, --seq-dist/--sequence-distribution is only supported with synthetic datasets; remove --input-file (use a synthetic dataset) to apply synthetic-only prompt shaping (ISL, prefix prompts, multimodal generation, multi-turn conversation, etc)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _ := load(t, nil, append([]string{"-m", "m"}, tt.args...)...)
			err := cfg.Validate(testChoices)
			if err == nil {
				t.Fatalf("Validate succeeded, want %q", tt.want)
			}
			lines := strings.Split(err.Error(), "\n")
			for _, l := range lines {
				if l == tt.want {
					return
				}
			}
			t.Errorf("error lines %q\nwant line %q", lines, tt.want)
		})
	}
	cfg, _ := load(t, nil, "-m", "m", "--sequence-distribution", "[(8,4):50,(16|2,8|1):50]", "--prompt-prefix-pool-size", "3", "--prefix-prompt-length", "6")
	if err := cfg.Validate(testChoices); err != nil {
		t.Errorf("valid flags: %v", err)
	}
}

// The system prompt flags resolve to the text every conversation gets; the
// two lengths reach the synthetic composer's settings.
func TestSystemPromptResolution(t *testing.T) {
	file := filepath.Join(t.TempDir(), "sys.txt")
	if err := os.WriteFile(file, []byte("You are terse.\nAnswer in one line."), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--system-prompt", "be brief"}, "be brief"},
		{[]string{"--system-prompt-file", file}, "You are terse.\nAnswer in one line."},
		{nil, ""},
	} {
		cfg, _ := load(t, nil, append([]string{"-m", "m"}, tt.args...)...)
		if err := cfg.Validate(testChoices); err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		if cfg.ResolvedSystemPrompt != tt.want {
			t.Errorf("%v: resolved %q, want %q", tt.args, cfg.ResolvedSystemPrompt, tt.want)
		}
	}
	cfg, _ := load(t, nil, "-m", "m", "--shared-system-prompt-length", "5", "--user-context-prompt-length", "3")
	if err := cfg.Validate(testChoices); err != nil {
		t.Fatal(err)
	}
	got := cfg.PrefixPromptSettings()
	if got["shared_system_prompt_length"] != 5 || got["user_context_prompt_length"] != 3 {
		t.Errorf("settings %v", got)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--shared-system-prompt-length", "5", "--user-context-prompt-length", "3"}, `"prefix_prompts": {"shared_system_length": 5, "user_context_length": 3}`},
		{[]string{"--system-prompt", "be brief"}, `"system_prompt": "be brief"`},
	} {
		cfg, _ := load(t, nil, append([]string{"-m", "m"}, tt.args...)...)
		if err := cfg.Validate(testChoices); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(cfg.InputConfig())
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.ReplaceAll(strings.ReplaceAll(string(b), ":", ": "), ",", ", "), tt.want) {
			t.Errorf("%v: input_config %s lacks %s", tt.args, b, tt.want)
		}
	}
}

func TestPrefixPromptSettings(t *testing.T) {
	cfg, _ := load(t, nil, "-m", "m", "--seq-dist", "8|1.5,4:25;16,8|2:75", "--num-prefix-prompts", "3", "--prefix-prompt-length", "6")
	want := map[string]any{
		"sequence_distribution": []any{
			map[string]any{"isl": 8, "isl_stddev": 1.5, "osl": 4, "osl_stddev": 0.0, "prob": 25.0},
			map[string]any{"isl": 16, "isl_stddev": 0.0, "osl": 8, "osl_stddev": 2.0, "prob": 75.0},
		},
		"prefix_prompt_pool_size": 3,
		"prefix_prompt_length":    6,
	}
	if got := cfg.PrefixPromptSettings(); !reflect.DeepEqual(got, want) {
		t.Errorf("PrefixPromptSettings:\n got %#v\nwant %#v", got, want)
	}
	cfg, _ = load(t, nil, "-m", "m")
	if got := cfg.PrefixPromptSettings(); len(got) != 0 {
		t.Errorf("defaults: %#v, want none", got)
	}
}

// The datasets section matches what AIPerf 0.13 dumped for
// --request-count 4 --random-seed 7 --seq-dist "128,16:50;256|10,32|2:50"
// --num-prefix-prompts 2 --prefix-prompt-length 20.
func TestInputConfigPrefixPrompts(t *testing.T) {
	cfg, _ := load(t, nil, "-m", "m", "--request-count", "4", "--random-seed", "7",
		"--seq-dist", "128,16:50;256|10,32|2:50", "--num-prefix-prompts", "2", "--prefix-prompt-length", "20")
	const want = `[{"name": "main", "type": "synthetic", "entries": 4, "random_seed": 7,
		"prompts": {"isl": {"mean": 550.0}, "sequence_distribution": [
			{"isl": {"mean": 128.0, "stddev": 0.0}, "osl": {"mean": 16.0, "stddev": 0.0}, "probability": 50.0},
			{"isl": {"mean": 256.0, "stddev": 10.0}, "osl": {"mean": 32.0, "stddev": 2.0}, "probability": 50.0}]},
		"prefix_prompts": {"pool_size": 2, "length": 20}}]`
	dec := json.NewDecoder(strings.NewReader(want))
	dec.UseNumber()
	var w any
	if err := dec.Decode(&w); err != nil {
		t.Fatal(err)
	}
	for _, d := range sameJSON("datasets", cfg.InputConfig()["datasets"], w) {
		t.Error(d)
	}
}
