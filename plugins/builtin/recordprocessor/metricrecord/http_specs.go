package metricrecord

import sdk "github.com/aiperf-go/aiperf/plugin-sdk"

// Tags of AIPerf's HTTP trace metrics (aiperf/metrics/types/http_trace_metrics.py,
// k6 naming), computed from the record's sdk.HTTPTrace.
const (
	TagHTTPBlocked            = "http_req_blocked"
	TagHTTPDNSLookup          = "http_req_dns_lookup"
	TagHTTPConnecting         = "http_req_connecting"
	TagHTTPSending            = "http_req_sending"
	TagHTTPWaiting            = "http_req_waiting"
	TagHTTPReceiving          = "http_req_receiving"
	TagHTTPConnectionReused   = "http_req_connection_reused"
	TagHTTPDataSent           = "http_req_data_sent"
	TagHTTPChunksSent         = "http_req_chunks_sent"
	TagHTTPDataReceived       = "http_req_data_received"
	TagHTTPChunksReceived     = "http_req_chunks_received"
	TagHTTPConnectionOverhead = "http_req_connection_overhead"
	TagHTTPDuration           = "http_req_duration"
	TagHTTPTotal              = "http_req_total"
)

// Units of the HTTP trace metrics, as AIPerf writes them. The sizes are
// produced directly in KB (bytes / 1024, AIPerf's MetricSizeUnit.KILOBYTES):
// AIPerf declares them in bytes shown as KB, and KB is all that reaches an
// export.
const (
	unitRatio = "ratio"
	unitCount = "count"
	unitKB    = "KB"
)

// httpFlags: HTTP_TRACE_ONLY, plus NO_CONSOLE standing in for AIPerf's
// console_group NONE (exported, never in the console's metric table; AIPerf
// shows them only with --show-trace-timing).
const httpFlags = sdk.FlagHTTPTraceOnly | sdk.FlagNoConsole

// httpSpecs is AIPerf 0.13's HTTP trace metric table: tags, headers, short
// headers, units, display orders (2000-2130) and dependencies, as its
// metric classes declare them.
var httpSpecs = []sdk.MetricSpec{
	{Tag: TagHTTPBlocked, Header: "HTTP Blocked", ShortHeader: "Blocked",
		Unit: unitNs, DisplayUnit: unitMs, Flags: httpFlags, DisplayOrder: 2000},
	{Tag: TagHTTPDNSLookup, Header: "HTTP DNS Lookup", ShortHeader: "DNS",
		Unit: unitNs, DisplayUnit: unitMs, Flags: httpFlags, DisplayOrder: 2010},
	{Tag: TagHTTPConnecting, Header: "HTTP Connecting", ShortHeader: "Connecting",
		Unit: unitNs, DisplayUnit: unitMs, Flags: httpFlags, DisplayOrder: 2020},
	{Tag: TagHTTPSending, Header: "HTTP Sending", ShortHeader: "Sending",
		Unit: unitNs, DisplayUnit: unitMs, Flags: httpFlags, DisplayOrder: 2030},
	{Tag: TagHTTPWaiting, Header: "HTTP Waiting (TTFB)", ShortHeader: "TTFB",
		Unit: unitNs, DisplayUnit: unitMs, Flags: httpFlags, DisplayOrder: 2040},
	{Tag: TagHTTPReceiving, Header: "HTTP Receiving", ShortHeader: "Receiving",
		Unit: unitNs, DisplayUnit: unitMs, Flags: httpFlags, DisplayOrder: 2050},
	{Tag: TagHTTPConnectionReused, Header: "HTTP Connection Reused", ShortHeader: "Conn Reused",
		Unit: unitRatio, DisplayUnit: unitRatio, Flags: httpFlags, DisplayOrder: 2060, Integer: true},
	{Tag: TagHTTPDataSent, Header: "HTTP Data Sent", ShortHeader: "Sent",
		Unit: unitKB, DisplayUnit: unitKB, Flags: httpFlags, DisplayOrder: 2070},
	{Tag: TagHTTPChunksSent, Header: "HTTP Chunks Sent", ShortHeader: "Chunks Sent",
		Unit: unitCount, DisplayUnit: unitCount, Flags: httpFlags, DisplayOrder: 2080, Integer: true},
	{Tag: TagHTTPDataReceived, Header: "HTTP Data Received", ShortHeader: "Received",
		Unit: unitKB, DisplayUnit: unitKB, Flags: httpFlags, DisplayOrder: 2090},
	{Tag: TagHTTPChunksReceived, Header: "HTTP Chunks Received", ShortHeader: "Chunks Recv",
		Unit: unitCount, DisplayUnit: unitCount, Flags: httpFlags, DisplayOrder: 2100, Integer: true},
	{Tag: TagHTTPConnectionOverhead, Header: "HTTP Connection Overhead", ShortHeader: "Conn Overhead",
		Unit: unitNs, DisplayUnit: unitMs, Flags: httpFlags, DisplayOrder: 2110,
		Requires: []string{TagHTTPBlocked, TagHTTPDNSLookup, TagHTTPConnecting}},
	{Tag: TagHTTPDuration, Header: "HTTP Duration (excl. conn)", ShortHeader: "Dur (excl)",
		Unit: unitNs, DisplayUnit: unitMs, Flags: httpFlags, DisplayOrder: 2120},
	{Tag: TagHTTPTotal, Header: "HTTP Total Time", ShortHeader: "Total",
		Unit: unitNs, DisplayUnit: unitMs, Flags: httpFlags, DisplayOrder: 2130,
		Requires: []string{TagHTTPBlocked, TagHTTPDNSLookup, TagHTTPConnecting,
			TagHTTPSending, TagHTTPWaiting, TagHTTPReceiving}},
}
