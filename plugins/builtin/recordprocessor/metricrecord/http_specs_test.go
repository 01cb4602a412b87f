package metricrecord

import (
	"slices"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// AIPerf 0.13's HTTP trace metric classes (metrics/types/http_trace_metrics.py):
// tag, header, short header, unit as exported, display order, dependencies.
// Each is HTTP_TRACE_ONLY with console_group NONE (NO_CONSOLE here).
func TestHTTPSpecsAreAIPerfs(t *testing.T) {
	cases := []struct {
		tag, header, short, unit string
		order                    int
		integer                  bool
		requires                 []string
	}{
		{TagHTTPBlocked, "HTTP Blocked", "Blocked", "ms", 2000, false, nil},
		{TagHTTPDNSLookup, "HTTP DNS Lookup", "DNS", "ms", 2010, false, nil},
		{TagHTTPConnecting, "HTTP Connecting", "Connecting", "ms", 2020, false, nil},
		{TagHTTPSending, "HTTP Sending", "Sending", "ms", 2030, false, nil},
		{TagHTTPWaiting, "HTTP Waiting (TTFB)", "TTFB", "ms", 2040, false, nil},
		{TagHTTPReceiving, "HTTP Receiving", "Receiving", "ms", 2050, false, nil},
		{TagHTTPConnectionReused, "HTTP Connection Reused", "Conn Reused", "ratio", 2060, true, nil},
		{TagHTTPDataSent, "HTTP Data Sent", "Sent", "KB", 2070, false, nil},
		{TagHTTPChunksSent, "HTTP Chunks Sent", "Chunks Sent", "count", 2080, true, nil},
		{TagHTTPDataReceived, "HTTP Data Received", "Received", "KB", 2090, false, nil},
		{TagHTTPChunksReceived, "HTTP Chunks Received", "Chunks Recv", "count", 2100, true, nil},
		{TagHTTPConnectionOverhead, "HTTP Connection Overhead", "Conn Overhead", "ms", 2110, false,
			[]string{TagHTTPBlocked, TagHTTPDNSLookup, TagHTTPConnecting}},
		{TagHTTPDuration, "HTTP Duration (excl. conn)", "Dur (excl)", "ms", 2120, false, nil},
		{TagHTTPTotal, "HTTP Total Time", "Total", "ms", 2130, false,
			[]string{TagHTTPBlocked, TagHTTPDNSLookup, TagHTTPConnecting, TagHTTPSending, TagHTTPWaiting, TagHTTPReceiving}},
	}
	all := New().Metrics()
	got := all[len(all)-len(httpSpecs):]
	if len(got) != len(cases) {
		t.Fatalf("%d HTTP trace metrics, want %d", len(got), len(cases))
	}
	for i, tc := range cases {
		s := got[i]
		if s.Tag != tc.tag || s.Header != tc.header || s.ShortHeader != tc.short || s.Display() != tc.unit ||
			s.Flags != sdk.FlagHTTPTraceOnly|sdk.FlagNoConsole || s.DisplayOrder != tc.order ||
			s.Integer != tc.integer || s.List || !slices.Equal(s.Requires, tc.requires) {
			t.Errorf("metric %d = %+v, want %+v", i, s, tc)
		}
	}
}
