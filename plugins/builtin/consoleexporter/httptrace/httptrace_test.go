package httptrace

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func fp(v float64) *float64 { return &v }

// httpFlags are the flags the built-in processor gives the http_req_*
// metrics (HTTP_TRACE_ONLY, and NO_CONSOLE for AIPerf's console group NONE).
const httpFlags = sdk.FlagHTTPTraceOnly | sdk.FlagNoConsole

func row(tag, header, unit string, order int, s ...float64) sdk.MetricResult {
	return sdk.MetricResult{Tag: tag, Header: header, Unit: unit, Flags: httpFlags, DisplayOrder: order,
		Avg: fp(s[0]), Min: fp(s[1]), Max: fp(s[2]), P99: fp(s[3]), P90: fp(s[4]), P50: fp(s[5]), Std: fp(s[6])}
}

// aiperfResults are the HTTP trace results of AIPerf 0.13's reference run
// (testdata/aiperf013_http_trace_timing.txt: chat, streaming, concurrency 2,
// 8 requests, --show-trace-timing, against our mock server), shuffled and
// mixed with metrics the table must leave out.
func aiperfResults() *sdk.Results {
	return &sdk.Results{Metrics: []sdk.MetricResult{
		row("http_req_total", "HTTP Total Time", "ms", 2130, 98.49, 95.85, 102.10, 102.00, 101.12, 98.34, 2.12),
		{Tag: "time_to_first_token", Header: "Time to First Token", Unit: "ms", DisplayOrder: 100,
			Avg: fp(21), Min: fp(20), Max: fp(22), P99: fp(22), P90: fp(22), P50: fp(21), Std: fp(0.5)},
		row("http_req_waiting", "HTTP Waiting (TTFB)", "ms", 2040, 1.35, 0.40, 2.45, 2.43, 2.26, 1.31, 0.76),
		row("http_req_blocked", "HTTP Blocked", "ms", 2000, 0, 0, 0, 0, 0, 0, 0),
		row("http_req_dns_lookup", "HTTP DNS Lookup", "ms", 2010, 0, 0, 0, 0, 0, 0, 0),
		row("http_req_connecting", "HTTP Connecting", "ms", 2020, 0.40, 0, 2.33, 2.22, 1.29, 0, 0.78),
		row("http_req_sending", "HTTP Sending", "ms", 2030, 1.34, 0.19, 4.70, 4.63, 4.03, 0.28, 1.70),
		{Tag: "request_count", Header: "Request Count", Unit: "requests", DisplayOrder: 1100, Avg: fp(8)},
		row("http_req_receiving", "HTTP Receiving", "ms", 2050, 95.41, 93.48, 99.08, 98.88, 97.08, 94.89, 1.63),
		row("http_req_connection_reused", "HTTP Connection Reused", "ratio", 2060, 0.75, 0, 1, 1, 1, 1, 0.43),
		row("http_req_data_sent", "HTTP Data Sent", "KB", 2070, 0.44, 0.42, 0.46, 0.46, 0.46, 0.44, 0.01),
		{Tag: "http_req_error_thing", Header: "HTTP Error Only", Unit: "ms", Flags: httpFlags | sdk.FlagErrorOnly,
			DisplayOrder: 2075, Avg: fp(1)},
		row("http_req_chunks_sent", "HTTP Chunks Sent", "count", 2080, 1, 1, 1, 1, 1, 1, 0),
		row("http_req_data_received", "HTTP Data Received", "KB", 2090, 3.58, 3.57, 3.58, 3.58, 3.58, 3.58, 0),
		row("http_req_chunks_received", "HTTP Chunks Received", "count", 2100, 17, 17, 17, 17, 17, 17, 0),
		row("http_req_connection_overhead", "HTTP Connection Overhead", "ms", 2110, 0.40, 0, 2.33, 2.22, 1.29, 0, 0.78),
		row("http_req_duration", "HTTP Duration (excl. conn)", "ms", 2120, 98.10, 95.85, 100.70, 100.63, 100.06, 97.92, 1.71),
		{Tag: "inter_chunk_latency", Header: "Inter Chunk Latency", Unit: "ms", Flags: sdk.FlagNoConsole, Avg: fp(5)},
	}}
}

