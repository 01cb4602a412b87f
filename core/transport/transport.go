// Package transport is aiperf's built-in HTTP transport: it sends one request,
// timestamps the response on the process clock and splits a text/event-stream
// body into SSE events as they arrive. It sits inside the timed window, so the
// read path allocates per stream, not per event.
package transport

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aiperf-go/aiperf/core/clock"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Name is the transport's plugin name (--transport http).
const Name = "http"

var (
	_ sdk.Transport   = (*HTTPTransport)(nil)
	_ sdk.Initializer = (*HTTPTransport)(nil)
	_ io.Closer       = (*HTTPTransport)(nil)
)

// HTTPTransport sends requests over one shared, load-tuned net/http client.
// It is safe for concurrent use.
type HTTPTransport struct {
	opts    Options
	client  *http.Client
	tr      *http.Transport
	bufs    sync.Pool // *[]byte read buffers of opts.ReadBufferSize
	parsers sync.Pool // *SSEParser with warm scratch buffers
	// sticky holds one single-connection client per ConnectionKey (sticky
	// user sessions), dropped when the session's last request closes it.
	sticky sync.Map // string -> *http.Client
	// envRead and envErr: AIPERF_HTTP_* read once by PluginConfig (netconfig.go).
	envRead bool
	envErr  error
}

// New returns a transport tuned by opts.
func New(opts Options) *HTTPTransport {
	opts = opts.withDefaults()
	t := &HTTPTransport{opts: opts}
	t.client, t.tr = newHTTPClient(opts)
	t.bufs.New = func() any {
		b := make([]byte, opts.ReadBufferSize)
		return &b
	}
	t.parsers.New = func() any { return new(SSEParser) }
	return t
}

// Init sizes the pool to the run: one connection per request the run may
// have in flight (unbounded for open loops without a ceiling), and the
// request timeout. It replaces the client New built, so call it before the
// first Send.
func (t *HTTPTransport) Init(_ context.Context, run sdk.RunInfo) error {
	t.PluginConfig() // reads AIPERF_HTTP_* when no --plugin-config did
	o := t.opts
	o.MaxConnsPerHost, o.Timeout = run.MaxConcurrency, run.RequestTimeout
	o = o.withDefaults()
	t.opts = o
	t.client, t.tr = newHTTPClient(o)
	return nil
}

// Close drops idle keep-alive connections. Requests in flight finish.
func (t *HTTPTransport) Close() error {
	t.tr.CloseIdleConnections()
	t.sticky.Range(func(k, v any) bool {
		v.(*http.Client).CloseIdleConnections()
		t.sticky.Delete(k)
		return true
	})
	return nil
}

// clientFor returns the shared pooled client, or the session's own
// single-connection client when the request is pinned to a key.
func (t *HTTPTransport) clientFor(req *sdk.TransportRequest) *http.Client {
	if req.ConnectionKey == "" {
		return t.client
	}
	if c, ok := t.sticky.Load(req.ConnectionKey); ok {
		return c.(*http.Client)
	}
	o := t.opts
	o.MaxConnsPerHost = 1
	c, _ := newHTTPClient(o)
	actual, _ := t.sticky.LoadOrStore(req.ConnectionKey, c)
	return actual.(*http.Client)
}

// ReleaseConnection drops a sticky session's client and its connection; the
// engine calls it when a session ends, however it ended (a failed or
// cancelled turn ends a session before its last turn).
func (t *HTTPTransport) ReleaseConnection(key string) {
	if c, ok := t.sticky.LoadAndDelete(key); ok {
		c.(*http.Client).CloseIdleConnections()
	}
}

// release forgets a sticky session's client after its last request.
func (t *HTTPTransport) release(req *sdk.TransportRequest, c *http.Client) {
	if req.ConnectionKey != "" && req.CloseConnection {
		t.sticky.Delete(req.ConnectionKey)
		c.CloseIdleConnections()
	}
}

// Send performs req and fills rec's timing, status, responses and error.
// It never returns early on ctx: a cancelled run yields a 499
// RequestCancellationError record with WasCancelled set.
//
// rec.Streaming ends up true when the body was read as an SSE stream (the
// response's Content-Type is text/event-stream), whatever the request
// asked; it stays req.Streaming when no response arrived.
//
// A FormData request goes out as multipart/form-data (form.go); a Poll
// request is an asynchronous job, submitted and then followed (poll.go).
func (t *HTTPTransport) Send(ctx context.Context, req *sdk.TransportRequest, rec *sdk.RequestRecord) {
	if req.Poll != nil {
		t.sendJob(ctx, req, rec)
		return
	}
	t.send(ctx, req, rec)
}

