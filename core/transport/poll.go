package transport

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aiperf-go/aiperf/core/clock"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"

	"github.com/aiperf-go/aiperf/internal/pyfmt"
)

// Error types and codes of the job flow, as AIPerf's aiohttp transport
// reports them (_send_video_request_with_polling and its helpers).
const (
	ErrTypeVideoGeneration = "VideoGenerationError"
	ErrTypeVideoDownload   = "VideoDownloadError"
	codeJobError           = 500
	codeJobTimeout         = 504
	// DefaultPollInterval is AIPerf's AIPERF_HTTP_VIDEO_POLL_INTERVAL
	// default, used when a PollSpec has no interval.
	DefaultPollInterval = 100 * time.Millisecond
	// snippetChars is how much of a bad job answer an error quotes.
	snippetChars = 200
)

// Job statuses (AIPerf's VideoJobStatus; other values keep polling).
const (
	jobCompleted = "completed"
	jobFailed    = "failed"
)

// job follows one asynchronous job after its submit request.
type job struct {
	t       *HTTPTransport
	ctx     context.Context // the run's: done means cancelled
	rec     *sdk.RequestRecord
	spec    *sdk.PollSpec
	timeout time.Duration
	// headers are the submit's minus Content-Type (AIPerf reuses its
	// header dict, which never held the form's content type).
	headers map[string]string
}

// sendJob runs req as AIPerf runs a video generation request:
//
//  1. POST the body (send: HTTP trace, status and the submit answer are
//     the submit request's); the JSON answer must carry "id";
//  2. GET <URL>/<id> at once, then every Interval after each answer, until
//     "status" is completed (any case); failed is an error; the whole job,
//     from the submit's start, is bounded by the request timeout;
//  3. with DownloadContent, GET the answer's "url" (else <URL>/<id>/content),
//     which must be binary, and drop the bytes.
//
// The record's responses are the submit answer and the final poll answer,
// stamped when each was read: request latency ends at the final poll, so
// the download is not in it. EndPerfNs is when everything ended.
func (t *HTTPTransport) sendJob(ctx context.Context, req *sdk.TransportRequest, rec *sdk.RequestRecord) {
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = t.opts.Timeout
	}
	submitType := t.send(ctx, req, rec)
	if rec.Error != nil {
		return
	}
	j := &job{t: t, ctx: ctx, rec: rec, spec: req.Poll, timeout: timeout, headers: withoutContentType(req.Headers, 0)}
	if j.run(req.URL, submitType) {
		rec.Status = http.StatusOK // AIPerf records a finished job as 200
	}
	rec.EndPerfNs = clock.Now()
	// A job spans several HTTP exchanges, so no one exchange's trace or ack
	// describes it: AIPerf's video records have neither request_ack_ns nor
	// http_req_* metrics, and so do ours.
	rec.HTTPTrace, rec.AckPerfNs = nil, 0
}

// run follows the job; it reports whether it completed (else rec.Error is set).
func (j *job) run(submitURL, submitType string) bool {
	rec := j.rec
	answer, errd := j.submitAnswer(submitType)
	if errd != nil {
		// AIPerf keeps no response of a submit it could not use.
		rec.Responses, rec.Error = nil, errd
		return false
	}
	idv, _ := answer.get("id")
	if !pyTruthy(idv) {
		rec.Responses = nil
		rec.Error = &sdk.ErrorDetails{Code: codeJobError, Type: ErrTypeVideoGeneration, Message: "No job ID returned: " + pyRepr(answer)}
		return false
	}
	id := pyStr(idv)
	pollURL, contentURL := jobURLs(submitURL, id)

	final, finalAnswer, errd := j.poll(pollURL)
	if errd != nil {
		rec.Error = errd
		return false
	}
	rec.Responses = append(rec.Responses, final)
	if !j.spec.DownloadContent {
		return true
	}
	if errd = j.download(id, contentURL, pollURL, finalAnswer); errd != nil {
		rec.Error = errd
		return false
	}
	return true
}

// submitAnswer checks the submit's answer: one JSON object.
func (j *job) submitAnswer(contentType string) (pyDict, *sdk.ErrorDetails) {
	rec := j.rec
	if len(rec.Responses) == 0 {
		return nil, &sdk.ErrorDetails{Code: codeJobError, Type: ErrTypeVideoGeneration, Message: "No response from video submit"}
	}
	if rec.Streaming {
		contentType = "text/event-stream" // parsed as SSE events, not a body
	}
	return jobAnswer("submit", rec.Status, contentType, rec.Responses[0].Data)
}

