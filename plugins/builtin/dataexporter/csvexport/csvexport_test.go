package csvexport

import (
	"bytes"
	"context"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func fp(v float64) *float64 { return &v }
func ip(v int64) *int64     { return &v }

func sampleMetrics() []sdk.MetricResult {
	return []sdk.MetricResult{
		{Tag: "time_to_first_token", Header: "Time to First Token", Unit: "ms",
			Avg: fp(1588.8), Min: fp(382.24), Max: fp(4121.09), P1: fp(403.48), P5: fp(547.97), P10: fp(641.77),
			P25: fp(659.03), P50: fp(787.54), P75: fp(2439), P90: fp(3695.1), P95: fp(4051.43), P99: fp(4119.33),
			Std: fp(1189.99), Count: ip(200), Sum: fp(317760)},
		{Tag: "request_latency", Header: "Request Latency", Unit: "ms",
			Avg: fp(6550.364), Min: fp(4996.25), Max: fp(9383.37), P1: fp(5523.64), P5: fp(5641.18), P10: fp(5649.25),
			P25: fp(5678.54), P50: fp(5799.9), P75: fp(7314.96), P90: fp(8594.21), P95: fp(8980.84), P99: fp(9381.63),
			Std: fp(1171.14)},
		{Tag: "input_sequence_length", Header: `Input, Tokens "Total"`, Unit: "ms", Integer: true,
			Avg: fp(550.5), Min: fp(550), Max: fp(551), P50: fp(550), P99: fp(math.Inf(1)), Std: fp(0.5)},
		{Tag: "request_throughput", Header: "Request Throughput", Unit: "requests/sec", Avg: fp(13.157)},
		{Tag: "request_count", Header: "Request Count", Unit: "requests", Avg: fp(200)},
		{Tag: "benchmark_duration", Header: "Benchmark Duration", Unit: "sec", Avg: fp(15.2)},
		{Tag: "output_token_throughput", Header: "Output Token Throughput", Unit: "tokens/sec", Avg: fp(1274.625)},
		{Tag: "goodput", Header: "Goodput", Unit: "requests/sec"},
		{Tag: "min_request_timestamp", Header: "Min Request", Unit: "ns", Flags: sdk.FlagInternal, Avg: fp(1)},
		{Tag: "prefill_throughput", Header: "Prefill", Unit: "tokens/sec", Flags: sdk.FlagExperimental, Avg: fp(1), P50: fp(1)},
	}
}

const gpuSection = "\r\n\r\nEndpoint,GPU_Index,GPU_Name,GPU_UUID,Platform,Metric,avg,min,max,sum,p1,p5,p10,p25,p50,p75,p90,p95,p99,std\r\n"

const wantCSV = "Metric,avg,min,max,sum,p1,p5,p10,p25,p50,p75,p90,p95,p99,std\r\n" +
	// Sorted by tag: input_sequence_length < request_latency < time_to_first_token.
	// Integer metrics print every stat as a float, as AIPerf (64.00).
	`"Input, Tokens ""Total"" (ms)",550.50,550.00,551.00,,,,,,550.00,,,,,0.50` + "\r\n" +
	"Request Latency (ms),6550.36,4996.25,9383.37,,5523.64,5641.18,5649.25,5678.54,5799.90,7314.96,8594.21,8980.84,9381.63,1171.14\r\n" +
	"Time to First Token (ms),1588.80,382.24,4121.09,317760.00,403.48,547.97,641.77,659.03,787.54,2439.00,3695.10,4051.43,4119.33,1189.99\r\n" +
	"\r\n" +
	"Metric,Value\r\n" +
	"Benchmark Duration (sec),15.20\r\n" +
	"Goodput (requests/sec),\r\n" +
	"Output Token Throughput (tokens/sec),1274.62\r\n" +
	"Request Count,200.00\r\n" +
	"Request Throughput (requests/sec),13.16\r\n" +
	gpuSection

func TestExportGolden(t *testing.T) {
	dir := t.TempDir()
	ec := &sdk.ExportContext{ArtifactDir: dir, Files: sdk.ArtifactFiles{SummaryCSV: "summary.csv"},
		Results: &sdk.Results{Metrics: sampleMetrics()}}
	files, err := New().Export(context.Background(), ec)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Label != "CSV Export" || files[0].Path != filepath.Join(dir, "summary.csv") {
		t.Fatalf("files = %+v", files)
	}
	got, err := os.ReadFile(files[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != wantCSV {
		t.Fatalf("csv mismatch\n got:\n%s\nwant:\n%s", got, wantCSV)
	}
}

func TestSectionsParseBack(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, sampleMetrics()); err != nil {
		t.Fatal(err)
	}
	// Section 1, a blank line, section 2, two blank lines, the GPU header.
	metrics, gpu, ok := strings.Cut(buf.String(), "\r\n\r\n\r\n")
	if !ok || "\r\n\r\n"+gpu != gpuSection {
		t.Fatalf("no GPU section after two blank lines: %q", buf.String())
	}
	sections := strings.Split(metrics, "\r\n\r\n")
	if len(sections) != 2 {
		t.Fatalf("want 2 metric sections, got %d", len(sections))
	}
	r := csv.NewReader(strings.NewReader(sections[0]))
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 || len(rows[1]) != 15 {
		t.Fatalf("section 1 shape %dx%d", len(rows), len(rows[1]))
	}
	if rows[1][0] != `Input, Tokens "Total" (ms)` {
		t.Errorf("quoted name parsed as %q", rows[1][0])
	}
	r = csv.NewReader(strings.NewReader(sections[1]))
	r.FieldsPerRecord = 2
	rows, err = r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, row := range rows[1:] {
		names = append(names, row[0])
	}
	for _, hidden := range []string{"Min Request (ns)", "Prefill (tokens/sec)"} {
		if strings.Contains(buf.String(), hidden) {
			t.Errorf("%s must be excluded", hidden)
		}
	}
	if len(names) != 5 {
		t.Errorf("section 2 names %v", names)
	}
}

func TestSectionCombinations(t *testing.T) {
	record := sdk.MetricResult{Tag: "request_latency", Header: "Request Latency", Unit: "ms", Avg: fp(1), Min: fp(1), Max: fp(1), P50: fp(1)}
	scalar := sdk.MetricResult{Tag: "request_count", Header: "Request Count", Unit: "count", Avg: fp(3)}
	tests := []struct {
		name    string
		metrics []sdk.MetricResult
		want    string
	}{
		{"empty", nil, gpuSection},
		{"only hidden", []sdk.MetricResult{{Tag: "x", Flags: sdk.FlagInternal, Avg: fp(1)}}, gpuSection},
		{"record only", []sdk.MetricResult{record},
			"Metric,avg,min,max,sum,p1,p5,p10,p25,p50,p75,p90,p95,p99,std\r\nRequest Latency (ms),1.00,1.00,1.00,,,,,,1.00,,,,,\r\n" + gpuSection},
		{"scalar only", []sdk.MetricResult{scalar}, "Metric,Value\r\nRequest Count,3.00\r\n" + gpuSection},
		{"duplicate tag kept once", []sdk.MetricResult{scalar, scalar}, "Metric,Value\r\nRequest Count,3.00\r\n" + gpuSection},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, tc.metrics); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tc.want {
				t.Fatalf("got %q, want %q", buf.String(), tc.want)
			}
		})
	}
}

func TestEmptyResultsStillWriteFile(t *testing.T) {
	dir := t.TempDir()
	files, err := New().Export(context.Background(), &sdk.ExportContext{ArtifactDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(files[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != gpuSection || filepath.Base(files[0].Path) != DefaultFileName {
		t.Fatalf("want only the GPU header in %s, got %q at %s", DefaultFileName, got, files[0].Path)
	}
}

func TestBadInput(t *testing.T) {
	if _, err := New().Export(context.Background(), nil); err == nil {
		t.Fatal("nil context accepted")
	}
	err := Write(&bytes.Buffer{}, []sdk.MetricResult{{Header: "No Tag", Avg: fp(1)}})
	if err == nil || !strings.Contains(err.Error(), `metric #0 ("No Tag") has an empty tag`) {
		t.Fatalf("err = %v", err)
	}
}