func render(t *testing.T, e *Exporter, ec *sdk.ExportContext) string {
	t.Helper()
	var buf bytes.Buffer
	if err := e.Render(context.Background(), &buf, ec); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// The table is AIPerf's, line for line: title, columns, the 14 rows in
// display order, values formatted as AIPerf formats them. (Rich pads the
// title line with trailing spaces; the fixture has them trimmed.)
func TestMatchesAIPerfTable(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("testdata", "aiperf013_http_trace_timing.txt"))
	if err != nil {
		t.Fatal(err)
	}
	got := render(t, New(Enabled(true), WithColor(false)), &sdk.ExportContext{Results: aiperfResults()})
	if !strings.HasPrefix(got, "\n") {
		t.Errorf("the table is not set off by a blank line: %q", got[:min(len(got), 20)])
	}
	if strings.TrimLeft(got, "\n") != string(want) {
		t.Fatalf("table differs from AIPerf's\n got:\n%s\nwant:\n%s", got, want)
	}
}

// Off (the default), or with nothing to show, it prints nothing.
func TestPrintsNothing(t *testing.T) {
	tests := []struct {
		name string
		e    *Exporter
		ec   *sdk.ExportContext
	}{
		{"disabled by default", New(), &sdk.ExportContext{Results: aiperfResults()}},
		{"disabled with a nil context", New(), nil},
		{"no results", New(Enabled(true)), &sdk.ExportContext{}},
		{"no http metrics", New(Enabled(true)), &sdk.ExportContext{Results: &sdk.Results{Metrics: []sdk.MetricResult{
			{Tag: "request_latency", Header: "Request Latency", Unit: "ms", DisplayOrder: 300, Avg: fp(1)}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(t, tc.e, tc.ec); got != "" {
				t.Errorf("printed %q", got)
			}
		})
	}
	if err := New(Enabled(true)).Render(context.Background(), &bytes.Buffer{}, nil); err == nil {
		t.Error("enabled with a nil context: no error")
	}
}

// Missing stats are N/A; a header over 30 characters puts the unit on a
// second line; colour codes only when asked.
func TestCellsAndColour(t *testing.T) {
	res := &sdk.Results{Metrics: []sdk.MetricResult{
		{Tag: "http_req_x", Header: "HTTP A Rather Long Header Name Here", Unit: "ms", Flags: httpFlags, DisplayOrder: 5, Avg: fp(1234.5)},
	}}
	plain := render(t, New(Enabled(true), WithColor(false)), &sdk.ExportContext{Results: res})
	for _, want := range []string{"HTTP A Rather Long Header Name Here", "(ms)", "1,234.50", "N/A"} {
		if !strings.Contains(plain, want) {
			t.Errorf("table lacks %q:\n%s", want, plain)
		}
	}
	if strings.Contains(plain, "\x1b[") {
		t.Error("colour codes without colour")
	}
	if colored := render(t, New(Enabled(true), WithColor(true)), &sdk.ExportContext{Results: res}); !strings.Contains(colored, "\x1b[") {
		t.Error("no colour codes with colour")
	}
}

// The setting is show_trace_timing, decoded strictly.
func TestShowTraceTimingSetting(t *testing.T) {
	e := New()
	if err := sdk.ApplyConfig(e, "console_exporter.http_trace", []byte(`{"show_trace_timing":true}`)); err != nil {
		t.Fatal(err)
	}
	if got := render(t, e, &sdk.ExportContext{Results: aiperfResults()}); !strings.Contains(got, Title) {
		t.Errorf("enabled by the setting, printed %q", got)
	}
	if err := sdk.ApplyConfig(New(), "console_exporter.http_trace", []byte(`{"show":true}`)); err == nil {
		t.Error("an unknown setting was accepted")
	}
}