// poll polls until the job completed and returns the final answer, as
// received and decoded.
func (j *job) poll(pollURL string) (sdk.Response, pyDict, *sdk.ErrorDetails) {
	ctx, cancel := j.ctx, context.CancelFunc(func() {})
	if j.timeout > 0 {
		left := time.Duration(j.rec.StartPerfNs + int64(j.timeout) - clock.Now())
		ctx, cancel = context.WithTimeout(j.ctx, left)
	}
	defer cancel()
	interval := j.spec.Interval
	if interval <= 0 {
		interval = DefaultPollInterval
	}
	for {
		got := j.get(ctx, pollURL, false)
		if got.err != nil {
			return sdk.Response{}, nil, j.failure(ctx, got)
		}
		if got.httpErr != nil {
			return sdk.Response{}, nil, got.httpErr
		}
		answer, errd := jobAnswer("poll", got.status, got.contentType, got.body)
		if errd != nil {
			return sdk.Response{}, nil, errd
		}
		status, _ := answer.get("status")
		switch s, _ := status.(string); normalizeStatus(s) {
		case jobCompleted:
			return sdk.Response{PerfNs: got.endNs, Data: got.body}, answer, nil
		case jobFailed:
			return sdk.Response{}, nil, &sdk.ErrorDetails{Code: codeJobError, Type: ErrTypeVideoGeneration,
				Message: "Video generation failed: " + failureMessage(answer)}
		}
		if !clock.Sleep(ctx, interval) {
			return sdk.Response{}, nil, j.failure(ctx, fetched{err: ctx.Err()})
		}
	}
}

// download fetches the finished video and discards it. It has the request
// timeout of its own, as AIPerf's download request does.
func (j *job) download(id, contentURL, pollURL string, final pyDict) *sdk.ErrorDetails {
	target := contentURL
	if u, _ := final.get("url"); pyTruthy(u) {
		target = resolveURL(pollURL, pyStr(u))
	}
	ctx, cancel := j.ctx, context.CancelFunc(func() {})
	if j.timeout > 0 {
		ctx, cancel = context.WithTimeout(j.ctx, j.timeout)
	}
	defer cancel()
	got := j.get(ctx, target, true)
	switch {
	case got.err != nil && j.ctx.Err() != nil:
		return j.cancelled()
	case got.err != nil || got.httpErr != nil:
		cause := got.httpErr
		if cause == nil {
			var scratch sdk.RequestRecord
			failRecord(j.ctx, ctx, &scratch, got.err, got.stage, j.timeout)
			cause = scratch.Error
		}
		code := got.status
		if code == 0 {
			code = codeJobError
		}
		return &sdk.ErrorDetails{Code: code, Type: ErrTypeVideoDownload,
			Message: fmt.Sprintf("Failed to download video %s: %s", id, pyErrorDetails(cause))}
	case !isBinaryContent(got.contentType):
		return &sdk.ErrorDetails{Code: codeJobError, Type: ErrTypeVideoDownload, Message: "No content returned for video " + id}
	}
	return nil
}

// failure is the error of a poll that got no answer: the run cancelled
// it, the job ran out of time, or the connection failed.
func (j *job) failure(ctx context.Context, got fetched) *sdk.ErrorDetails {
	switch {
	case j.ctx.Err() != nil:
		return j.cancelled()
	case ctx.Err() != nil:
		return &sdk.ErrorDetails{Code: codeJobTimeout, Type: ErrTypeTimeout,
			Message: fmt.Sprintf("Video generation timed out after %ss", pyfmt.Float(j.timeout.Seconds()))}
	}
	return &sdk.ErrorDetails{Type: classify(got.err, got.stage), Message: errorText(got.err)}
}

// cancelled marks the record cancelled by the run, as failRecord does.
func (j *job) cancelled() *sdk.ErrorDetails {
	var scratch sdk.RequestRecord
	scratch.StartPerfNs = j.rec.StartPerfNs
	failRecord(j.ctx, j.ctx, &scratch, j.ctx.Err(), stageConnect, j.timeout)
	j.rec.WasCancelled, j.rec.CancellationTimeNs = true, scratch.CancellationTimeNs
	return scratch.Error
}

// fetched is the outcome of one GET of the job flow.
type fetched struct {
	err         error // no (complete) answer
	stage       stage
	status      int
	httpErr     *sdk.ErrorDetails // a non-2xx answer
	contentType string
	body        []byte
	endNs       int64 // when the body had been read
}

