package config

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestPublicDatasetValidation(t *testing.T) {
	file := writeFile(t, "in.jsonl", `{"text": "hi"}`+"\n")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--public-dataset", "sharegpt", "--input-file", file}, "--public-dataset and --input-file cannot be used together: the dataset is either public or a file"},
		{[]string{"--public-dataset", "sharegpt", "--custom-dataset-type", "single_turn", "--input-file", file}, "--public-dataset and --custom-dataset-type cannot be used together: --custom-dataset-type names the format of an --input-file"},
		{[]string{"--hf-subset", "en"}, "--hf-subset en requires --public-dataset"},
	}
	for _, tt := range tests {
		if lines := validationLines(t, tt.args...); !slices.Contains(lines, tt.want) {
			t.Errorf("%v: lines %q, want %q", tt.args, lines, tt.want)
		}
	}
	if lines := validationLines(t, "--public-dataset", "ShareGPT", "--hf-subset", "x"); len(lines) != 0 {
		t.Errorf("a valid public dataset run: %q", lines)
	}
}

func TestPublicDatasetSettingsAndInputConfig(t *testing.T) {
	tests := []struct {
		args     []string
		settings string
		dataset  string
	}{
		// The default request count (10 in concurrency mode) caps streamed datasets.
		{[]string{"--public-dataset", "vision-arena"}, `{"max_conversations":10}`,
			`{"dataset":"vision_arena","name":"main","type":"public"}`},
		{[]string{"--public-dataset", "llava_onevision", "--hf-subset", "ai2d", "--request-count", "7", "--random-seed", "3",
			"--dataset-sampling-strategy", "shuffle", "--osl", "50"}, `{"hf_subset":"ai2d","max_conversations":7}`,
			`{"dataset":"llava_onevision","entries":7,"hf_subset":"ai2d","name":"main","osl":{"mean":50},"random_seed":3,"sampling":"shuffle","type":"public"}`},
		// A duration run has no count: the entries the user gave cap it, else nothing.
		{[]string{"--public-dataset", "aimo", "--benchmark-duration", "5", "--num-dataset-entries", "4"}, `{"max_conversations":4}`,
			`{"dataset":"aimo","entries":4,"name":"main","type":"public"}`},
		{[]string{"--public-dataset", "aimo", "--benchmark-duration", "5"}, `{}`, `{"dataset":"aimo","name":"main","type":"public"}`},
	}
	for _, tt := range tests {
		cfg, _ := load(t, nil, append([]string{"-m", "m"}, tt.args...)...)
		if err := cfg.Validate(testChoices); err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		if got, _ := json.Marshal(cfg.PublicDatasetSettings()); string(got) != tt.settings {
			t.Errorf("%v: settings %s, want %s", tt.args, got, tt.settings)
		}
		ds := cfg.InputConfig()["datasets"].([]any)[0]
		if got, _ := json.Marshal(ds); string(got) != tt.dataset {
			t.Errorf("%v: datasets[0] %s, want %s", tt.args, got, tt.dataset)
		}
	}
	cfg, _ := load(t, nil, "-m", "m")
	if cfg.PublicDatasetSettings() != nil {
		t.Error("settings without --public-dataset")
	}
}
