package transport

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/aiperf-go/aiperf/core/clock"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Error types. AIPerf records the Python exception class name as the type,
// so transport failures carry the aiohttp class a Python run would show.
const (
	ErrTypeCancelled          = "RequestCancellationError"
	ErrTypeTimeout            = "TimeoutError"
	ErrTypeConnect            = "ClientConnectorError"
	ErrTypeCertificate        = "ClientConnectorCertificateError"
	ErrTypeServerDisconnected = "ServerDisconnectedError"
	// ErrTypeOS is a socket error before the response (a reset):
	// aiohttp raises ClientOSError when the connection is lost with an
	// OSError, ServerDisconnectedError when it is closed cleanly.
	ErrTypeOS               = "ClientOSError"
	ErrTypePayload          = "ClientPayloadError"
	ErrTypeTooManyRedirects = "TooManyRedirects"
	ErrTypeInvalidURL       = "InvalidURL"
	ErrTypeClient           = "ClientError"
	ErrTypeSSE              = "SSEResponseError"
)

const (
	// CodeCancelled is nginx's "client closed request", AIPerf's cancel code.
	CodeCancelled = 499
	// codeSSEError is AIPerf's SSEResponseError default code.
	codeSSEError = 502
	// maxErrorBody bounds the body kept as a non-2xx error message.
	maxErrorBody = 64 << 10
)

// stage says how far a request got when it failed, which picks the aiohttp
// class a failure maps to.
type stage int

const (
	stageConnect stage = iota // before response headers
	stageBody                 // while reading the body
)

// failRecord fills rec for a request that ended with err. ctx is the run's
// context, reqCtx the per-request one carrying the timeout.
func failRecord(ctx, reqCtx context.Context, rec *sdk.RequestRecord, err error, st stage, timeout time.Duration) {
	now := clock.Now()
	rec.EndPerfNs = now
	switch {
	case ctx.Err() != nil:
		// The run stopped this request; AIPerf reports it as a cancellation.
		rec.WasCancelled = true
		rec.CancellationTimeNs = now // perf clock, like every *Ns field but TimestampNs
		rec.Error = &sdk.ErrorDetails{
			Code:    CodeCancelled,
			Type:    ErrTypeCancelled,
			Message: fmt.Sprintf("Request was cancelled after %.3f seconds", seconds(now-rec.StartPerfNs)),
		}
	// A connect timeout (the dialer's own, reqCtx still alive) is a
	// connection error, not the request timeout.
	case reqCtx.Err() != nil || (errors.Is(err, context.DeadlineExceeded) && !isDialError(err)):
		rec.Error = &sdk.ErrorDetails{
			Type:    ErrTypeTimeout,
			Message: fmt.Sprintf("Request timed out after %s seconds", strconv.FormatFloat(timeout.Seconds(), 'f', -1, 64)),
		}
	default:
		rec.Error = &sdk.ErrorDetails{Type: classify(err, st), Message: errorText(err)}
	}
}

// classify maps a Go transport error to the closest aiohttp exception class.
func classify(err error, st stage) string {
	var (
		certErr   *tls.CertificateVerificationError
		unknownCA x509.UnknownAuthorityError
		hostErr   x509.HostnameError
		opErr     *net.OpError
		errno     syscall.Errno
	)
	switch {
	case errors.Is(err, errTooManyRedirects):
		return ErrTypeTooManyRedirects
	case errors.As(err, &certErr), errors.As(err, &unknownCA), errors.As(err, &hostErr):
		return ErrTypeCertificate
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return ErrTypeConnect
	case st == stageBody:
		return ErrTypePayload
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return ErrTypeServerDisconnected
	case errors.As(err, &errno):
		return ErrTypeOS
	}
	return ErrTypeClient
}

// errorText is the error's message without the url.Error wrapper, whose
// URL could carry a secret in its query string.
func errorText(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

// httpError builds the record error of a non-2xx response. The type is the
// reason phrase the server sent (aiohttp's response.reason), falling back
// to the standard text.
func httpError(resp *http.Response, body []byte) *sdk.ErrorDetails {
	reason := strings.TrimSpace(strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode)))
	if reason == "" {
		reason = http.StatusText(resp.StatusCode)
	}
	e := &sdk.ErrorDetails{Code: resp.StatusCode, Type: reason, Message: string(body)}
	// How long the server asks clients to back off, for whoever reads the
	// records of an overloaded run.
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		e.RetryAfter = strings.TrimSpace(resp.Header.Get("Retry-After"))
	}
	return e
}

