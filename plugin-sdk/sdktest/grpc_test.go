package sdktest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// textgenCase holds sample units of the textgen API (the examples and the
// mock server's /v1/textgen route).
var textgenCase = EndpointCase{SampleUnits: []SampleUnit{
	{Name: "delta", Data: []byte(`{"delta":" alpha"}`), Text: " alpha"},
	{Name: "done with usage", Data: []byte(`{"done":true,"usage":{"input_tokens":7,"output_tokens":2}}`),
		Usage: &sdk.Usage{PromptTokens: intp(7), CompletionTokens: intp(2), TotalTokens: intp(9)}},
	{Name: "whole body", Data: []byte(`{"output":" one two","usage":{"input_tokens":3,"output_tokens":2}}`), Text: " one two",
		Usage: &sdk.Usage{PromptTokens: intp(3), CompletionTokens: intp(2), TotalTokens: intp(5)}},
}}

func TestGRPCPluginGoTextgenExample(t *testing.T) {
	requireBinary(t, textgenBinary, textgenSkip)
	r := runSuite(t, func(tb testing.TB) { GRPCPlugin(tb, textgenBinary, WithEndpointCase(textgenCase)) })
	// The shipped example must pass the whole suite.
	for _, f := range r.all() {
		t.Errorf("unexpected failure: %s", f)
	}
}

func TestGRPCPluginPythonExample(t *testing.T) {
	wrapper, err := filepath.Abs(filepath.Join("..", "..", "examples", "plugins", "python-grpc", "aiperf-textgen-py"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(wrapper); err != nil {
		t.Skipf("python example not available: %v", err)
	}
	python := os.Getenv("AIPERF_PYTHON")
	if python == "" {
		python = "python3"
	}
	if out, err := exec.Command(python, "-c", "import grpc, grpc_health.v1.health, google.protobuf").CombinedOutput(); err != nil {
		t.Skipf("python plugin dependencies missing (%v): %s", err, out)
	}
	r := runSuite(t, func(tb testing.TB) { GRPCPlugin(tb, wrapper, WithEndpointCase(textgenCase)) })
	r.wantClean(t)
}

func TestGRPCPluginAcceptsEveryCategory(t *testing.T) {
	requireBinary(t, fixtureBinary, fixtureSkip)
	sample := writeSample(t)
	r := runSuite(t, func(tb testing.TB) {
		GRPCPlugin(tb, fixtureBinary, WithEnv("SDKTEST_PLUGIN_MODE=all"), WithEndpointCase(fixtureCase), WithDatasetSample(sample))
	})
	r.wantClean(t)
}

// A plugin without settings passes the Configure checks by refusing any.
func TestGRPCPluginWithoutSettings(t *testing.T) {
	requireBinary(t, fixtureBinary, fixtureSkip)
	sample := writeSample(t)
	r := runSuite(t, func(tb testing.TB) {
		GRPCPlugin(tb, fixtureBinary, WithEnv("SDKTEST_PLUGIN_MODE=loader-only"), WithDatasetSample(sample))
	})
	r.wantClean(t)
}

func TestServedCategoriesFollowTheDescriptors(t *testing.T) {
	want := []string{sdk.CategoryEndpoint, sdk.CategoryCustomDataset, sdk.CategoryRecordProcessor, sdk.CategoryDataExporter,
		sdk.CategoryGPUTelemetry, sdk.CategoryServerMetrics, sdk.CategoryPlot}
	if strings.Join(servedCategories, ",") != strings.Join(want, ",") {
		t.Errorf("servedCategories = %v, want %v", servedCategories, want)
	}
}

func TestGRPCPluginReportsEachViolation(t *testing.T) {
	requireBinary(t, fixtureBinary, fixtureSkip)
	tests := []struct {
		mode  string
		opts  []GRPCOption
		fatal bool
		want  []string
		logs  []string // the plugin's own output, shown because it failed
	}{
		{mode: "api-v2-handshake", fatal: true, want: []string{"go-plugin handshake, this host speaks plugin API v1", "incompatible API version with plugin. Plugin version: 2"}},
		{mode: "api-v2-describe", want: []string{"Describe: api_version 2, want 1"}},
		{mode: "endpoint-exits", opts: []GRPCOption{WithEndpointCase(fixtureCase)},
			want: []string{"the plugin process stopped serving during the checks"}, logs: []string{"fixture: exiting on purpose"}},
		{mode: "endpoint-no-service-kind", opts: []GRPCOption{WithEndpointCase(fixtureCase)}, want: []string{"ServiceKind is empty"}},
		{mode: "processor-nan", want: []string{"Process(no responses): metric characters_per_token = NaN is not finite"}},
		{mode: "processor-no-metrics", want: []string{"Describe: the plugin serves record_processor but declares no metrics"}},
		{mode: "processor-no-metrics", want: []string{"Metrics() declares no metrics"}},
		{mode: "processor-undeclared-tag", want: []string{"metric debug_chunks is not declared by Metrics()"}},
		{mode: "processor-accepts-unknown-settings",
			want: []string{`Configure(record_processor, {"sdktest_unknown_setting": true}) was accepted: an unknown setting must be refused`}},
		{mode: "exporter-declares-metrics", want: []string{"Describe: the plugin declares 1 metrics but does not serve record_processor"}},
		{mode: "all", opts: []GRPCOption{WithEndpointCase(fixtureCase)}, want: []string{"pass a sample file with WithDatasetSample"}},
		{mode: "all", opts: []GRPCOption{WithEndpointCase(fixtureCase), WithDatasetSample("/nonexistent/sample.jsonl")},
			fatal: true, want: []string{"DatasetLoader: sample file", "/nonexistent/sample.jsonl"}},
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			opts := append([]GRPCOption{WithEnv("SDKTEST_PLUGIN_MODE=" + tc.mode)}, tc.opts...)
			r := runSuite(t, func(tb testing.TB) { GRPCPlugin(tb, fixtureBinary, opts...) })
			r.wantReport(t, tc.want...)
			for _, f := range tc.logs {
				if !strings.Contains(r.logged(), f) {
					t.Errorf("the plugin's output %q is missing from the log:\n%s", f, r.logged())
				}
			}
			if r.fatal != tc.fatal {
				t.Errorf("fatal = %v, want %v", r.fatal, tc.fatal)
			}
		})
	}
}

func TestGRPCPluginRefusesNonExecutable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plugin.txt")
	if err := os.WriteFile(path, []byte("not a program"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runSuite(t, func(tb testing.TB) { GRPCPlugin(tb, path) })
	r.wantReport(t, "is not an executable file")
	if !r.fatal {
		t.Error("a non-executable plugin should stop the checks")
	}
}
