package servermetricsexport

import (
	"context"
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
