package transport

import (
	"bytes"
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"strings"
	"sync/atomic"

	"github.com/aiperf-go/aiperf/core/clock"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// httpTrace collects one request's sdk.HTTPTrace: AIPerf's aiohttp trace
// events mapped onto net/http/httptrace hooks on the real connection, plus
// the body reads (response chunks) and the writes of the request (request
// chunks). It is allocated per request and never reused, because net/http
// may call the dial hooks after the request ended.
//
// Which goroutine writes what:
//   - GetConn and GotConn run inside client.Do on the sender's goroutine,
//     as do the body reads, so they write out directly;
//   - DNS, connect and TLS hooks run on the goroutine that dials a new
//     connection, which net/http detaches from the request (it may finish
//     after the request took another connection, or after it ended), and
//     WroteHeaders and WroteRequest run on the connection's write loop:
//     those stamps are atomics, read by GotConn (dial) or finish (write).
type httpTrace struct {
	ct  httptrace.ClientTrace
	out sdk.HTTPTrace

	// Dial stamps of the current hop, first start and last end.
	dnsStart, dnsEnd, connStart, tlsStart, tlsEnd atomic.Int64
	// Write-loop stamps and counters; owed is the body not yet credited.
	headersSent, sendEnd, sentChunks, sentBytes, owed atomic.Int64

	// wc, when set, is armed once the request was written
	// (--request-cancellation-delay counts from there).
	wc *writeCanceller
}

// newHTTPTrace returns a trace whose hooks are bound to it. Each hook is an
// allocation, so the DNS and TLS hooks are left out where they cannot fire:
// plain http to an IP address (dial reports where a proxy may be dialed).
// A redirect from there to a host name or https then reports no lookup and
// no handshake stamps; its connect phase is still measured.
func newHTTPTrace(wc *writeCanceller, rawURL string, dial bool) *httpTrace {
	t := &httpTrace{wc: wc}
	t.ct = httptrace.ClientTrace{
		GetConn:      t.getConn,
		GotConn:      t.gotConn,
		ConnectStart: func(string, string) { t.connStart.CompareAndSwap(0, clock.Now()) },
		WroteHeaders: func() { t.headersSent.Store(clock.Now()) },
		WroteRequest: t.wroteRequest,
	}
	if dial || !plainHTTPToIP(rawURL) {
		t.ct.DNSStart = func(httptrace.DNSStartInfo) { t.dnsStart.CompareAndSwap(0, clock.Now()) }
		t.ct.DNSDone = func(httptrace.DNSDoneInfo) { t.dnsEnd.Store(clock.Now()) }
		t.ct.TLSHandshakeStart = func() { t.tlsStart.CompareAndSwap(0, clock.Now()) }
		t.ct.TLSHandshakeDone = func(tls.ConnectionState, error) { t.tlsEnd.Store(clock.Now()) }
	}
	return t
}

// plainHTTPToIP reports whether rawURL is http:// to an IP address, without
// allocating. Anything it cannot tell is reported false (hooks stay on).
func plainHTTPToIP(rawURL string) bool {
	const scheme = "http://"
	if len(rawURL) < len(scheme) || !strings.EqualFold(rawURL[:len(scheme)], scheme) {
		return false
	}
	host := rawURL[len(scheme):]
	if i := strings.IndexAny(host, "/?#"); i >= 0 {
		host = host[:i]
	}
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		host = host[i+1:]
	}
	if strings.HasPrefix(host, "[") {
		end := strings.IndexByte(host, ']')
		if end < 0 {
			return false
		}
		host = host[1:end]
	} else if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	_, err := netip.ParseAddr(host)
	return err == nil
}

// getConn starts a hop: the request asks the pool for a connection. The
// first hop's stamp is AIPerf's request_send_start (aiohttp's
// on_request_start fires before the connector is asked, once per request,
// redirects included); the connection fields are the last hop's.
func (t *httpTrace) getConn(string) {
	now := clock.Now()
	o := &t.out
	if o.RequestSendStartNs == 0 {
		o.RequestSendStartNs = now
	}
	o.PoolWaitStartNs, o.PoolWaitEndNs, o.ConnectionReused = now, 0, false
	o.DNSLookupStartNs, o.DNSLookupEndNs = 0, 0
	o.TCPConnectStartNs, o.TCPConnectEndNs = 0, 0
	o.TLSHandshakeStartNs, o.TLSHandshakeEndNs = 0, 0
	if t.connStart.Load() != 0 || t.dnsStart.Load() != 0 {
		// A later hop: forget the previous hop's dial.
		t.dnsStart.Store(0)
		t.dnsEnd.Store(0)
		t.connStart.Store(0)
		t.tlsStart.Store(0)
		t.tlsEnd.Store(0)
	}
}

