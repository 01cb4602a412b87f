package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSynthesisFlagsParse(t *testing.T) {
	cfg, _ := load(t, nil, "-m", "m", "--synthesis-speedup-ratio", "2.5", "--synthesis-prefix-len-multiplier", "1.5",
		"--synthesis-prefix-root-multiplier", "3", "--synthesis-prompt-len-multiplier", "0.5",
		"--synthesis-output-len-multiplier", "0", "--synthesis-max-isl", "4096", "--synthesis-max-osl", "128")
	got := []any{*cfg.SynthesisSpeedupRatio, *cfg.SynthesisPrefixLenMultiplier, *cfg.SynthesisPrefixRootMultiplier,
		*cfg.SynthesisPromptLenMultiplier, *cfg.SynthesisOutputLenMultiplier, *cfg.SynthesisMaxISL, *cfg.SynthesisMaxOSL}
	want := []any{2.5, 1.5, 3, 0.5, 0.0, 4096, 128}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if err := cfg.Validate(testChoices); err != nil {
		t.Errorf("valid flags: %v", err)
	}
	bare, _ := load(t, nil, "-m", "m")
	if bare.SynthesisSpeedupRatio != nil || bare.SynthesisMaxISL != nil || bare.synthesisSection() != nil {
		t.Error("unset synthesis flags should stay nil")
	}
}

func TestValidateSynthesis(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(trace, []byte(`{"input_length": 4, "output_length": 2}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"negative speedup", []string{"--synthesis-speedup-ratio", "-1"}, "--synthesis-speedup-ratio must be >= 0 (got -1)"},
		{"zero speedup with a file", []string{"--input-file", trace, "--synthesis-speedup-ratio", "0"}, "--synthesis-speedup-ratio must be > 0 with --input-file (got 0)"},
		{"zero prompt multiplier with a file", []string{"--input-file", trace, "--synthesis-prompt-len-multiplier", "0"}, "--synthesis-prompt-len-multiplier must be > 0 with --input-file (got 0)"},
		{"nan prefix", []string{"--synthesis-prefix-len-multiplier", "NaN"}, "--synthesis-prefix-len-multiplier must be a finite number (got NaN)"},
		{"negative output", []string{"--synthesis-output-len-multiplier", "-0.5"}, "--synthesis-output-len-multiplier must be >= 0 (got -0.5)"},
		{"zero root", []string{"--synthesis-prefix-root-multiplier", "0"}, "--synthesis-prefix-root-multiplier must be >= 1 (got 0)"},
		{"zero max isl", []string{"--synthesis-max-isl", "0"}, "--synthesis-max-isl must be >= 1 (got 0)"},
		{"negative max osl", []string{"--synthesis-max-osl", "-3"}, "--synthesis-max-osl must be >= 1 (got -3)"},
		{"bailian", []string{"--input-file", trace, "--custom-dataset-type", "bailian_trace", "--synthesis-max-osl", "3"},
			"--synthesis-max-osl is not supported yet with --custom-dataset-type bailian_trace: only mooncake_trace applies the --synthesis-* options"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _ := load(t, nil, append([]string{"-m", "m"}, tt.args...)...)
			err := cfg.Validate(testChoices)
			if err == nil {
				t.Fatalf("Validate succeeded, want %q", tt.want)
			}
			for _, l := range strings.Split(err.Error(), "\n") {
				if l == tt.want {
					return
				}
			}
			t.Errorf("error %q\nwant line %q", err, tt.want)
		})
	}
	// AIPerf's CLI accepts 0 (only its file-dataset model refuses it).
	cfg, _ := load(t, nil, "-m", "m", "--synthesis-speedup-ratio", "0")
	if err := cfg.Validate(testChoices); err != nil {
		t.Errorf("speedup 0 without a file: %v", err)
	}
}

// The datasets section matches AIPerf 0.13's dump for --input-file
// trace.jsonl --custom-dataset-type mooncake_trace --random-seed 3
// --synthesis-speedup-ratio 2 --synthesis-prefix-root-multiplier 3
// --synthesis-output-len-multiplier 0.5 --synthesis-max-osl 64; the
// loader's settings carry the same section.
func TestSynthesisInputConfigAndSettings(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(trace, []byte(`{"input_length": 4, "output_length": 2}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _ := load(t, nil, "-m", "m", "--input-file", trace, "--custom-dataset-type", "mooncake_trace", "--random-seed", "3",
		"--synthesis-speedup-ratio", "2", "--synthesis-prefix-root-multiplier", "3",
		"--synthesis-output-len-multiplier", "0.5", "--synthesis-max-osl", "64")
	want := `[{"name": "main", "type": "file", "path": "` + trace + `", "format": "mooncake_trace",
		"synthesis": {"speedup_ratio": 2.0, "prefix_root_multiplier": 3, "output_len_multiplier": 0.5, "max_osl": 64},
		"random_seed": 3}]`
	dec := json.NewDecoder(strings.NewReader(want))
	dec.UseNumber()
	var w any
	if err := dec.Decode(&w); err != nil {
		t.Fatal(err)
	}
	ds := cfg.InputConfig()["datasets"]
	for _, d := range sameJSON("datasets", ds, w) {
		t.Error(d)
	}
	wantSettings := map[string]any{"synthesis": map[string]any{
		"speedup_ratio": 2.0, "prefix_root_multiplier": 3, "output_len_multiplier": 0.5, "max_osl": 64}}
	if got := cfg.SynthesisSettings(); !reflect.DeepEqual(got, wantSettings) {
		t.Errorf("SynthesisSettings = %v, want %v", got, wantSettings)
	}
	synthetic, _ := load(t, nil, "-m", "m", "--synthesis-speedup-ratio", "2")
	if s := synthetic.SynthesisSettings(); s != nil {
		t.Errorf("a synthetic dataset ignores the flags (AIPerf), got settings %v", s)
	}
	if _, ok := synthetic.InputConfig()["datasets"].([]any)[0].(map[string]any)["synthesis"]; ok {
		t.Error("a synthetic dataset has no synthesis section in AIPerf's dump")
	}
}
