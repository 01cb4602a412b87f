package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/core/config/genaiperf"
	"github.com/aiperf-go/aiperf/mockserver"
)

// printArgs runs `aiperf config ... --print-args` and returns the
// translated command line.
func printArgs(t *testing.T, args ...string) (string, int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append(append([]string{"config"}, args...), "--print-args"), &out, &errb)
	return strings.TrimSpace(out.String()), code, errb.String()
}

func TestGenAIPerfConfigTranslates(t *testing.T) {
	td := filepath.Join("testdata", "genaiperf")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"README template section, type overridden", []string{"-f", filepath.Join(td, "readme_template_section.yaml"), "--override-config", "--endpoint-type", "chat", "-m", "gpt2"},
			"aiperf profile --model-selection-strategy round_robin --server-metrics http://localhost:8002/metrics --url localhost:8001 --endpoint-type chat -m gpt2"},
		{"README verbose template section, type overridden", []string{"-f", filepath.Join(td, "readme_template_verbose.yaml"), "--override-config", "--endpoint-type", "completions", "-m", "gpt2"},
			"aiperf profile --model-selection-strategy round_robin --server-metrics http://localhost:9400/metrics --url localhost:8001 --endpoint-type completions -m gpt2"},
		{"full OpenAI config", []string{"-f", filepath.Join(td, "openai_full.yaml")},
			"aiperf profile --model-names gpt2 --model-selection-strategy round_robin --custom-endpoint v1/chat/completions --streaming --url localhost:8000" +
				" --concurrency 4 --warmup-request-count 2 --extra-inputs ignore_eos:true --goodput request_latency:300 --header X-Test:1" +
				" --num-dataset-entries 10 --random-seed 7 --prompt-input-tokens-mean 32 --prompt-input-tokens-stddev 4 --artifact-dir ./artifacts" +
				" --profile-export-file run1.json --tokenizer builtin --tokenizer-revision main --endpoint-type chat" +
				" --prompt-output-tokens-mean 16 --prompt-output-tokens-stddev 2 --request-count 20"},
		{"README override example (--warmup-request-count 100 --concurrency 32) replaces the file's values", []string{"-f", filepath.Join(td, "openai_full.yaml"), "--override-config", "--warmup-request-count", "100", "--concurrency", "32"},
			"aiperf profile --model-names gpt2 --model-selection-strategy round_robin --custom-endpoint v1/chat/completions --streaming --url localhost:8000" +
				" --extra-inputs ignore_eos:true --goodput request_latency:300 --header X-Test:1" +
				" --num-dataset-entries 10 --random-seed 7 --prompt-input-tokens-mean 32 --prompt-input-tokens-stddev 4 --artifact-dir ./artifacts" +
				" --profile-export-file run1.json --tokenizer builtin --tokenizer-revision main --endpoint-type chat" +
				" --prompt-output-tokens-mean 16 --prompt-output-tokens-stddev 2 --request-count 20 --warmup-request-count 100 --concurrency 32"},
		{"an alias on the command line overrides the file's key (--osl is prompt-output-tokens-mean)", []string{"-f", filepath.Join(td, "openai_full.yaml"), "--override-config", "--osl", "8", "-u", "http://h:1"},
			"aiperf profile --model-names gpt2 --model-selection-strategy round_robin --custom-endpoint v1/chat/completions --streaming" +
				" --concurrency 4 --warmup-request-count 2 --extra-inputs ignore_eos:true --goodput request_latency:300 --header X-Test:1" +
				" --num-dataset-entries 10 --random-seed 7 --prompt-input-tokens-mean 32 --prompt-input-tokens-stddev 4 --artifact-dir ./artifacts" +
				" --profile-export-file run1.json --tokenizer builtin --tokenizer-revision main --endpoint-type chat" +
				" --prompt-output-tokens-stddev 2 --request-count 20 --osl 8 -u http://h:1"},
		{"analyze section", []string{"-f", filepath.Join(td, "analyze_concurrency.yaml")},
			"aiperf analyze --model-names gpt2 --url localhost:8000 --sweep-type concurrency --sweep-min 1 --sweep-max 4 --sweep-step 1 --endpoint-type chat --checkpoint-dir ./checkpoint"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, code, stderr := printArgs(t, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if got != tc.want {
				t.Errorf("translated\n got: %s\nwant: %s", got, tc.want)
			}
		})
	}
}

