package transport

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// seen is what a test server read and wrote for the last request.
type seen struct {
	bodyIn  atomic.Int64
	bodyOut atomic.Int64
}

// tracedServer streams parts (flushed, pause after each) after reading the
// whole request body, and counts the body bytes in and out.
func tracedServer(s *seen, parts ...part) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.bodyIn.Store(int64(len(b)))
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		out := 0
		for _, p := range parts {
			n, _ := w.Write([]byte(p.data))
			out += n
			w.(http.Flusher).Flush()
			time.Sleep(p.pause)
		}
		s.bodyOut.Store(int64(out))
	}
}

func mustTrace(t *testing.T, rec *sdk.RequestRecord) *sdk.HTTPTrace {
	t.Helper()
	mustNotFail(t, rec.Error)
	if rec.HTTPTrace == nil {
		t.Fatal("record has no HTTP trace")
	}
	return rec.HTTPTrace
}

// inOrder checks that stamps never go backwards.
func inOrder(t *testing.T, what string, stamps ...int64) {
	t.Helper()
	for i := 1; i < len(stamps); i++ {
		if stamps[i-1] <= 0 || stamps[i] < stamps[i-1] {
			t.Errorf("%s: stamps out of order or missing: %v", what, stamps)
			return
		}
	}
}

// A new connection is opened (pool wait, connect), a second request reuses
// it (no connect phase); body bytes and chunks match what the server read
// and wrote, one chunk per flushed part.
func TestHTTPTraceNewThenReusedConnection(t *testing.T) {
	var s seen
	const pause = 20 * time.Millisecond
	srv := httptest.NewServer(tracedServer(&s,
		part{data: "data: one\n\n", pause: pause},
		part{data: "data: two\n\n", pause: pause},
		part{data: "data: [DONE]\n\n"}))
	defer srv.Close()
	tr := newTransport(t, Options{MaxConnsPerHost: 4})
	body := []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hello"}]}`)
	req := &sdk.TransportRequest{URL: srv.URL, Body: body, Streaming: true}

	rec := send(t, tr, context.Background(), req)
	first := mustTrace(t, rec)
	if first.ConnectionReused {
		t.Error("first request: connection reported reused")
	}
	inOrder(t, "first request", rec.StartPerfNs, first.RequestSendStartNs, first.TCPConnectStartNs, first.TCPConnectEndNs,
		first.RequestHeadersSentNs, first.RequestSendEndNs, first.ResponseHeadersReceivedNs,
		first.ResponseReceiveStartNs, first.ResponseReceiveEndNs)
	if first.RequestSendStartNs != first.PoolWaitStartNs || first.PoolWaitEndNs != first.TCPConnectStartNs {
		t.Errorf("pool wait %d..%d, want from the send start %d to the connect start %d",
			first.PoolWaitStartNs, first.PoolWaitEndNs, first.RequestSendStartNs, first.TCPConnectStartNs)
	}
	if first.DNSLookupStartNs != 0 || first.TLSHandshakeStartNs != 0 {
		t.Errorf("an IP address over http: DNS %d, TLS %d, want neither", first.DNSLookupStartNs, first.TLSHandshakeStartNs)
	}
	// The last chunk is the last read with data; the end of the stream
	// (the chunked terminator) may come in a later read.
	if first.ResponseHeadersReceivedNs != rec.AckPerfNs || first.ResponseReceiveEndNs > rec.EndPerfNs {
		t.Errorf("headers %d / last chunk %d, want the record's ack %d / no later than its end %d",
			first.ResponseHeadersReceivedNs, first.ResponseReceiveEndNs, rec.AckPerfNs, rec.EndPerfNs)
	}
	if first.RequestBytes != int64(len(body)) || first.RequestBytes != s.bodyIn.Load() || first.RequestChunks != 1 {
		t.Errorf("request %d bytes in %d chunks; sent a %d-byte body, server read %d",
			first.RequestBytes, first.RequestChunks, len(body), s.bodyIn.Load())
	}
	if first.ResponseBytes != s.bodyOut.Load() || first.ResponseChunks != 3 {
		t.Errorf("response %d bytes in %d chunks, server wrote %d bytes in 3 flushes",
			first.ResponseBytes, first.ResponseChunks, s.bodyOut.Load())
	}
	if d := time.Duration(first.ResponseReceiveEndNs - first.ResponseReceiveStartNs); d < 2*pause {
		t.Errorf("receiving %v, want at least the two pauses (%v)", d, 2*pause)
	}

	rec = send(t, tr, context.Background(), req)
	second := mustTrace(t, rec)
	if !second.ConnectionReused {
		t.Error("second request: connection not reused")
	}
	if second.TCPConnectStartNs != 0 || second.TCPConnectEndNs != 0 || second.DNSLookupStartNs != 0 {
		t.Errorf("reused connection has connect stamps: %+v", second)
	}
	inOrder(t, "second request", second.RequestSendStartNs, second.PoolWaitEndNs, second.RequestHeadersSentNs,
		second.RequestSendEndNs, second.ResponseReceiveStartNs, second.ResponseReceiveEndNs)
	if second.PoolWaitStartNs != second.RequestSendStartNs {
		t.Errorf("pool wait starts at %d, want the send start %d", second.PoolWaitStartNs, second.RequestSendStartNs)
	}
	if second.RequestBytes != int64(len(body)) || second.ResponseBytes != s.bodyOut.Load() {
		t.Errorf("second request: %d bytes out, %d in; want %d and %d", second.RequestBytes, second.ResponseBytes, len(body), s.bodyOut.Load())
	}
}

