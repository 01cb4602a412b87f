package metricrecord

import sdk "github.com/aiperf-go/aiperf/plugin-sdk"

// bytesPerKB is AIPerf's MetricSizeUnit.KILOBYTES factor.
const bytesPerKB = 1024

// httpMetrics computes AIPerf's HTTP trace metrics of a successful request
// from its trace, each exactly as its class in AIPerf 0.13's
// metrics/types/http_trace_metrics.py does (docs/METRICS.md §2.3). A record
// without a trace has none of them (AIPerf: "No trace data available");
// a phase whose stamps are missing is absent, one that did not happen is 0
// where AIPerf returns 0, and a negative difference (AIPerf raises
// ValueError) drops that metric for the record.
func httpMetrics(rec *sdk.RequestRecord, v map[string]sdk.MetricValue) {
	t := rec.HTTPTrace
	if t == nil {
		return
	}
	blocked, okBlocked := httpBlocked(t)
	dns, okDNS := httpDNSLookup(t)
	connecting, okConnecting := httpConnecting(t)
	sending, okSending := span(t.RequestSendStartNs, t.RequestSendEndNs)
	waiting, okWaiting := span(t.RequestSendEndNs, t.ResponseReceiveStartNs)
	receiving, okReceiving := httpReceiving(t)
	duration, okDuration := span(t.RequestSendStartNs, t.ResponseReceiveEndNs)

	setNs(v, TagHTTPBlocked, blocked, okBlocked)
	setNs(v, TagHTTPDNSLookup, dns, okDNS)
	setNs(v, TagHTTPConnecting, connecting, okConnecting)
	setNs(v, TagHTTPSending, sending, okSending)
	setNs(v, TagHTTPWaiting, waiting, okWaiting)
	setNs(v, TagHTTPReceiving, receiving, okReceiving)
	setNs(v, TagHTTPDuration, duration, okDuration)

	reused := 0.0
	if t.ConnectionReused {
		reused = 1
	}
	setScalar(v, TagHTTPConnectionReused, reused)
	setScalar(v, TagHTTPDataSent, float64(t.RequestBytes)/bytesPerKB)
	setScalar(v, TagHTTPChunksSent, float64(t.RequestChunks))
	setScalar(v, TagHTTPDataReceived, float64(t.ResponseBytes)/bytesPerKB)
	setScalar(v, TagHTTPChunksReceived, float64(t.ResponseChunks))

	// The sums need every part (AIPerf's required_metrics).
	if okBlocked && okDNS && okConnecting {
		overhead := blocked + dns + connecting
		setScalar(v, TagHTTPConnectionOverhead, float64(overhead))
		if okSending && okWaiting && okReceiving {
			setScalar(v, TagHTTPTotal, float64(overhead+sending+waiting+receiving))
		}
	}
}

// span is end − start: absent when either stamp is missing or it is negative.
func span(start, end int64) (int64, bool) {
	if start == 0 || end == 0 || end < start {
		return 0, false
	}
	return end - start, true
}

// httpBlocked: 0 without a pool wait, absent when it never ended.
func httpBlocked(t *sdk.HTTPTrace) (int64, bool) {
	if t.PoolWaitStartNs == 0 {
		return 0, true
	}
	return span(t.PoolWaitStartNs, t.PoolWaitEndNs)
}

// httpDNSLookup: 0 on a reused connection or without a lookup (an IP
// address), absent when the lookup never ended.
func httpDNSLookup(t *sdk.HTTPTrace) (int64, bool) {
	if t.ConnectionReused || t.DNSLookupStartNs == 0 {
		return 0, true
	}
	return span(t.DNSLookupStartNs, t.DNSLookupEndNs)
}

// httpConnecting: 0 on a reused connection, absent when a new one has no
// complete connect phase.
func httpConnecting(t *sdk.HTTPTrace) (int64, bool) {
	if t.ConnectionReused {
		return 0, true
	}
	return span(t.TCPConnectStartNs, t.TCPConnectEndNs)
}

// httpReceiving: absent without a response chunk, 0 for a single chunk.
func httpReceiving(t *sdk.HTTPTrace) (int64, bool) {
	switch t.ResponseChunks {
	case 0:
		return 0, false
	case 1:
		return 0, true
	}
	return span(t.ResponseReceiveStartNs, t.ResponseReceiveEndNs)
}

func setNs(v map[string]sdk.MetricValue, tag string, ns int64, ok bool) {
	if ok {
		setScalar(v, tag, float64(ns))
	}
}