// Every flag the translator emits must be one the command accepts.
func TestGenAIPerfConfigFlagsExist(t *testing.T) {
	fs := newAnalyzeCmd(nil).Flags()
	for _, f := range []string{"openai_full.yaml", "analyze_concurrency.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", "genaiperf", f))
		if err != nil {
			t.Fatal(err)
		}
		res, err := genaiperf.Translate(f, data, genaiperf.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range res.Args {
			if fs.Lookup(strings.TrimPrefix(a.Flag, "--")) == nil {
				t.Errorf("%s: %s (from %s line %d) is not an aiperf flag", f, a.Flag, a.Path, a.Line)
			}
		}
	}
}

func TestGenAIPerfConfigErrors(t *testing.T) {
	td := filepath.Join("testdata", "genaiperf")
	write := func(t *testing.T, body string) string {
		p := filepath.Join(t.TempDir(), "c.yaml")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name string
		file string // body, or a testdata path when it ends in .yaml
		args []string
		want string
	}{
		{"README section as is: kserve is Triton gRPC", filepath.Join(td, "readme_template_section.yaml"), nil,
			"readme_template_section.yaml:8: endpoint.type: kserve is not supported"},
		{"unknown key", "model_names: m\nendpoint:\n  type: chat\n  service_kind: openai\n  stremaing: true\n", nil,
			":5: endpoint.stremaing: unknown key: not a GenAI-Perf endpoint key"},
		{"unknown top-level key", "model_names: m\nendpoints: {}\n", nil, ":2: endpoints: unknown key: not a top-level GenAI-Perf key"},
		{"wrong type", "model_names: m\nendpoint:\n  type: chat\n  service_kind: openai\nperf_analyzer:\n  stimulus:\n    concurrency: four\n", nil,
			`:7: perf_analyzer.stimulus.concurrency: must be an integer, got "four" (str)`},
		{"synthetic mean float", "input:\n  synthetic_tokens:\n    mean: 5.5\n", nil, `:3: input.synthetic_tokens.mean: must be an integer`},
		{"stddev without mean", "model_names: m\nendpoint: {type: chat, service_kind: openai}\ninput:\n  output_tokens:\n    stddev: 3\n", nil,
			":5: input.output_tokens.stddev: needs input.output_tokens.mean"},
		{"session stimulus", "endpoint: {type: chat, service_kind: openai}\nperf_analyzer:\n  stimulus: {session_concurrency: 2}\n", nil,
			":3: perf_analyzer.stimulus.session_concurrency: is not supported"},
		{"section not a mapping", "input: 3\n", nil, ":1: input: must be a mapping"},
		{"flags without --override-config", filepath.Join(td, "openai_full.yaml"), []string{"--concurrency", "3"},
			"the --override-config flag must be set"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.file
			if !strings.HasSuffix(p, ".yaml") {
				p = write(t, tc.file)
			}
			_, code, stderr := printArgs(t, append([]string{"-f", p}, tc.args...)...)
			if code == 0 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want an error containing %q", code, stderr, tc.want)
			}
		})
	}
}