// get GETs rawURL with the job's headers on the shared pool (AIPerf's
// polls and download use the shared connector, whatever the submit used).
// With discard the body is drained, not kept.
func (j *job) get(ctx context.Context, rawURL string, discard bool) fetched {
	hreq, err := newHTTPRequest(ctx, &sdk.TransportRequest{URL: rawURL, Method: http.MethodGet, Headers: j.headers}, &httpTrace{})
	if err != nil {
		return fetched{err: err}
	}
	resp, err := j.t.client.Do(hreq)
	if err != nil {
		return fetched{err: err}
	}
	defer resp.Body.Close()
	decodeBody(resp)
	out := fetched{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), stage: stageBody}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		out.httpErr = httpError(resp, body)
		return out
	}
	if discard {
		_, err = io.Copy(io.Discard, resp.Body)
	} else {
		out.body, err = io.ReadAll(resp.Body)
	}
	out.endNs = clock.Now()
	out.err = err
	return out
}

// jobAnswer decodes a submit or poll answer, failing as AIPerf's
// _parse_video_response does: a binary or SSE answer, invalid JSON, and
// (AIPerf's dict lookup on it raising) JSON that is not an object.
func jobAnswer(kind string, status int, contentType string, body []byte) (pyDict, *sdk.ErrorDetails) {
	if isBinaryContent(contentType) || isEventStream(contentType) {
		return nil, &sdk.ErrorDetails{Code: codeJobError, Type: ErrTypeVideoGeneration, Message: "Unexpected response type from video " + kind}
	}
	v, err := decodePy(body)
	if err != nil {
		return nil, &sdk.ErrorDetails{Code: codeJobError, Type: ErrTypeVideoGeneration,
			Message: fmt.Sprintf("Invalid JSON in video %s response (status %d): %s", kind, status, snippet(body))}
	}
	obj, ok := v.(pyDict)
	if !ok {
		return nil, &sdk.ErrorDetails{Type: "AttributeError",
			Message: fmt.Sprintf(`AttributeError("'%s' object has no attribute 'get'")`, pyTypeName(v))}
	}
	return obj, nil
}

// failureMessage is the reason of a failed job: error.message (or
// "Unknown error") when error is an object, else str(error).
func failureMessage(answer pyDict) string {
	errv, ok := answer.get("error")
	if !ok {
		return "Unknown error"
	}
	if d, ok := errv.(pyDict); ok {
		if msg, ok := d.get("message"); ok {
			return pyStr(msg)
		}
		return "Unknown error"
	}
	return pyStr(errv)
}

// normalizeStatus is how AIPerf's case-insensitive enum compares: lower
// case, dashes as underscores.
func normalizeStatus(s string) string {
	return strings.ReplaceAll(strings.ToLower(s), "-", "_")
}

// jobURLs derives the poll URL (<submit URL without trailing slashes>/<id>)
// and the default content URL (<poll URL>/content). A query string stays
// at the end (AIPerf appends to the whole URL, query included, which no
// server could route).
func jobURLs(submitURL, id string) (pollURL, contentURL string) {
	base, rest := submitURL, ""
	if i := strings.IndexAny(submitURL, "?#"); i >= 0 {
		base, rest = submitURL[:i], submitURL[i:]
	}
	base = strings.TrimRight(base, "/") + "/" + id
	return base + rest, base + "/content" + rest
}

// resolveURL resolves a result URL the server gave against the poll URL,
// so a path-only URL reaches the same server.
func resolveURL(pollURL, ref string) string {
	base, err := url.Parse(pollURL)
	if err != nil {
		return ref
	}
	r, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	return base.ResolveReference(r).String()
}

// isBinaryContent reports aiohttp's binary content types: video/*,
// image/*, audio/* and application/octet-stream.
func isBinaryContent(contentType string) bool {
	if i := strings.IndexByte(contentType, ';'); i >= 0 {
		contentType = contentType[:i]
	}
	ct := strings.ToLower(strings.TrimSpace(contentType))
	return strings.HasPrefix(ct, "video/") || strings.HasPrefix(ct, "image/") ||
		strings.HasPrefix(ct, "audio/") || ct == "application/octet-stream"
}

// snippet is the start of a bad answer for an error message.
func snippet(body []byte) string {
	if len(body) == 0 {
		return "<empty>"
	}
	s := strings.ToValidUTF8(string(body), "\uFFFD")
	if utf8.RuneCountInString(s) <= snippetChars {
		return s
	}
	n := 0
	for i := range s {
		if n == snippetChars {
			return s[:i]
		}
		n++
	}
	return s
}

// pyErrorDetails is AIPerf's str() of an ErrorDetails, as its download
// error quotes the failed request's error.
func pyErrorDetails(e *sdk.ErrorDetails) string {
	code := "None"
	if e.Code != 0 {
		code = fmt.Sprint(e.Code)
	}
	return fmt.Sprintf("code=%s type=%s message=%s cause=None cause_chain=None details=None", code, pyQuote(e.Type), pyQuote(e.Message))
}
