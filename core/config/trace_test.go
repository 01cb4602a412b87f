package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInspectTrace(t *testing.T) {
	long := `{"timestamp": 5, "hash_ids": [` + strings.Repeat("1,", 100000) + `1]}` // longer than the read buffer
	tests := []struct {
		name    string
		content string
		want    traceInfo
	}{
		{"timestamps", "{\"timestamp\": 0}\n{\"timestamp\": 10}\n", traceInfo{timestamps: true, entries: 2}},
		{"no trailing newline", "{\"timestamp\": 0}\n{\"timestamp\": 10}", traceInfo{timestamps: true, entries: 2}},
		{"blank lines skipped", "\n  \n{\"timestamp\": 0}\n\n{\"x\": 1}\n   \n", traceInfo{timestamps: true, entries: 2}},
		{"null timestamp", "{\"timestamp\": null}\n{\"timestamp\": 3}\n", traceInfo{timestamps: false, entries: 2}},
		{"first record decides", "{\"input_length\": 3}\n{\"timestamp\": 3}\n", traceInfo{timestamps: false, entries: 2}},
		{"bad JSON lines are skipped for detection", "not json\n{\"timestamp\": 1}\n", traceInfo{timestamps: true, entries: 2}},
		{"long line", long + "\n" + long, traceInfo{timestamps: true, entries: 2}},
		{"empty", "", traceInfo{}},
	}
	for _, tt := range tests {
		p := writeFile(t, "t.jsonl", tt.content)
		if got := inspectTrace(p, true); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestInspectTraceDirectoryAndMissing(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		filepath.Join(dir, "a.jsonl"): "{\"timestamp\": 1}\n{\"timestamp\": 2}\n",
		filepath.Join(sub, "b.jsonl"): "{\"text\": \"x\"}\n",
		filepath.Join(dir, "c.txt"):   "ignored\nignored\n",
	} {
		if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Like AIPerf: a directory counts every *.jsonl line but never enables
	// fixed schedule by itself.
	if got, want := inspectTrace(dir, true), (traceInfo{entries: 3}); got != want {
		t.Errorf("directory: %+v, want %+v", got, want)
	}
	if got := inspectTrace(filepath.Join(dir, "missing.jsonl"), true); got != (traceInfo{}) {
		t.Errorf("missing file: %+v, want zero", got)
	}
}

// Without count only the first record is read.
func TestInspectTraceDetectOnly(t *testing.T) {
	p := writeFile(t, "t.jsonl", "\n{\"timestamp\": 0}\n{\"timestamp\": 1}\n{\"timestamp\": 2}\n")
	if got, want := inspectTrace(p, false), (traceInfo{timestamps: true, entries: 1}); got != want {
		t.Errorf("detect only: %+v, want %+v", got, want)
	}
	if got := inspectTrace(t.TempDir(), false); got != (traceInfo{}) {
		t.Errorf("directory, detect only: %+v, want zero", got)
	}
}

// GenAI-Perf's --input-file payload:<file> is a mooncake trace on a fixed
// schedule.
func TestPayloadInputFile(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "payload.jsonl")
	if err := os.WriteFile(trace, []byte(`{"timestamp": 0, "input_length": 10, "output_length": 2}`+"\n"+
		`{"timestamp": 500, "text_input": "hello"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, _ := load(t, nil, "-m", "m", "--input-file", "payload:"+trace)
	if c.InputFile != trace || c.CustomDatasetType != DatasetMooncakeTrace || !c.FixedSchedule() || c.Mode() != ModeFixedSchedule {
		t.Errorf("payload: gave file %q type %q fixed %v mode %v; want the file, mooncake_trace, fixed schedule",
			c.InputFile, c.CustomDatasetType, c.FixedSchedule(), c.Mode())
	}
	// --no-fixed-schedule still wins, as with a named mooncake trace.
	c, _ = load(t, nil, "-m", "m", "--input-file", "payload:"+trace, "--no-fixed-schedule")
	if c.FixedSchedule() {
		t.Error("--no-fixed-schedule ignored for a payload: file")
	}
	_, warnings := load(t, nil, "-m", "m", "--input-file", "payload:"+trace, "--custom-dataset-type", "single_turn")
	if !strings.Contains(strings.Join(warnings, "\n"), "payload:"+trace+" is a mooncake trace") {
		t.Errorf("warnings %q, want one about the payload: file's type", warnings)
	}
}
