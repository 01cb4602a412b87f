package main

import (
	"encoding/json"
	"github.com/aiperf-go/aiperf/internal/jsontest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const analyzeTraceFixture = "../../core/traceanalysis/testdata/"

func runAnalyzeTraceArgs(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return runCommand(t, "analyze-trace", args...)
}

// TestAnalyzeTraceMatchesAIPerf runs the command on the fixture AIPerf 0.13
// analyzed (see core/traceanalysis/testdata/README.md) and compares the
// printed report byte for byte (bar the saved-file path) and the JSON report
// numerically.
func TestAnalyzeTraceMatchesAIPerf(t *testing.T) {
	for _, tc := range []struct {
		suffix string
		args   []string
	}{
		{"bs512", nil},
		{"bs64", []string{"--block-size", "64"}},
		{"bs64", []string{"64"}}, // cyclopts-style positional BLOCK-SIZE
	} {
		t.Run(strings.Join(append([]string{tc.suffix}, tc.args...), "_"), func(t *testing.T) {
			jsonPath := filepath.Join(t.TempDir(), "sub", "report.json")
			args := append([]string{analyzeTraceFixture + "mooncake_small.jsonl"}, tc.args...)
			args = append(args, "--output-file", jsonPath)
			out, err := runAnalyzeTraceArgs(t, args...)
			if err != nil {
				t.Fatal(err)
			}
			wantOut, err := os.ReadFile(analyzeTraceFixture + "aiperf_stdout_" + tc.suffix + ".txt")
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Replace(string(wantOut), "aiperf_analysis_"+tc.suffix+".json", jsonPath, 1)
			if out != want {
				t.Errorf("stdout differs from AIPerf's:\n got:\n%s\nwant:\n%s", out, want)
			}
			got := readJSONMap(t, jsonPath)
			ref := readJSONMap(t, analyzeTraceFixture+"aiperf_analysis_"+tc.suffix+".json")
			jsontest.EqualWithin(t, "", got, ref, 1e-12)
		})
	}
}

func readJSONMap(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

func TestAnalyzeTraceErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"input_length\": 5}\n{\"input_length\": 5,\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.jsonl")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{missing}, "input file not found: " + missing},
		{[]string{bad}, bad + ":2: malformed trace line"},
		{[]string{"--input-file", bad, "--block-size", "0"}, "--block-size must be at least 1"},
		{[]string{bad, "x"}, `invalid block size "x"`},
		{nil, "missing input file"},
	} {
		_, err := runAnalyzeTraceArgs(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want it to contain %q", tc.args, err, tc.want)
		}
	}
}