// gotConn ends the wait for a connection. A connection from the pool
// (used before, or idle) is a reused one, as aiohttp's connector reports a
// pooled connection; otherwise the request opened it, from the start of its
// dial (DNS, else TCP connect) until now, TLS included.
func (t *httpTrace) gotConn(info httptrace.GotConnInfo) {
	now := clock.Now()
	o := &t.out
	o.ConnectionReused = info.Reused || info.WasIdle
	if o.ConnectionReused {
		o.PoolWaitEndNs = now
		return
	}
	dns, conn := t.dnsStart.Load(), t.connStart.Load()
	start := conn
	if dns != 0 {
		start = dns
	}
	if start == 0 || start < o.PoolWaitStartNs {
		// A fresh connection another request's dial handed over before this
		// request's own dial began: no connect phase of its own.
		o.PoolWaitEndNs = now
		return
	}
	o.PoolWaitEndNs = start
	o.TCPConnectStartNs, o.TCPConnectEndNs = start, now
	if dns != 0 {
		o.DNSLookupStartNs, o.DNSLookupEndNs = dns, t.dnsEnd.Load()
	}
	if ts := t.tlsStart.Load(); ts != 0 {
		o.TLSHandshakeStartNs, o.TLSHandshakeEndNs = ts, t.tlsEnd.Load()
	}
}

// wroteRequest: the request is in the connection's write buffer, flushed
// to the socket right after (a body beyond the 4 KiB buffer has partly
// gone already). aiohttp likewise stamps each body chunk just before its
// write.
func (t *httpTrace) wroteRequest(info httptrace.WroteRequestInfo) {
	if info.Err == nil {
		t.sendEnd.Store(clock.Now())
		if n := t.owed.Swap(0); n > 0 {
			t.sentChunks.Add(1)
			t.sentBytes.Add(n)
		}
	}
	if t.wc != nil {
		t.wc.arm()
	}
}

// received counts one read of a streamed body that returned n > 0 bytes.
func (t *httpTrace) received(n int, now int64) {
	o := &t.out
	if o.ResponseChunks == 0 {
		o.ResponseReceiveStartNs = now
	}
	o.ResponseChunks++
	o.ResponseBytes += int64(n)
	o.ResponseReceiveEndNs = now
}

// receivedWhole records a body read in full as one chunk at its end, as
// aiohttp's read() reports a non-streamed body to the trace.
func (t *httpTrace) receivedWhole(n int, now int64) {
	o := &t.out
	o.ResponseChunks, o.ResponseBytes = 1, int64(n)
	o.ResponseReceiveStartNs, o.ResponseReceiveEndNs = now, now
}

// finish completes the trace and attaches it to rec.
func (t *httpTrace) finish(rec *sdk.RequestRecord) {
	o := &t.out
	o.RequestHeadersSentNs = t.headersSent.Load()
	o.RequestSendEndNs = t.sendEnd.Load()
	o.RequestChunks, o.RequestBytes = t.sentChunks.Load(), t.sentBytes.Load()
	o.ResponseHeadersReceivedNs = rec.AckPerfNs
	rec.HTTPTrace = o
}

// setBody gives hreq its body as http.NewRequest does (an in-memory reader,
// so net/http writes the headers and a small body in one write) and counts
// it per write of the request (AIPerf's request chunks and bytes: aiohttp
// counts each body write, not the request line and headers). A body is owed
// when the request is built and each time net/http asks GetBody for a new
// one (a 307/308 redirect, a retry on a stale connection); WroteRequest
// credits what is owed. A 301-303 redirect drops the body and owes nothing.
func (t *httpTrace) setBody(hreq *http.Request, body []byte) {
	if len(body) == 0 {
		hreq.Body, hreq.ContentLength = http.NoBody, 0
		hreq.GetBody = func() (io.ReadCloser, error) { return http.NoBody, nil }
		return
	}
	n := int64(len(body))
	t.owed.Store(n)
	hreq.Body, hreq.ContentLength = io.NopCloser(bytes.NewReader(body)), n
	hreq.GetBody = func() (io.ReadCloser, error) {
		t.owed.Store(n)
		return io.NopCloser(bytes.NewReader(body)), nil
	}
}
