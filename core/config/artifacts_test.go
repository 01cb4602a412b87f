package config

import (
	"path/filepath"
	"reflect"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func TestArtifactDirectory(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-m", "meta-llama/Llama-3.1-8B-Instruct", "--concurrency", "64", "--streaming"},
			"artifacts/meta-llama_Llama-3.1-8B-Instruct-openai-chat-concurrency64"},
		{[]string{"-m", "gpt2"}, "artifacts/gpt2-openai-chat-concurrency1"},
		{[]string{"-m", "org/a,org/b", "--endpoint-type", "completions", "--concurrency", "2"},
			"artifacts/org_a_multi-openai-completions-concurrency2"},
		{[]string{"-m", "a/b/c"}, "artifacts/a_b_c-openai-chat-concurrency1"},
		{[]string{"-m", "org/a", "--artifact-dir", "out"}, "out"},
		{[]string{"-m", "org/a", "--output-artifact-dir", "artifacts"}, "artifacts"}, // user-set, even if equal to default
	}
	for _, tt := range tests {
		cfg, _ := load(t, nil, tt.args...)
		if got := cfg.ArtifactDirectory("openai"); got != filepath.FromSlash(tt.want) {
			t.Errorf("%q: ArtifactDirectory = %q, want %q", tt.args, got, tt.want)
		}
	}
}

func TestArtifactDirectoryFromFileCountsAsUserSet(t *testing.T) {
	file := writeFile(t, "c.yaml", "model_names: m\nartifact_dir: fromfile\n")
	cfg, _ := load(t, nil, "--config", file)
	if got := cfg.ArtifactDirectory("openai"); got != "fromfile" {
		t.Errorf("ArtifactDirectory = %q, want fromfile", got)
	}
}

func TestExportFiles(t *testing.T) {
	log := filepath.FromSlash("logs/aiperf.log")
	tests := []struct {
		prefix string
		want   sdk.ArtifactFiles
	}{
		{"", sdk.ArtifactFiles{SummaryJSON: "profile_export_aiperf.json", SummaryCSV: "profile_export_aiperf.csv", RecordsJSONL: "profile_export.jsonl", Inputs: "inputs.json", Log: log}},
		{"foo", sdk.ArtifactFiles{SummaryJSON: "foo.json", SummaryCSV: "foo.csv", RecordsJSONL: "foo.jsonl", Inputs: "inputs.json", Log: log}},
		{"foo.jsonl", sdk.ArtifactFiles{SummaryJSON: "foo.json", SummaryCSV: "foo.csv", RecordsJSONL: "foo.jsonl", Inputs: "inputs.json", Log: log}},
		{"foo.json", sdk.ArtifactFiles{SummaryJSON: "foo.json", SummaryCSV: "foo.csv", RecordsJSONL: "foo.jsonl", Inputs: "inputs.json", Log: log}},
		{"foo_raw.jsonl", sdk.ArtifactFiles{SummaryJSON: "foo.json", SummaryCSV: "foo.csv", RecordsJSONL: "foo.jsonl", Inputs: "inputs.json", Log: log}},
		{"foo_console.txt", sdk.ArtifactFiles{SummaryJSON: "foo.json", SummaryCSV: "foo.csv", RecordsJSONL: "foo.jsonl", Inputs: "inputs.json", Log: log}},
		{"run1_timeslices.csv", sdk.ArtifactFiles{SummaryJSON: "run1.json", SummaryCSV: "run1.csv", RecordsJSONL: "run1.jsonl", Inputs: "inputs.json", Log: log}},
		{"/abs/dir/bar.csv", sdk.ArtifactFiles{SummaryJSON: "bar.json", SummaryCSV: "bar.csv", RecordsJSONL: "bar.jsonl", Inputs: "inputs.json", Log: log}},
	}
	for _, tt := range tests {
		c := &RunConfig{ProfileExportPrefix: tt.prefix}
		if got := c.ExportFiles(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("prefix %q: ExportFiles = %+v, want %+v", tt.prefix, got, tt.want)
		}
	}
}
