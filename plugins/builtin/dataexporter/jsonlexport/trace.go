package jsonlexport

import (
	"net/http"
	"strconv"

	"github.com/aiperf-go/aiperf/core/clock"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Settings are the exporter's own settings (sdk.Configurable).
type Settings struct {
	// ExportHTTPTrace adds each request's HTTP trace to its line as
	// "trace_data" (--export-http-trace, AIPerf's artifacts.trace).
	ExportHTTPTrace bool `json:"export_http_trace"`
}

// PluginConfig returns the settings to decode into; the defaults are off.
func (e *Exporter) PluginConfig() any { return &e.settings }

// traceType is AIPerf's trace_type, the discriminator of its export model:
// "aiohttp" selects AioHttpTraceDataExport, whose fields these are.
const traceType = "aiohttp"

// appendTraceData appends `,"trace_data":{...}`: the request's trace in
// AIPerf 0.13's export form (AioHttpTraceData.to_export(), written by
// RecordExportJSONLWriter with exclude_none). Members come in the pydantic
// models' declaration order (TraceDataExport's fields, AioHttpTraceDataExport's,
// then the computed durations); a stamp that was not taken is left out, as
// AIPerf leaves out None. Stamps are wall-clock epoch ns (AIPerf's
// *_perf_ns renamed *_ns and converted with its time_ns/perf_counter_ns
// reference pair; ours with clock.WallNs). The durations are integer ns.
//
// What our trace does not hold is not written: request_headers,
// response_headers, error_timestamp_ns, dns_cache_hit_ns and the socket
// addresses (local_ip, local_port, remote_ip, remote_port).
// request_chunks and response_chunks are always [], as in AIPerf 0.13,
// which never collects per-chunk lists (collect_trace_chunks=False).
func appendTraceData(b []byte, t *sdk.HTTPTrace, status int) []byte {
	b = append(b, `,"trace_data":{"trace_type":"`+traceType+`"`...)
	// TraceDataExport: the request.
	b = appendStamp(b, `,"request_send_start_ns":`, t.RequestSendStartNs)
	b = appendStamp(b, `,"request_headers_sent_ns":`, t.RequestHeadersSentNs)
	b = append(b, `,"request_chunks":[]`...)
	b = appendStamp(b, `,"request_send_end_ns":`, t.RequestSendEndNs)
	b = append(b, `,"request_chunks_count":`...)
	b = strconv.AppendInt(b, t.RequestChunks, 10)
	b = append(b, `,"request_bytes_total":`...)
	b = strconv.AppendInt(b, t.RequestBytes, 10)
	// The response: a trace exists only once response headers arrived,
	// when aiohttp's on_request_end takes the status and reason.
	if status != 0 {
		b = append(b, `,"response_status_code":`...)
		b = strconv.AppendInt(b, int64(status), 10)
		if reason := http.StatusText(status); reason != "" {
			b = append(b, `,"response_reason":"`...)
			b = append(b, reason...) // plain ASCII words, nothing to escape
			b = append(b, '"')
		}
	}
	b = appendStamp(b, `,"response_receive_start_ns":`, t.ResponseReceiveStartNs)
	b = appendStamp(b, `,"response_headers_received_ns":`, t.ResponseHeadersReceivedNs)
	b = append(b, `,"response_chunks":[]`...)
	b = append(b, `,"response_chunks_count":`...)
	b = strconv.AppendInt(b, t.ResponseChunks, 10)
	b = append(b, `,"response_bytes_total":`...)
	b = strconv.AppendInt(b, t.ResponseBytes, 10)
	b = appendStamp(b, `,"response_receive_end_ns":`, t.ResponseReceiveEndNs)
	// AioHttpTraceDataExport: the connection.
	b = appendStamp(b, `,"connection_pool_wait_start_ns":`, t.PoolWaitStartNs)
	b = appendStamp(b, `,"connection_pool_wait_end_ns":`, t.PoolWaitEndNs)
	b = appendStamp(b, `,"tcp_connect_start_ns":`, t.TCPConnectStartNs)
	b = appendStamp(b, `,"tcp_connect_end_ns":`, t.TCPConnectEndNs)
	if t.ConnectionReused {
		// aiohttp's on_connection_reuseconn: the pooled connection was
		// handed over, which ends our pool wait.
		b = appendStamp(b, `,"connection_reused_ns":`, t.PoolWaitEndNs)
	}
	// Go keeps no DNS cache: every lookup is aiohttp's cache miss, which
	// fires just before the lookup starts.
	b = appendStamp(b, `,"dns_cache_miss_ns":`, t.DNSLookupStartNs)
	b = appendStamp(b, `,"dns_lookup_start_ns":`, t.DNSLookupStartNs)
	b = appendStamp(b, `,"dns_lookup_end_ns":`, t.DNSLookupEndNs)
	// Computed durations, under AIPerf's conditions (a stamp is "set" when
	// non-zero, as Python's truthiness of an epoch time).
	b = appendSpan(b, `,"sending_ns":`, t.RequestSendStartNs, t.RequestSendEndNs)
	b = appendSpan(b, `,"waiting_ns":`, t.RequestSendEndNs, t.ResponseReceiveStartNs)
	switch {
	case t.ResponseChunks == 0:
	case t.ResponseChunks == 1:
		b = append(b, `,"receiving_ns":0`...)
	default:
		b = appendSpan(b, `,"receiving_ns":`, t.ResponseReceiveStartNs, t.ResponseReceiveEndNs)
	}
	b = appendSpan(b, `,"duration_ns":`, t.RequestSendStartNs, t.ResponseReceiveEndNs)
	b = appendSpan(b, `,"blocked_ns":`, t.PoolWaitStartNs, t.PoolWaitEndNs)
	b = appendSpan(b, `,"dns_lookup_ns":`, t.DNSLookupStartNs, t.DNSLookupEndNs)
	b = appendSpan(b, `,"connecting_ns":`, t.TCPConnectStartNs, t.TCPConnectEndNs)
	return append(b, '}')
}

// appendStamp writes a monotonic stamp as wall-clock epoch ns; nothing when
// it was not taken (0).
func appendStamp(b []byte, key string, perfNs int64) []byte {
	if perfNs == 0 {
		return b
	}
	b = append(b, key...)
	return strconv.AppendInt(b, clock.WallNs(perfNs), 10)
}

// appendSpan writes end − start in ns when both stamps were taken (the
// difference is the same on the wall clock); AIPerf writes a negative one
// as it is.
func appendSpan(b []byte, key string, start, end int64) []byte {
	if start == 0 || end == 0 {
		return b
	}
	b = append(b, key...)
	return strconv.AppendInt(b, end-start, 10)
}