// create-template's file loads unchanged, and runs against the mock once
// the model and URL are given with --override-config.
func TestGenAIPerfCreateTemplateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "my.yaml")
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"create-template", "-f", name}, &out, &errb); code != 0 {
		t.Fatalf("create-template exit %d: %s", code, errb.String())
	}
	if b, err := os.ReadFile(name); err != nil || string(b) != genaiperf.Template {
		t.Fatalf("template file: %v (%d bytes)", err, len(b))
	}
	got, code, stderr := printArgs(t, "-f", name)
	want := "aiperf profile --model-selection-strategy round_robin --url localhost:8000 --concurrency 1" +
		" --prompt-batch-size 1 --num-dataset-entries 100 --random-seed 0 --artifact-dir ./artifacts --tokenizer-revision main --endpoint-type chat"
	if code != 0 || got != want {
		t.Fatalf("exit %d %s\n got: %s\nwant: %s", code, stderr, got, want)
	}

	url := startMock(t, mockserver.Config{})
	art := filepath.Join(dir, "art")
	out.Reset()
	errb.Reset()
	code = run(context.Background(), []string{"config", "-f", name, "--override-config", "-m", "gpt2", "-u", url,
		"--request-count", "6", "--artifact-dir", art, "--tokenizer", "builtin", "--ui", "none"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var summary map[string]json.RawMessage
	b, err := os.ReadFile(filepath.Join(art, "profile_export_aiperf.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &summary); err != nil {
		t.Fatal(err)
	}
	var rc struct{ Avg float64 }
	if err := json.Unmarshal(summary["request_count"], &rc); err != nil || rc.Avg != 6 {
		t.Errorf("request_count %s (%v), want 6", summary["request_count"], err)
	}
}

// A config file with the mock's URL runs end to end with its values: the
// stimulus, request count and ISL/OSL reach the run.
func TestGenAIPerfConfigRunsAgainstMock(t *testing.T) {
	url := startMock(t, mockserver.Config{})
	dir := t.TempDir()
	art := filepath.Join(dir, "art")
	body := "# GenAI-Perf config pointing at the mock\n" +
		"model_names: gpt2\n" +
		"endpoint:\n  type: chat\n  service_kind: openai\n  streaming: true\n  url: " + url + "\n" +
		"perf_analyzer:\n  stimulus:\n    concurrency: 2\n  measurement:\n    mode: request_count\n    num: 8\n" +
		"input:\n  synthetic_tokens:\n    mean: 40\n    stddev: 0\n  output_tokens:\n    mean: 12\n  random_seed: 3\n" +
		"output:\n  artifact_directory: " + art + "\n" +
		"tokenizer:\n  name: builtin\n"
	p := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"config", "-f", p, "--override-config", "--ui", "none"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	b, err := os.ReadFile(filepath.Join(art, "profile_export_aiperf.json"))
	if err != nil {
		t.Fatal(err)
	}
	var summary map[string]json.RawMessage
	if err := json.Unmarshal(b, &summary); err != nil {
		t.Fatal(err)
	}
	avg := func(tag string) float64 {
		var s struct{ Avg float64 }
		if err := json.Unmarshal(summary[tag], &s); err != nil {
			t.Fatalf("%s: %v (%s)", tag, err, summary[tag])
		}
		return s.Avg
	}
	if got := avg("request_count"); got != 8 {
		t.Errorf("request_count %v, want 8", got)
	}
	if got := avg("input_sequence_length"); got != 40 {
		t.Errorf("input_sequence_length avg %v, want 40", got)
	}
	if _, ok := summary["time_to_first_token"]; !ok {
		t.Error("no time_to_first_token: streaming: true did not reach the run")
	}
}

// The README's template section runs against the mock once its Triton
// gRPC type and URLs are replaced with --override-config; an analyze:
// section runs one profile per swept value.
func TestGenAIPerfConfigREADMEAndAnalyzeRun(t *testing.T) {
	url := startMock(t, mockserver.Config{})
	dir := t.TempDir()
	art := filepath.Join(dir, "readme")
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"config", "-f", filepath.Join("testdata", "genaiperf", "readme_template_section.yaml"),
		"--override-config", "--endpoint-type", "chat", "-m", "gpt2", "-u", url, "--server-metrics", url + "/metrics",
		"--request-count", "4", "--artifact-dir", art, "--tokenizer", "builtin", "--ui", "none"}, &out, &errb)
	if code != 0 {
		t.Fatalf("README section: exit %d: %s", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(art, "profile_export_aiperf.json")); err != nil {
		t.Errorf("README section run wrote no summary: %v", err)
	}

	body := "model_names: gpt2\nendpoint:\n  type: chat\n  service_kind: openai\n  url: " + url + "\n" +
		"analyze:\n  concurrency:\n    start: 1\n    stop: 2\n    step: 1\n" +
		"output:\n  artifact_directory: " + filepath.Join(dir, "sweep") + "\n  checkpoint_directory: " + filepath.Join(dir, "ckpt") + "\n"
	p := filepath.Join(dir, "a.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	code = run(context.Background(), []string{"config", "-f", p, "--override-config", "--request-count", "4", "--tokenizer", "builtin", "--ui", "none"}, &out, &errb)
	if code != 0 {
		t.Fatalf("analyze: exit %d: %s", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "sweep", analyzeCSVFile)); err != nil {
		t.Errorf("analyze wrote no %s: %v", analyzeCSVFile, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ckpt", analyzeCheckpointFile)); err != nil {
		t.Errorf("checkpoint_directory not used: %v", err)
	}
}