// sseError returns the error an SSE event carries, or nil for a normal
// event. Like AIPerf's inspect_message_for_error: an "event: error" block
// fails the request with its first comment, else its data's error, else
// its data; a data payload that is a JSON object with a non-empty "error"
// member fails it too (vLLM and others report mid-stream failures so).
func sseError(ev *sdk.Response, comment string, hasComment bool) *sdk.ErrorDetails {
	isErrEvent := strings.EqualFold(ev.Event, "error")
	if !isErrEvent && !bytes.Contains(ev.Data, quotedError) {
		return nil // the fast path for every ordinary chunk
	}
	if isErrEvent && hasComment {
		return sseErrorDetails(codeSSEError, comment)
	}
	if code, msg, ok := dataError(ev.Data); ok {
		return sseErrorDetails(code, msg)
	}
	if !isErrEvent {
		return nil
	}
	if len(ev.Data) > 0 {
		return sseErrorDetails(codeSSEError, string(ev.Data))
	}
	return sseErrorDetails(codeSSEError, "Unknown error in SSE response")
}

// quotedError is the cheap pre-check for a JSON "error" member.
var quotedError = []byte(`"error"`)

func sseErrorDetails(code int, msg string) *sdk.ErrorDetails {
	return &sdk.ErrorDetails{Code: code, Type: ErrTypeSSE, Message: "Error occurred in SSE response: " + msg}
}

// dataError extracts {"error": …} from a JSON payload: the code from the
// error object (errorCode: its code or status, as a number or a numeric
// string, else a well-known type) when it is an HTTP error status (else
// 502), the message from error.message, a string error, or the error's
// JSON.
func dataError(data []byte) (code int, msg string, ok bool) {
	var payload struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &payload) != nil || !truthy(payload.Error) {
		return 0, "", false
	}
	code = codeSSEError
	var s string
	if json.Unmarshal(payload.Error, &s) == nil {
		return code, s, true
	}
	var obj struct {
		Message *string         `json:"message"`
		Code    json.RawMessage `json:"code"`
		Status  json.RawMessage `json:"status"`
		Type    string          `json:"type"`
	}
	if json.Unmarshal(payload.Error, &obj) == nil {
		if c, ok := errorCode(obj.Code, obj.Status, obj.Type); ok {
			code = c
		}
		if obj.Message != nil {
			return code, *obj.Message, true
		}
	}
	return code, string(payload.Error), true
}

// errorCode is the HTTP status an error object names, in the shapes
// servers send: "code": 500 or "code": "500" (LiteLLM relaying a failed
// upstream), the same under "status", else a well-known error type
// (OpenAI's and Anthropic's). Only 4xx and 5xx count.
func errorCode(code, status json.RawMessage, typ string) (int, bool) {
	for _, raw := range []json.RawMessage{code, status} {
		if c, ok := httpStatus(raw); ok {
			return c, true
		}
	}
	c, ok := errorTypeStatus[strings.ToLower(typ)]
	return c, ok
}

// httpStatus reads a JSON number or numeric string that is a 4xx or 5xx
// status.
func httpStatus(raw json.RawMessage) (int, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, false
		}
		n = json.Number(strings.TrimSpace(s))
	}
	c, err := strconv.Atoi(string(n))
	if err != nil {
		f, ferr := n.Float64()
		if ferr != nil || f != float64(int(f)) {
			return 0, false
		}
		c = int(f)
	}
	return c, c >= 400 && c <= 599
}

// errorTypeStatus maps the error types of OpenAI-style and Anthropic-style
// error objects to the status they stand for.
var errorTypeStatus = map[string]int{
	"invalid_request_error": 400,
	"bad_request":           400,
	"authentication_error":  401,
	"permission_error":      403,
	"not_found_error":       404,
	"rate_limit_error":      429,
	"rate_limit_exceeded":   429,
	"server_error":          500,
	"internal_server_error": 500,
	"api_error":             500,
	"service_unavailable":   503,
	"overloaded_error":      529,
}

// truthy mirrors Python truthiness of a decoded JSON value.
func truthy(raw json.RawMessage) bool {
	switch string(bytes.TrimSpace(raw)) {
	case "", "null", "false", "0", `""`, "{}", "[]":
		return false
	}
	return true
}

func seconds(ns int64) float64 { return float64(ns) / 1e9 }

// isDialError reports whether err happened while connecting.
func isDialError(err error) bool {
	var opErr *net.OpError
	return errors.As(err, &opErr) && opErr.Op == "dial"
}
