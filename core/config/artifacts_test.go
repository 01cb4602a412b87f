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

func TestArtifactStimulus(t *testing.T) {
	trace := mooncake(t, true)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--concurrency", "8"}, "concurrency8"},
		{[]string{}, "concurrency1"},
		{[]string{"--request-rate", "10"}, "request_rate10.0"},
		{[]string{"--request-rate", "2.5", "--concurrency", "4"}, "concurrency4-request_rate2.5"},
		{[]string{"--request-rate", "0.00001"}, "request_rate1e-05"},
		{[]string{"--fixed-schedule", "--input-file", trace}, "fixed_schedule"},
		{[]string{"--custom-dataset-type", "mooncake_trace", "--input-file", trace}, "fixed_schedule"},
		{[]string{"--user-centric-rate", "12", "--num-users", "4", "--session-turns-mean", "2"}, "user_centric-users4-qps12.0"},
		{[]string{"--user-centric-rate", "0.5"}, "user_centric-qps0.5"},
		// AIPerf names no stimulus when only the prefill stage is capped.
		{[]string{"--streaming", "--prefill-concurrency", "2"}, ""},
	}
	for _, tt := range tests {
		cfg, _ := load(t, nil, append([]string{"-m", "org/m"}, tt.args...)...)
		if got := cfg.Stimulus(); got != tt.want {
			t.Errorf("%q: Stimulus = %q, want %q", tt.args, got, tt.want)
		}
		want := filepath.FromSlash("artifacts/org_m-openai-chat-" + tt.want)
		if got := cfg.ArtifactDirectory("openai"); got != want {
			t.Errorf("%q: ArtifactDirectory = %q, want %q", tt.args, got, want)
		}
	}
}

// pyFloat matches Python's str(float) for the values rates take.
func TestPyFloat(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{10, "10.0"}, {0.5, "0.5"}, {2.25, "2.25"}, {100000, "100000.0"}, {0.1, "0.1"},
		{0.0001, "0.0001"}, {0.00001, "1e-05"}, {1.5e-7, "1.5e-07"}, {1e15, "1000000000000000.0"},
		{1e16, "1e+16"}, {1.25e17, "1.25e+17"}, {0, "0.0"}, {1.0 / 3, "0.3333333333333333"},
	}
	for _, tt := range tests {
		if got := pyFloat(tt.in); got != tt.want {
			t.Errorf("pyFloat(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
