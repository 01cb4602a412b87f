package metricstable

import (
	"bytes"
	"context"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

var update = flag.Bool("update", false, "rewrite golden files")

func fp(v float64) *float64 { return &v }

func rec(tag, header, unit string, order int, s ...float64) sdk.MetricResult {
	return sdk.MetricResult{Tag: tag, Header: header, Unit: unit, DisplayOrder: order,
		Avg: fp(s[0]), Min: fp(s[1]), Max: fp(s[2]), P99: fp(s[3]), P90: fp(s[4]), P50: fp(s[5]), Std: fp(s[6]),
		P1: fp(s[1]), P5: fp(s[1]), P10: fp(s[1]), P25: fp(s[1]), P75: fp(s[5]), P95: fp(s[3])}
}

func scalar(tag, header, unit string, order int, avg float64) sdk.MetricResult {
	return sdk.MetricResult{Tag: tag, Header: header, Unit: unit, DisplayOrder: order, Avg: fp(avg)}
}

// sampleResults reproduces the AIPerf README run (docs/METRICS.md §7), deliberately
// out of order and mixed with metrics that must stay hidden.
func sampleResults() *sdk.Results {
	return &sdk.Results{Metrics: []sdk.MetricResult{
		scalar("request_count", "Request Count", "requests", 1100, 711),
		rec("input_sequence_length", "Input Sequence Length", "tokens", 700, 10, 10, 10, 10, 10, 10, 0),
		rec("time_to_first_token", "Time to First Token", "ms", 100, 18.26, 11.22, 106.32, 68.82, 27.76, 16.62, 12.07),
		scalar("benchmark_duration", "Benchmark Duration", "sec", 0, 2.78), // no flag: safety net hides it
		rec("time_to_second_token", "Time to Second Token", "ms", 200, 11.40, 0.02, 85.91, 34.54, 12.59, 11.65, 7.01),
		rec("request_latency", "Request Latency", "ms", 300, 487.30, 267.07, 769.57, 715.99, 580.83, 536.17, 79.60),
		{Tag: "inter_chunk_latency", Header: "Inter Chunk Latency", Unit: "ms", Flags: sdk.FlagNoConsole | sdk.FlagStreamingTokensOnly, Avg: fp(1)},
		rec("inter_token_latency", "Inter Token Latency", "ms", 400, 11.23, 8.80, 13.17, 12.48, 11.73, 11.37, 0.45),
		{Tag: "error_isl", Header: "Error ISL", Unit: "tokens", Flags: sdk.FlagErrorOnly, Avg: fp(5)},
		rec("output_token_throughput_per_user", "Output Token Throughput Per User", "tokens/sec/user", 500, 89.23, 75.93, 113.60, 102.28, 90.91, 90.29, 3.70),
		scalar("min_request_timestamp", "Minimum Request Timestamp", "ns", 0, 1),
		rec("output_sequence_length", "Output Sequence Length", "tokens", 600, 42.83, 24, 65, 64, 52, 47, 7.21),
		scalar("request_throughput", "Request Throughput", "requests/sec", 900, 255.54),
		{Tag: "stream_setup_latency", Header: "Stream Setup", Unit: "ms", Flags: sdk.FlagExperimental, Avg: fp(1)},
		{Tag: "credit_drop_latency", Header: "Credit Drop", Unit: "ms", Flags: sdk.FlagInternal, Avg: fp(1)},
		scalar("total_osl", "Total Output Sequence Length", "tokens", 0, 30451),
		scalar("output_token_throughput", "Output Token Throughput", "tokens/sec", 800, 10944.03),
	}}
}

func render(t *testing.T, ec *sdk.ExportContext, opts ...Option) string {
	t.Helper()
	var buf bytes.Buffer
	if err := New(opts...).Render(context.Background(), &buf, ec); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestGolden(t *testing.T) {
	got := render(t, &sdk.ExportContext{Results: sampleResults()})
	path := filepath.Join("testdata", "llm_metrics.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("table differs from %s\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

// The body lines must be exactly AIPerf's README sample (with p50 in the
// column AIPerf's README still labelled p75).
func TestMatchesAIPerfSampleRows(t *testing.T) {
	sample := []string{
		"┃                               Metric ┃       avg ┃    min ┃    max ┃    p99 ┃    p90 ┃    p50 ┃   std ┃",
		"│             Time to First Token (ms) │     18.26 │  11.22 │ 106.32 │  68.82 │  27.76 │  16.62 │ 12.07 │",
		"│            Time to Second Token (ms) │     11.40 │   0.02 │  85.91 │  34.54 │  12.59 │  11.65 │  7.01 │",
		"│                 Request Latency (ms) │    487.30 │ 267.07 │ 769.57 │ 715.99 │ 580.83 │ 536.17 │ 79.60 │",
		"│             Inter Token Latency (ms) │     11.23 │   8.80 │  13.17 │  12.48 │  11.73 │  11.37 │  0.45 │",
		"│     Output Token Throughput Per User │     89.23 │  75.93 │ 113.60 │ 102.28 │  90.91 │  90.29 │  3.70 │",
		"│                    (tokens/sec/user) │           │        │        │        │        │        │       │",
		"│      Output Sequence Length (tokens) │     42.83 │  24.00 │  65.00 │  64.00 │  52.00 │  47.00 │  7.21 │",
		"│       Input Sequence Length (tokens) │     10.00 │  10.00 │  10.00 │  10.00 │  10.00 │  10.00 │  0.00 │",
		"│ Output Token Throughput (tokens/sec) │ 10,944.03 │    N/A │    N/A │    N/A │    N/A │    N/A │   N/A │",
		"│    Request Throughput (requests/sec) │    255.54 │    N/A │    N/A │    N/A │    N/A │    N/A │   N/A │",
		"│             Request Count (requests) │    711.00 │    N/A │    N/A │    N/A │    N/A │    N/A │   N/A │",
	}
	var body []string
	for _, l := range strings.Split(render(t, &sdk.ExportContext{Results: sampleResults()}), "\n") {
		if strings.HasPrefix(l, "┃") || strings.HasPrefix(l, "│") {
			body = append(body, l)
		}
	}
	if strings.Join(body, "\n") != strings.Join(sample, "\n") {
		t.Fatalf("rows differ from AIPerf's sample\n got:\n%s\nwant:\n%s", strings.Join(body, "\n"), strings.Join(sample, "\n"))
	}
}

func TestTitleAndEmptyCases(t *testing.T) {
	out := render(t, &sdk.ExportContext{Results: sampleResults(), Endpoint: sdk.EndpointMetadata{MetricsTitle: "Embeddings Metrics"}})
	if !strings.Contains(out, "NVIDIA AIPerf | Embeddings Metrics\n") {
		t.Fatalf("title missing:\n%s", out)
	}
	onlyHidden := &sdk.Results{Metrics: []sdk.MetricResult{{Tag: "error_isl", Flags: sdk.FlagErrorOnly, Avg: fp(1)}}}
	for name, ec := range map[string]*sdk.ExportContext{
		"nil results": {}, "no metrics": {Results: &sdk.Results{}}, "only hidden": {Results: onlyHidden},
	} {
		if out := render(t, ec); out != "" {
			t.Errorf("%s: printed %q", name, out)
		}
	}
	if err := New().Render(context.Background(), &bytes.Buffer{}, nil); err == nil {
		t.Error("nil context accepted")
	}
}

func TestNonFiniteAndColor(t *testing.T) {
	res := &sdk.Results{Metrics: []sdk.MetricResult{
		{Tag: "adj_request_latency", Header: "Adj Latency", Unit: "ms", DisplayOrder: 1, Avg: fp(math.Inf(1)), P50: fp(1234.5), Std: fp(math.NaN())},
	}}
	plain := render(t, &sdk.ExportContext{Results: res}, WithColor(false))
	if !strings.Contains(plain, "│ Adj Latency (ms) │ N/A │ N/A │ N/A │ N/A │ N/A │ 1,234.50 │ N/A │") {
		t.Fatalf("row:\n%s", plain)
	}
	colored := render(t, &sdk.ExportContext{Results: res}, WithColor(true))
	for _, want := range []string{"\x1b[36mAdj Latency (ms)\x1b[0m", "\x1b[32m1,234.50\x1b[0m", "\x1b[2mN/A\x1b[0m"} {
		if !strings.Contains(colored, want) {
			t.Errorf("missing %q in %q", want, colored)
		}
	}
}

func TestColorDetection(t *testing.T) {
	if IsColorTerminal(&bytes.Buffer{}) {
		t.Error("a buffer is not a terminal")
	}
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsColorTerminal(f) {
		t.Error("a regular file is not a terminal")
	}
	t.Setenv("NO_COLOR", "1")
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		if IsColorTerminal(tty) {
			t.Error("NO_COLOR must disable colour")
		}
	}
}

func TestFormatNumber(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0.00"}, {7.005, "7.00"}, {999.999, "1,000.00"}, {10944.03, "10,944.03"},
		{1234567.891, "1,234,567.89"}, {-1234.5, "-1,234.50"}, {-0.001, "-0.00"}, {123, "123.00"},
	}
	for _, tc := range tests {
		if got := FormatNumber(tc.in); got != tc.want {
			t.Errorf("FormatNumber(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