// A host name is resolved before the connect; the lookup is part of the
// connect phase, as in aiohttp's connection_create_start/end.
func TestHTTPTraceDNSLookup(t *testing.T) {
	if _, err := net.LookupHost("localhost"); err != nil {
		t.Skipf("localhost does not resolve: %v", err)
	}
	var s seen
	srv := httptest.NewServer(tracedServer(&s, part{data: "data: x\n\n"}))
	defer srv.Close()
	url := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	rec := send(t, newTransport(t, Options{}), context.Background(), &sdk.TransportRequest{URL: url, Streaming: true})
	if rec.Error != nil {
		t.Skipf("localhost does not reach the IPv4 test server: %+v", rec.Error)
	}
	tc := mustTrace(t, rec)
	inOrder(t, "lookup", tc.RequestSendStartNs, tc.DNSLookupStartNs, tc.DNSLookupEndNs, tc.TCPConnectEndNs)
	if tc.TCPConnectStartNs != tc.DNSLookupStartNs {
		t.Errorf("connect starts at %d, want the lookup's start %d", tc.TCPConnectStartNs, tc.DNSLookupStartNs)
	}
}

// Over https the connect phase includes the TLS handshake.
func TestHTTPTraceTLSHandshakeInConnect(t *testing.T) {
	var s seen
	srv := httptest.NewTLSServer(tracedServer(&s, part{data: "data: x\n\n"}))
	defer srv.Close()
	tr := newTransport(t, Options{InsecureSkipVerify: true})
	tc := mustTrace(t, send(t, tr, context.Background(), &sdk.TransportRequest{URL: srv.URL, Streaming: true, Body: []byte("{}")}))
	inOrder(t, "https", tc.TCPConnectStartNs, tc.TLSHandshakeStartNs, tc.TLSHandshakeEndNs, tc.TCPConnectEndNs, tc.RequestSendEndNs)
	if tc.ConnectionReused || tc.RequestBytes != 2 || tc.ResponseBytes != s.bodyOut.Load() {
		t.Errorf("https trace %+v; server wrote %d", tc, s.bodyOut.Load())
	}
	again := mustTrace(t, send(t, tr, context.Background(), &sdk.TransportRequest{URL: srv.URL, Streaming: true}))
	if !again.ConnectionReused || again.TLSHandshakeStartNs != 0 || again.TCPConnectStartNs != 0 {
		t.Errorf("reused https connection: %+v", again)
	}
	if again.RequestBytes != 0 || again.RequestChunks != 0 {
		t.Errorf("empty body: %d bytes in %d chunks", again.RequestBytes, again.RequestChunks)
	}
}

// With every connection busy (one per host) a request waits in the pool
// until the other returns its connection, then reuses it.
func TestHTTPTracePoolWait(t *testing.T) {
	const hold = 100 * time.Millisecond
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(hold)
		_, _ = io.WriteString(w, "{}")
	}))
	defer srv.Close()
	tr := newTransport(t, Options{MaxConnsPerHost: 1})
	recs := make([]*sdk.RequestRecord, 2)
	var wg sync.WaitGroup
	for i := range recs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * 20 * time.Millisecond)
			recs[i] = send(t, tr, context.Background(), &sdk.TransportRequest{URL: srv.URL})
		}()
	}
	wg.Wait()
	waiter := mustTrace(t, recs[1])
	if !waiter.ConnectionReused {
		t.Errorf("the waiting request did not get the pooled connection: %+v", waiter)
	}
	if w := time.Duration(waiter.PoolWaitEndNs - waiter.PoolWaitStartNs); w < hold/2 {
		t.Errorf("pool wait %v, want most of the other request's %v", w, hold)
	}
}

