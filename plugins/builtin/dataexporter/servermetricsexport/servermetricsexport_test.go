package servermetricsexport

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func results(formats ...string) *sdk.ServerMetricsResults {
	sum, avg := 7.3, 0.9125
	return &sdk.ServerMetricsResults{
		EndpointsConfigured: []string{"http://h:8000/metrics"}, EndpointsSuccessful: []string{"http://h:8000/metrics"},
		StartNs: 1e18, EndNs: 1e18 + 2e9, Formats: formats,
		Endpoints: []sdk.ServerMetricsEndpoint{{URL: "http://h:8000/metrics", Metrics: []sdk.ServerMetric{
			{Name: "vllm:request_success", Type: sdk.PromCounter, Unit: "requests", Description: "Done.",
				Series: []sdk.ServerMetricSeries{{Labels: map[string]string{"model_name": "m"}, Counter: &sdk.CounterStats{Total: 12, Rate: 6}}}},
			{Name: "vllm:e2e_request_latency_seconds", Type: sdk.PromHistogram, Unit: "seconds", Description: "E2E, x",
				Series: []sdk.ServerMetricSeries{{Histogram: &sdk.HistogramStats{Count: 8, Sum: &sum, Avg: &avg},
					Buckets: []sdk.HistogramBucket{{Le: "0.1", Count: 1}, {Le: "+Inf", Count: 8}}}}},
		}}},
	}
}

func TestExportWritesChosenFormats(t *testing.T) {
	for _, tc := range []struct {
		formats []string
		prefix  string
		want    []string
	}{
		{[]string{"json", "csv"}, "", []string{"server_metrics_export.json", "server_metrics_export.csv"}},
		{[]string{"jsonl"}, "", []string{"server_metrics_export.jsonl"}},
		{[]string{"json", "csv", "jsonl"}, "foo", []string{"foo_server_metrics.json", "foo_server_metrics.csv", "foo_server_metrics.jsonl"}},
	} {
		dir := t.TempDir()
		ec := &sdk.ExportContext{ArtifactDir: dir, ServerMetrics: results(tc.formats...), BenchmarkID: "abc", AIPerfVersion: "0.13.0"}
		ec.Files.SummaryJSON = "profile_export_aiperf.json"
		if tc.prefix != "" {
			ec.Files.SummaryJSON = tc.prefix + ".json"
		}
		files, err := New().Export(context.Background(), ec)
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != len(tc.want) {
			t.Fatalf("%v: wrote %v, want %v", tc.formats, files, tc.want)
		}
		for i, f := range files {
			if filepath.Base(f.Path) != tc.want[i] {
				t.Errorf("file %d = %s, want %s", i, f.Path, tc.want[i])
			}
			if _, err := os.Stat(f.Path); err != nil {
				t.Error(err)
			}
		}
	}
}

func TestNothingWithoutServerMetrics(t *testing.T) {
	dir := t.TempDir()
	files, err := New().Export(context.Background(), &sdk.ExportContext{ArtifactDir: dir})
	if err != nil || len(files) != 0 {
		t.Fatalf("files %v err %v", files, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("wrote %v", entries)
	}
}

// The CSV quotes a description with a comma, uses CRLF rows and writes
// counters' timeslice rate columns empty, as AIPerf does.
func TestRenderCSV(t *testing.T) {
	out := string(RenderCSV(&sdk.ExportContext{ServerMetrics: results("csv"), BenchmarkID: "abc", AIPerfVersion: "0.13.0"}))
	for _, want := range []string{
		"# benchmark_id: abc\n",
		"Endpoint,Type,Metric,Unit,total,rate,rate_avg,rate_min,rate_max,rate_std,model_name,Description\r\n",
		"h:8000,counter,vllm:request_success,requests,12.0000,6.0000,,,,,m,Done.\r\n",
		"h:8000,histogram,vllm:e2e_request_latency_seconds,seconds,8,,7.3000,,0.9125,,,,,,,,,,\"E2E, x\",0.1=1;+Inf=8\r\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("CSV lacks %q:\n%s", want, out)
		}
	}
}

// ExportPhase writes the phase's window in AIPerf's per-phase shape and
// indexes it as server_metrics_json; a phase with no fetch gets no file.
func TestExportPhase(t *testing.T) {
	sm := results("json")
	sm.Endpoints[0].ProfilingInfo = sdk.ServerMetricsEndpointInfo{TotalFetches: 3, FirstFetchNs: 1e18 + 1, LastFetchNs: 1e18 + 3e9}
	prof := sdk.PhaseInfo{Name: sdk.PhaseProfiling, Kind: sdk.PhaseProfiling, Index: 1, ProfilingIndex: 0, StartNs: 1e18, EndNs: 1e18 + 2e9}
	warm := sdk.PhaseInfo{Name: sdk.PhaseWarmup, Kind: sdk.PhaseWarmup, Index: 0, ProfilingIndex: -1, StartNs: 1, EndNs: 2}

	dir := t.TempDir()
	files, err := New().ExportPhase(context.Background(), &sdk.ExportContext{ArtifactDir: dir, ServerMetrics: sm, BenchmarkID: "abc", Phase: &prof})
	if err != nil || len(files) != 1 || files[0].Key != "server_metrics_json" {
		t.Fatalf("files %v, err %v", files, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "server_metrics.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"{\n  \"data\": {\n    \"benchmark_id\": \"abc\",\n    \"end_ns\": 1000000003000000000,\n    \"endpoint_summaries\": {\n      \"h:8000\": {",
		`"phase_index": 1,`, `"profiling_index": 0,`, `"start_ns": 1000000000000000001`,
		`"phase": {
    "end_ns": 1000000002000000000,`, `"schema_version": 1,`, `"warnings": []`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("server_metrics.json lacks %q:\n%s", want, b)
		}
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"buckets":{"+Inf":8,"0.1":1}`, `"stats":{"rate":6.0,"total":12.0}`,
		`"vllm:request_success":{"description":"Done.","series":[{"labels":{"model_name":"m"},"stats"`} {
		if !strings.Contains(compact.String(), want) {
			t.Errorf("server_metrics.json lacks %s:\n%s", want, compact.String())
		}
	}
	if strings.Contains(string(b), `"unit"`) || strings.Count(string(b), `"endpoint_url"`) != 1 {
		t.Errorf("per-phase series carry unit or endpoint_url:\n%s", b)
	}

	wdir := t.TempDir()
	files, err = New().ExportPhase(context.Background(), &sdk.ExportContext{ArtifactDir: wdir, ServerMetrics: sm, Phase: &warm})
	if err != nil || len(files) != 0 {
		t.Errorf("warmup without fetches: files %v, err %v", files, err)
	}
	if _, err := os.Stat(filepath.Join(wdir, "server_metrics.json")); !os.IsNotExist(err) {
		t.Errorf("warmup file written: %v", err)
	}
}
