package transport

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/aiperf-go/aiperf/core/clock"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// maxPrealloc bounds the buffer preallocated from a Content-Length header,
// which a server could set to anything.
const maxPrealloc = 16 << 20

// initialEvents is the starting capacity of a stream's response slice.
const initialEvents = 32

// bodyRead reads one response body into its record.
type bodyRead struct {
	t *HTTPTransport
	// onEvent is the request's OnEvent hook, cleared once it reports done.
	onEvent func([]byte) bool
	ctx     context.Context // the run's context: done means cancelled
	reqCtx  context.Context // carries the per-request timeout
	rec     *sdk.RequestRecord
	resp    *http.Response
	timeout time.Duration
	trace   *httpTrace // counts the body's chunks and bytes
}

func (r *bodyRead) fail(err error) {
	failRecord(r.ctx, r.reqCtx, r.rec, err, stageBody, r.timeout)
}

// readSSE parses the body as an event stream. Each event is stamped with
// the time of the Read that delivered its first byte (decoded: encoding.go);
// EndPerfNs is the time EOF was seen. An error event ends the read and fails the record, keeping
// the events before it.
func (r *bodyRead) readSSE() {
	decodeBody(r.resp)
	bp := r.t.bufs.Get().(*[]byte)
	defer r.t.bufs.Put(bp)
	p := r.t.parsers.Get().(*SSEParser)
	p.Reset()
	defer func() {
		p.Reset() // drop the slab so pooled parsers do not pin payloads
		r.t.parsers.Put(p)
	}()

	buf, rec := *bp, r.rec
	// Typical streams have tens of events: start with room for them rather
	// than growing from one.
	rec.Responses = make([]sdk.Response, 0, initialEvents)
	for {
		n, err := r.resp.Body.Read(buf)
		now := clock.Now()
		if n > 0 {
			r.trace.received(n, now)
			from := len(rec.Responses)
			rec.Responses = p.Feed(rec.Responses, buf[:n], now)
			if r.sseFailed(p, from, now) {
				return
			}
			r.notify(from)
		}
		if errors.Is(err, io.EOF) {
			from := len(rec.Responses)
			rec.Responses = p.Finish(rec.Responses)
			if !r.sseFailed(p, from, now) {
				rec.EndPerfNs = now
			}
			return
		}
		if err != nil {
			r.fail(err)
			return
		}
	}
}

// notify passes the events appended since from to the OnEvent hook until it
// reports done.
func (r *bodyRead) notify(from int) {
	for i := from; r.onEvent != nil && i < len(r.rec.Responses); i++ {
		if r.onEvent(r.rec.Responses[i].Data) {
			r.onEvent = nil
		}
	}
}

// sseFailed checks the events appended since from for an SSE error; on the
// first it fails the record and drops that event and any after it, as
// AIPerf stops at the error.
func (r *bodyRead) sseFailed(p *SSEParser, from int, now int64) bool {
	comment, hasComment := p.ErrorComment()
	for i := from; i < len(r.rec.Responses); i++ {
		if e := sseError(&r.rec.Responses[i], comment, hasComment); e != nil {
			r.rec.Error = e
			r.rec.Responses = r.rec.Responses[:i]
			r.rec.EndPerfNs = now
			return true
		}
	}
	return false
}

// readWhole reads a non-SSE body as one response stamped at its end, as
// AIPerf stamps a non-streaming response when the body is complete: the
// request latency of a non-streaming request includes the body transfer.
func (r *bodyRead) readWhole() {
	decodeBody(r.resp)
	size := int64(512)
	if cl := r.resp.ContentLength; cl >= 0 {
		size = min(cl, maxPrealloc) + 1 // +1 so EOF needs no regrow
	}
	data := make([]byte, 0, size)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := r.resp.Body.Read(data[len(data):cap(data)])
		now := clock.Now()
		data = data[:len(data)+n]
		if errors.Is(err, io.EOF) {
			r.rec.Responses = append(r.rec.Responses, sdk.Response{PerfNs: now, Data: data[:len(data):len(data)]})
			r.rec.EndPerfNs = now
			r.trace.receivedWhole(len(data), now)
			return
		}
		if err != nil {
			r.fail(err)
			return
		}
	}
}

// readError records a non-2xx response: code and reason phrase, with the
// body (up to 64 KiB) as the message. A body cut short by an I/O error
// still yields the HTTP error with what arrived.
func (r *bodyRead) readError() {
	decodeBody(r.resp)
	body, err := io.ReadAll(io.LimitReader(r.resp.Body, maxErrorBody))
	r.rec.EndPerfNs = clock.Now()
	r.rec.Error = httpError(r.resp, body)
	if err == nil {
		r.trace.receivedWhole(len(body), r.rec.EndPerfNs)
	}
}