// A non-streamed body (and an error body) is one chunk at its end, as
// aiohttp's read() reports it; no response, no trace.
func TestHTTPTraceWholeBodiesAndFailures(t *testing.T) {
	body := strings.Repeat("x", 200_000) // many reads
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/err" {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, body)
	}))
	defer srv.Close()
	tr := newTransport(t, Options{})

	rec := send(t, tr, context.Background(), &sdk.TransportRequest{URL: srv.URL})
	tc := mustTrace(t, rec)
	if tc.ResponseChunks != 1 || tc.ResponseBytes != int64(len(body)) ||
		tc.ResponseReceiveStartNs != rec.EndPerfNs || tc.ResponseReceiveEndNs != rec.EndPerfNs {
		t.Errorf("whole body: %d chunks, %d bytes, %d..%d; want 1 chunk of %d at the end %d",
			tc.ResponseChunks, tc.ResponseBytes, tc.ResponseReceiveStartNs, tc.ResponseReceiveEndNs, len(body), rec.EndPerfNs)
	}

	rec = send(t, tr, context.Background(), &sdk.TransportRequest{URL: srv.URL + "/err"})
	if rec.Error == nil || rec.HTTPTrace == nil || rec.HTTPTrace.ResponseChunks != 1 || rec.HTTPTrace.ResponseBytes != int64(len("boom\n")) {
		t.Errorf("HTTP 500: error %+v, trace %+v", rec.Error, rec.HTTPTrace)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	reused := &sdk.RequestRecord{HTTPTrace: &sdk.HTTPTrace{RequestBytes: 1}}
	tr.Send(context.Background(), &sdk.TransportRequest{URL: "http://" + addr}, reused)
	if reused.Error == nil || reused.HTTPTrace != nil {
		t.Errorf("refused connection: error %+v, trace %+v; want an error and no trace", reused.Error, reused.HTTPTrace)
	}
}

// A 307 redirect resends the body: both writes count, the send start is the
// first hop's and the connection fields are the last hop's.
func TestHTTPTraceRedirectCountsEveryHop(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		http.Redirect(w, r, "/new", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/new", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, "{}")
	})
	mux.HandleFunc("/see-other", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		http.Redirect(w, r, "/new", http.StatusSeeOther)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	tr := newTransport(t, Options{})
	rec := send(t, tr, context.Background(), &sdk.TransportRequest{URL: srv.URL + "/old", Body: []byte("payload")})
	tc := mustTrace(t, rec)
	if tc.RequestBytes != 2*int64(len("payload")) || tc.RequestChunks != 2 {
		t.Errorf("307: %d bytes in %d chunks, want the body twice", tc.RequestBytes, tc.RequestChunks)
	}
	if !tc.ConnectionReused || tc.RequestSendStartNs >= tc.PoolWaitStartNs {
		t.Errorf("307: second hop on the kept-alive connection, send start before its pool wait: %+v", tc)
	}
	// 303 turns the POST into a GET without a body: the body went once.
	tc = mustTrace(t, send(t, tr, context.Background(), &sdk.TransportRequest{URL: srv.URL + "/see-other", Body: []byte("payload")}))
	if tc.RequestBytes != int64(len("payload")) || tc.RequestChunks != 1 {
		t.Errorf("303: %d bytes in %d chunks, want the body once", tc.RequestBytes, tc.RequestChunks)
	}
}

func TestPlainHTTPToIP(t *testing.T) {
	for url, want := range map[string]bool{
		"http://127.0.0.1:8000/v1/chat/completions": true,
		"HTTP://10.0.0.1":                 true,
		"http://[::1]:8000/v1":            true,
		"http://user:pw@127.0.0.1:80?x=1": true,
		"http://localhost:8000/v1":        false,
		"https://127.0.0.1:8443/v1":       false,
		"http://[::1":                     false,
		"http://example.com":              false,
		"http:/":                          false,
	} {
		if got := plainHTTPToIP(url); got != want {
			t.Errorf("plainHTTPToIP(%q) = %v, want %v", url, got, want)
		}
	}
}