// send performs one request as Send describes and returns the response's
// Content-Type ("" when no response arrived).
func (t *HTTPTransport) send(ctx context.Context, req *sdk.TransportRequest, rec *sdk.RequestRecord) (contentType string) {
	// Send owns these fields; clearing them makes a reused record safe.
	rec.Streaming, rec.Status, rec.Responses, rec.Error = req.Streaming, 0, nil, nil
	rec.AckPerfNs, rec.EndPerfNs = 0, 0
	rec.WasCancelled, rec.CancellationTimeNs = false, 0
	rec.HTTPTrace = nil

	timeout := req.Timeout
	if timeout <= 0 {
		timeout = t.opts.Timeout
	}
	// A scheduled cancellation (--request-cancellation-rate) is a run-level
	// cancel for this request alone, timed from when its body was written.
	var wc *writeCanceller
	if req.CancelAtSend || req.CancelAfterSent > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		wc = cancelAfterWrite(req.CancelAfterSent, cancel)
		defer wc.stop()
	}
	// The HTTP trace (http_req_* metrics) is always on, as in AIPerf.
	trace := newHTTPTrace(wc, req.URL, t.opts.UseEnvProxy)
	ctx = httptrace.WithClientTrace(ctx, &trace.ct)
	reqCtx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		reqCtx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}

	if req.FormData {
		form, err := formRequest(req)
		if err != nil {
			failBeforeSend(rec, ErrTypeFormData, err)
			return ""
		}
		req = form
	}
	hreq, err := newHTTPRequest(reqCtx, req, trace)
	if err != nil {
		failBeforeSend(rec, ErrTypeInvalidURL, err)
		return ""
	}

	start := clock.Now()
	rec.StartPerfNs, rec.TimestampNs = start, clock.WallNs(start)
	client := t.clientFor(req)
	defer t.release(req, client)
	resp, err := client.Do(hreq)
	if err != nil {
		failRecord(ctx, reqCtx, rec, err, stageConnect, timeout)
		return ""
	}
	defer resp.Body.Close()
	rec.AckPerfNs = clock.Now()
	rec.Status = resp.StatusCode

	r := bodyRead{t: t, onEvent: req.OnEvent, ctx: ctx, reqCtx: reqCtx, rec: rec, resp: resp, timeout: timeout, trace: trace}
	switch {
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		r.readError()
	case isEventStream(resp.Header.Get("Content-Type")):
		rec.Streaming = true
		r.readSSE()
	default:
		rec.Streaming = false
		r.readWhole()
	}
	trace.finish(rec)
	return resp.Header.Get("Content-Type")
}

// failBeforeSend records a request that could not be built.
func failBeforeSend(rec *sdk.RequestRecord, errType string, err error) {
	now := clock.Now()
	rec.StartPerfNs, rec.TimestampNs, rec.EndPerfNs = now, clock.WallNs(now), now
	rec.Error = &sdk.ErrorDetails{Type: errType, Message: err.Error()}
}

// newHTTPRequest builds the wire request with exactly the caller's headers:
// Go adds no Accept-Encoding (compression is off) and no User-Agent (an
// empty value suppresses its default).
// trace counts the body per write of the request.
func newHTTPRequest(ctx context.Context, req *sdk.TransportRequest, trace *httpTrace) (*http.Request, error) {
	method := req.Method
	if method == "" {
		method = http.MethodPost
	}
	hreq, err := http.NewRequestWithContext(ctx, method, req.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("invalid request: %w", err)
	}
	trace.setBody(hreq, req.Body)
	if hreq.URL.Scheme != "http" && hreq.URL.Scheme != "https" {
		return nil, fmt.Errorf("invalid request URL %q: scheme must be http or https", req.URL)
	}
	if hreq.URL.Host == "" {
		return nil, fmt.Errorf("invalid request URL %q: no host", req.URL)
	}
	h := make(http.Header, len(req.Headers)+1)
	vals := make([]string, 0, len(req.Headers)+1) // one backing array for all values
	set := func(k, v string) {
		vals = append(vals, v)
		h[k] = vals[len(vals)-1 : len(vals) : len(vals)]
	}
	for k, v := range req.Headers {
		if strings.EqualFold(k, "Host") {
			hreq.Host = v
			continue
		}
		set(http.CanonicalHeaderKey(k), v)
	}
	if _, ok := h["User-Agent"]; !ok {
		set("User-Agent", "")
	}
	hreq.Header = h
	// The connection is not returned to the pool (connection reuse "never",
	// or the end of a sticky session).
	hreq.Close = req.CloseConnection
	return hreq, nil
}

// isEventStream reports whether a Content-Type is text/event-stream,
// ignoring parameters and case, without allocating.
func isEventStream(contentType string) bool {
	if i := strings.IndexByte(contentType, ';'); i >= 0 {
		contentType = contentType[:i]
	}
	return strings.EqualFold(strings.TrimSpace(contentType), "text/event-stream")
}

// writeCanceller cancels a request a fixed delay after its body was written.
type writeCanceller struct {
	delay  time.Duration
	cancel context.CancelFunc
	once   sync.Once
	timer  atomic.Pointer[time.Timer]
}

func cancelAfterWrite(delay time.Duration, cancel context.CancelFunc) *writeCanceller {
	return &writeCanceller{delay: delay, cancel: cancel}
}

// arm starts the countdown; only the first call counts (a retried write
// after a stale keep-alive connection does not restart it).
func (w *writeCanceller) arm() {
	w.once.Do(func() {
		if w.delay <= 0 {
			w.cancel()
			return
		}
		w.timer.Store(time.AfterFunc(w.delay, w.cancel))
	})
}

// stop releases the timer when the request ended first.
func (w *writeCanceller) stop() {
	if t := w.timer.Load(); t != nil {
		t.Stop()
	}
}
