package sdktest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func f64(v float64) *float64 { return &v }
func i64(v int64) *int64     { return &v }

// sampleExportContext is a small finished streaming run: one record metric
// with every statistic, an aggregate metric with only an average, one
// error kind, two inputs.
func sampleExportContext(dir string) *sdk.ExportContext {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	latency := sdk.MetricResult{Tag: "request_latency", Header: "Request Latency", Unit: "ms", DisplayOrder: 300,
		Avg: f64(250.5), Min: f64(180), Max: f64(410.25), P1: f64(181), P5: f64(185), P10: f64(190), P25: f64(210),
		P50: f64(245), P75: f64(280), P90: f64(330), P95: f64(370), P99: f64(405), Std: f64(48.2), Count: i64(98), Sum: f64(24549)}
	ttft := sdk.MetricResult{Tag: "time_to_first_token", Header: "Time to First Token", Unit: "ms", DisplayOrder: 100,
		Flags: sdk.FlagStreamingTokensOnly, Avg: f64(42), Min: f64(30), Max: f64(75), P50: f64(40), P90: f64(60), P99: f64(74),
		Std: f64(9.5), Count: i64(98), Sum: f64(4116)}
	osl := sdk.MetricResult{Tag: "output_sequence_length", Header: "Output Sequence Length", Unit: "tokens", DisplayOrder: 600,
		Integer: true, Flags: sdk.FlagProducesTokensOnly, Avg: f64(128), Min: f64(120), Max: f64(128), P50: f64(128), Count: i64(98), Sum: f64(12544)}
	throughput := sdk.MetricResult{Tag: "output_token_throughput", Header: "Output Token Throughput", Unit: "tokens/sec",
		DisplayOrder: 800, Flags: sdk.FlagLargerIsBetter | sdk.FlagProducesTokensOnly, Avg: f64(1234.5)}
	return &sdk.ExportContext{
		ArtifactDir: dir,
		Files: sdk.ArtifactFiles{SummaryJSON: "profile_export_aiperf.json", SummaryCSV: "profile_export_aiperf.csv",
			RecordsJSONL: "profile_export.jsonl", Inputs: "inputs.json", Log: filepath.Join("logs", "aiperf.log")},
		ExportLevel: "records",
		Results: &sdk.Results{
			Metrics: []sdk.MetricResult{ttft, latency, osl, throughput},
			ErrorSummary: []sdk.ErrorCount{{ErrorDetails: sdk.ErrorDetails{Code: 500, Type: "Internal Server Error",
				Message: "upstream failure"}, Count: 2}},
			StartTime: start, EndTime: start.Add(10 * time.Second), BenchmarkDurationS: 10, CompletedRecords: 100,
		},
		Endpoint: sdk.EndpointMetadata{EndpointPath: "/v1/chat/completions", StreamingPath: "/v1/chat/completions",
			ServiceKind: "openai", SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true, MetricsTitle: "LLM Metrics"},
		Streaming:     true,
		AIPerfVersion: "0.0.0-sdktest",
		BenchmarkID:   "0b0f3c5e-7a51-4c55-9d1a-5f0b8e2f6a11",
		CLICommand:    "aiperf profile --model sdktest-model --url http://127.0.0.1:8000 --streaming --request-count 100",
		InputConfig: map[string]any{"endpoint": map[string]any{"model_names": []any{"sdktest-model"}, "streaming": true,
			"url": "http://127.0.0.1:8000", "api_key": "<redacted>"}, "loadgen": map[string]any{"request_count": 100}},
		Inputs: []sdk.InputEntry{
			{SessionID: "session-0", Payloads: [][]byte{[]byte(`{"model":"sdktest-model","messages":[{"role":"user","content":"alpha"}],"stream":true}`)}},
			{SessionID: "session-1", Payloads: [][]byte{[]byte(`{"model":"sdktest-model","messages":[{"role":"user","content":"beta"}],"stream":true}`)}},
		},
	}
}

// DataExporter checks an sdk.DataExporter in process: it exports a
// representative run into a temporary artifact directory, and a run
// without any metric (which may fail, but must not panic).
func DataExporter(t testing.TB, ex sdk.DataExporter) {
	t.Helper()
	if ex == nil {
		t.Fatalf("sdktest: DataExporter: the exporter is nil")
	}
	if cfg, ok := ex.(sdk.Configurable); ok {
		checkConfigurable(t, cfg)
	}
	dir := t.TempDir()
	files, ok, err := export(t, ex, "Export(representative run)", sampleExportContext(dir))
	switch {
	case !ok:
	case err != nil:
		t.Errorf("sdktest: Export(representative run) returned error: %v", err)
	case len(files) == 0:
		// Legitimate for exporters that send results elsewhere.
		t.Logf("sdktest: Export(representative run) reported no files")
	default:
		checkExportedFiles(t, dir, files)
	}

	emptyDir := t.TempDir()
	ec := sampleExportContext(emptyDir)
	ec.Results = &sdk.Results{StartTime: ec.Results.StartTime, EndTime: ec.Results.StartTime}
	ec.Inputs = nil
	// Only a panic or a hang fails here: refusing an empty run is fine.
	export(t, ex, "Export(run without metrics)", ec)
}

func export(t testing.TB, ex sdk.DataExporter, what string, ec *sdk.ExportContext) ([]sdk.ExportedFile, bool, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	return call(t, what, func() ([]sdk.ExportedFile, error) { return ex.Export(ctx, ec) })
}

// checkExportedFiles: every reported file is labelled, exists, is a
// non-empty regular file and lies inside the artifact directory.
func checkExportedFiles(t testing.TB, dir string, files []sdk.ExportedFile) {
	t.Helper()
	for i, f := range files {
		where := fmt.Sprintf("Export: file %d (%q, %q)", i, f.Label, f.Path)
		if f.Label == "" {
			t.Errorf("sdktest: %s has no label (shown in the console footer)", where)
		}
		if f.Path == "" {
			t.Errorf("sdktest: %s has no path", where)
			continue
		}
		abs, err := filepath.Abs(f.Path)
		if err != nil {
			t.Errorf("sdktest: %s: %v", where, err)
			continue
		}
		if rel, err := filepath.Rel(dir, abs); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			t.Errorf("sdktest: %s lies outside the artifact directory %s", where, dir)
		}
		st, err := os.Stat(abs)
		switch {
		case err != nil:
			t.Errorf("sdktest: %s: the reported file does not exist: %v", where, err)
		case !st.Mode().IsRegular():
			t.Errorf("sdktest: %s is not a regular file (mode %v)", where, st.Mode())
		case st.Size() == 0:
			t.Errorf("sdktest: %s is empty", where)
		}
	}
}
