package transport

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/clock"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func send(t *testing.T, tr *HTTPTransport, ctx context.Context, req *sdk.TransportRequest) *sdk.RequestRecord {
	t.Helper()
	rec := &sdk.RequestRecord{}
	tr.Send(ctx, req, rec)
	return rec
}

func newTransport(t *testing.T, opts Options) *HTTPTransport {
	t.Helper()
	tr := New(opts)
	t.Cleanup(func() { _ = tr.Close() })
	return tr
}

func TestSendStreamingEvents(t *testing.T) {
	srv := httptest.NewServer(scripted(
		part{data: "data: {\"n\":1}\n\n"},
		part{data: ": keep-alive\n\n"},
		part{data: "event: delta\ndata: line1\ndata: line2\n\n"},
		part{data: "data: [DONE]\n\n"},
	))
	defer srv.Close()
	tr := newTransport(t, Options{MaxConnsPerHost: 4})

	wallBefore := time.Now().UnixNano()
	rec := send(t, tr, context.Background(), &sdk.TransportRequest{URL: srv.URL, Body: []byte(`{}`), Streaming: true})
	wallAfter := time.Now().UnixNano()

	mustNotFail(t, rec.Error)
	if rec.Status != 200 || !rec.Streaming {
		t.Fatalf("status %d streaming %v, want 200 true", rec.Status, rec.Streaming)
	}
	want := []struct{ event, data string }{{"", `{"n":1}`}, {"delta", "line1\nline2"}, {"", "[DONE]"}}
	if len(rec.Responses) != len(want) {
		t.Fatalf("got %d responses %+v, want %d", len(rec.Responses), rec.Responses, len(want))
	}
	prev := rec.AckPerfNs
	for i, w := range want {
		r := rec.Responses[i]
		if r.Event != w.event || string(r.Data) != w.data {
			t.Errorf("response %d = %q %q, want %q %q", i, r.Event, r.Data, w.event, w.data)
		}
		if r.PerfNs < prev || r.PerfNs > rec.EndPerfNs {
			t.Errorf("response %d PerfNs %d outside [%d, end %d]", i, r.PerfNs, prev, rec.EndPerfNs)
		}
		prev = r.PerfNs
	}
	if !(rec.StartPerfNs > 0 && rec.StartPerfNs <= rec.AckPerfNs && rec.AckPerfNs <= rec.EndPerfNs) {
		t.Errorf("timestamps out of order: start %d ack %d end %d", rec.StartPerfNs, rec.AckPerfNs, rec.EndPerfNs)
	}
	if rec.TimestampNs != clock.WallNs(rec.StartPerfNs) {
		t.Errorf("TimestampNs %d is not WallNs(StartPerfNs) %d", rec.TimestampNs, clock.WallNs(rec.StartPerfNs))
	}
	// The wall anchor must sit near the real clock (generous: one second).
	if rec.TimestampNs < wallBefore-int64(time.Second) || rec.TimestampNs > wallAfter+int64(time.Second) {
		t.Errorf("TimestampNs %d not within [%d, %d]", rec.TimestampNs, wallBefore, wallAfter)
	}
}

func TestSendEventSplitAcrossReadsKeepsFirstReadTime(t *testing.T) {
	srv := httptest.NewServer(scripted(
		part{data: "data: {\"content\":\"hel", pause: 30 * time.Millisecond},
		part{data: "lo\"}\n\ndata: second\n\n"},
	))
	defer srv.Close()
	rec := send(t, newTransport(t, Options{}), context.Background(), &sdk.TransportRequest{URL: srv.URL})

	mustNotFail(t, rec.Error)
	if len(rec.Responses) != 2 || string(rec.Responses[0].Data) != `{"content":"hello"}` {
		t.Fatalf("responses = %+v", rec.Responses)
	}
	first, second := rec.Responses[0].PerfNs, rec.Responses[1].PerfNs
	// The first half arrived ~30 ms before the rest; the event keeps that
	// read's time (generous ordering bound, not a tight timing check).
	if first >= rec.EndPerfNs-int64(20*time.Millisecond) {
		t.Errorf("split event PerfNs %d is not before end %d - 20ms", first, rec.EndPerfNs)
	}
	if second-first < int64(20*time.Millisecond) {
		t.Errorf("second event %d should arrive >= 20ms after the first %d", second, first)
	}
}

func TestSendTwoEventsInOneReadShareTime(t *testing.T) {
	srv := httptest.NewServer(scripted(part{data: "data: a\n\ndata: b\n\n"}))
	defer srv.Close()
	rec := send(t, newTransport(t, Options{}), context.Background(), &sdk.TransportRequest{URL: srv.URL})
	mustNotFail(t, rec.Error)
	if len(rec.Responses) != 2 || rec.Responses[0].PerfNs != rec.Responses[1].PerfNs {
		t.Fatalf("responses = %+v, want two with the same PerfNs", rec.Responses)
	}
}

func TestSendUTF8SplitAcrossFlushes(t *testing.T) {
	srv := httptest.NewServer(scripted(
		part{data: "data: caf\xC3", pause: 5 * time.Millisecond},
		part{data: "\xA9 \xF0\x9F", pause: 5 * time.Millisecond},
		part{data: "\x98\x80 \xE4\xB8\x96\r\n\r\n"},
	))
	defer srv.Close()
	rec := send(t, newTransport(t, Options{}), context.Background(), &sdk.TransportRequest{URL: srv.URL})
	mustNotFail(t, rec.Error)
	if len(rec.Responses) != 1 || string(rec.Responses[0].Data) != "café 😀 世" {
		t.Fatalf("responses = %+v, want one \"café 😀 世\"", rec.Responses)
	}
}

func TestSendFinalEventWithoutBlankLine(t *testing.T) {
	srv := httptest.NewServer(scripted(part{data: "data: a\n\ndata: tail"}))
	defer srv.Close()
	rec := send(t, newTransport(t, Options{}), context.Background(), &sdk.TransportRequest{URL: srv.URL})
	mustNotFail(t, rec.Error)
	if len(rec.Responses) != 2 || string(rec.Responses[1].Data) != "tail" {
		t.Fatalf("responses = %+v, want a then tail", rec.Responses)
	}
}

func TestSendNonStreamingJSON(t *testing.T) {
	body := `{"object":"chat.completion","choices":[{"message":{"content":"hi"}}]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, body)
	}))
	defer srv.Close()
	rec := send(t, newTransport(t, Options{}), context.Background(), &sdk.TransportRequest{URL: srv.URL, Streaming: true})
	mustNotFail(t, rec.Error)
	if rec.Streaming {
		t.Errorf("Streaming = true for an application/json body")
	}
	if len(rec.Responses) != 1 || string(rec.Responses[0].Data) != body {
		t.Fatalf("responses = %+v, want the whole body once", rec.Responses)
	}
	if p := rec.Responses[0].PerfNs; p != rec.EndPerfNs || p < rec.AckPerfNs {
		t.Errorf("body PerfNs %d, want the body end %d (after ack %d)", p, rec.EndPerfNs, rec.AckPerfNs)
	}
}

func TestSendEmptyBodyIsOneEmptyResponse(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	rec := send(t, newTransport(t, Options{}), context.Background(), &sdk.TransportRequest{URL: srv.URL})
	mustNotFail(t, rec.Error)
	if rec.Status != 204 || len(rec.Responses) != 1 || len(rec.Responses[0].Data) != 0 {
		t.Fatalf("status %d responses %+v, want 204 and one empty response", rec.Status, rec.Responses)
	}
}

func TestSendHTTPErrors(t *testing.T) {
	big := strings.Repeat("x", maxErrorBody+100)
	tests := []struct {
		name       string
		status     int
		body       string
		retryAfter string // the header sent
		wantType   string
		wantMsg    string
		wantRetry  string // what the record keeps
	}{
		{"500 with body", 500, `{"error":"boom"}`, "", "Internal Server Error", `{"error":"boom"}`, ""},
		{"404", 404, "no such model", "", "Not Found", "no such model", ""},
		{"429 empty body", 429, "", "", "Too Many Requests", "", ""},
		{"body truncated at 64 KiB", 503, big, "", "Service Unavailable", big[:maxErrorBody], ""},
		// Retry-After is kept on 429 and 503 (issue 16), as sent.
		{"429 with Retry-After seconds", 429, "slow down", "30", "Too Many Requests", "slow down", "30"},
		{"503 with Retry-After date", 503, "", "Wed, 21 Oct 2026 07:28:00 GMT", "Service Unavailable", "", "Wed, 21 Oct 2026 07:28:00 GMT"},
		{"Retry-After on a 500 is not kept", 500, "x", "5", "Internal Server Error", "x", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				if tt.retryAfter != "" {
					w.Header().Set("Retry-After", tt.retryAfter)
				}
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			rec := send(t, newTransport(t, Options{}), context.Background(), &sdk.TransportRequest{URL: srv.URL})
			want := sdk.ErrorDetails{Code: tt.status, Type: tt.wantType, Message: tt.wantMsg, RetryAfter: tt.wantRetry}
			if rec.Error == nil || *rec.Error != want {
				t.Fatalf("error = %+v, want code %d type %q message of %d bytes", rec.Error, tt.status, tt.wantType, len(tt.wantMsg))
			}
			if rec.Status != tt.status || len(rec.Responses) != 0 || rec.WasCancelled {
				t.Errorf("status %d responses %d cancelled %v", rec.Status, len(rec.Responses), rec.WasCancelled)
			}
		})
	}
}

// A server's own reason phrase is the error type, as aiohttp's response.reason.
func TestSendHTTPErrorUsesServerReasonPhrase(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		_, _ = c.Read(make([]byte, 4096))
		_, _ = io.WriteString(c, "HTTP/1.1 503 Engine Overloaded\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbusy")
	}()
	rec := send(t, newTransport(t, Options{}), context.Background(), &sdk.TransportRequest{URL: "http://" + ln.Addr().String() + "/v1/chat/completions"})
	want := sdk.ErrorDetails{Code: 503, Type: "Engine Overloaded", Message: "busy"}
	if rec.Error == nil || *rec.Error != want {
		t.Fatalf("error = %+v, want %+v", rec.Error, want)
	}
}

func TestSendAny2xxIsSuccess(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, `{"id":"job-1"}`)
	}))
	defer srv.Close()
	rec := send(t, newTransport(t, Options{}), context.Background(), &sdk.TransportRequest{URL: srv.URL})
	mustNotFail(t, rec.Error)
	if rec.Status != 202 || len(rec.Responses) != 1 {
		t.Fatalf("status %d responses %+v", rec.Status, rec.Responses)
	}
}

func TestSendTimeout(t *testing.T) {
	srv := httptest.NewServer(scripted(part{data: "data: first\n\n", pause: 10 * time.Second}))
	defer srv.Close()
	tests := []struct {
		name    string
		opts    Options
		reqTO   time.Duration
		wantMsg string
	}{
		{"request timeout", Options{Timeout: time.Hour}, 50 * time.Millisecond, "Request timed out after 0.05 seconds"},
		{"options timeout as fallback", Options{Timeout: 80 * time.Millisecond}, 0, "Request timed out after 0.08 seconds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := send(t, newTransport(t, tt.opts), context.Background(), &sdk.TransportRequest{URL: srv.URL, Timeout: tt.reqTO})
			want := sdk.ErrorDetails{Type: ErrTypeTimeout, Message: tt.wantMsg}
			if rec.Error == nil || *rec.Error != want {
				t.Fatalf("error = %+v, want %+v", rec.Error, want)
			}
			if rec.WasCancelled || rec.Status != 200 {
				t.Errorf("cancelled %v status %d, want false 200", rec.WasCancelled, rec.Status)
			}
			if len(rec.Responses) != 1 || string(rec.Responses[0].Data) != "first" {
				t.Errorf("responses before the timeout not kept: %+v", rec.Responses)
			}
		})
	}
}

func TestSendTimeoutBeforeHeaders(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	defer srv.Close()
	rec := send(t, newTransport(t, Options{}), context.Background(), &sdk.TransportRequest{URL: srv.URL, Timeout: 40 * time.Millisecond})
	if rec.Error == nil || rec.Error.Type != ErrTypeTimeout || rec.AckPerfNs != 0 || rec.Status != 0 {
		t.Fatalf("error %+v ack %d status %d, want TimeoutError before any header", rec.Error, rec.AckPerfNs, rec.Status)
	}
}

func TestSendConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close() // nothing listens there now
	rec := send(t, newTransport(t, Options{}), context.Background(), &sdk.TransportRequest{URL: "http://" + addr + "/v1/chat/completions?key=secret"})
	if rec.Error == nil || rec.Error.Type != ErrTypeConnect || rec.Error.Code != 0 {
		t.Fatalf("error = %+v, want %s with no code", rec.Error, ErrTypeConnect)
	}
	if !strings.Contains(rec.Error.Message, "connection refused") || strings.Contains(rec.Error.Message, "secret") {
		t.Errorf("message %q should say connection refused and not echo the URL", rec.Error.Message)
	}
	if rec.EndPerfNs < rec.StartPerfNs || rec.StartPerfNs == 0 {
		t.Errorf("start %d end %d", rec.StartPerfNs, rec.EndPerfNs)
	}
}

var cancelMsg = regexp.MustCompile(`^Request was cancelled after \d+\.\d{3} seconds$`)

func TestSendCancelledMidStream(t *testing.T) {
	delivered := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: one\n\n")
		w.(http.Flusher).Flush()
		close(delivered)
		<-r.Context().Done()
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-delivered
		time.Sleep(200 * time.Millisecond) // let the client read the first event
		cancel()
	}()
	rec := send(t, newTransport(t, Options{Timeout: time.Minute}), ctx, &sdk.TransportRequest{URL: srv.URL})
	perfNow := clock.Now()

	if rec.Error == nil || rec.Error.Code != 499 || rec.Error.Type != ErrTypeCancelled || !cancelMsg.MatchString(rec.Error.Message) {
		t.Fatalf("error = %+v, want 499 RequestCancellationError", rec.Error)
	}
	// CancellationTimeNs is a perf-clock reading, like StartPerfNs.
	if !rec.WasCancelled || rec.CancellationTimeNs < rec.StartPerfNs || rec.CancellationTimeNs > perfNow {
		t.Errorf("cancelled %v at %d, want true within [%d, %d]", rec.WasCancelled, rec.CancellationTimeNs, rec.StartPerfNs, perfNow)
	}
	if len(rec.Responses) != 1 || string(rec.Responses[0].Data) != "one" {
		t.Errorf("responses before the cancel not kept: %+v", rec.Responses)
	}
	if rec.Status != 200 || rec.AckPerfNs == 0 {
		t.Errorf("status %d ack %d", rec.Status, rec.AckPerfNs)
	}
}

func TestSendAlreadyCancelled(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := send(t, newTransport(t, Options{}), ctx, &sdk.TransportRequest{URL: srv.URL})
	if rec.Error == nil || rec.Error.Code != 499 || !rec.WasCancelled || rec.Error.Message != "Request was cancelled after 0.000 seconds" {
		t.Fatalf("error = %+v cancelled %v", rec.Error, rec.WasCancelled)
	}
	if hits.Load() != 0 {
		t.Errorf("server saw %d requests, want 0", hits.Load())
	}
}

func TestSendSSEErrors(t *testing.T) {
	tests := []struct {
		name      string
		stream    string
		wantCode  int
		wantMsg   string
		wantKept  int
		wantError bool
	}{
		{"event error with data", "data: a\n\nevent: error\ndata: model crashed\n\ndata: after\n\n", 502, "Error occurred in SSE response: model crashed", 1, true},
		{"event error prefers its comment", "event: error\n: engine died\ndata: {}\n\n", 502, "Error occurred in SSE response: engine died", 0, true},
		{"event error without data", "data: a\n\ndata: b\n\nevent: ERROR\n\n", 502, "Error occurred in SSE response: Unknown error in SSE response", 2, true},
		{"data error object with code", "data: a\n\ndata: {\"error\":{\"message\":\"overloaded\",\"code\":503}}\n\n", 503, "Error occurred in SSE response: overloaded", 1, true},
		{"data error string", "data: {\"error\":\"bad things\"}\n\n", 502, "Error occurred in SSE response: bad things", 0, true},
		{"data error with non-HTTP code", "data: {\"error\":{\"message\":\"x\",\"code\":42}}\n\n", 502, "Error occurred in SSE response: x", 0, true},
		// The shapes servers send the code in (issue 16).
		{"LiteLLM: numeric string code", "data: {\"error\":{\"message\":\"upstream died\",\"type\":\"None\",\"param\":null,\"code\":\"500\"}}\n\n", 500, "Error occurred in SSE response: upstream died", 0, true},
		{"float code", "data: {\"error\":{\"message\":\"m\",\"code\":429.0}}\n\n", 429, "Error occurred in SSE response: m", 0, true},
		{"status field", "data: {\"error\":{\"message\":\"busy\",\"status\":503}}\n\n", 503, "Error occurred in SSE response: busy", 0, true},
		{"status as a string", "data: {\"error\":{\"message\":\"busy\",\"status\":\"503\"}}\n\n", 503, "Error occurred in SSE response: busy", 0, true},
		{"type only", "data: {\"error\":{\"message\":\"slow down\",\"type\":\"rate_limit_error\"}}\n\n", 429, "Error occurred in SSE response: slow down", 0, true},
		{"Anthropic overloaded type", "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n", 529, "Error occurred in SSE response: Overloaded", 0, true},
		{"string code that is not a status", "data: {\"error\":{\"message\":\"m\",\"code\":\"context_length_exceeded\",\"type\":\"invalid_request_error\"}}\n\n", 400, "Error occurred in SSE response: m", 0, true},
		{"Google-style status name", "data: {\"error\":{\"message\":\"m\",\"status\":\"UNAVAILABLE\"}}\n\n", 502, "Error occurred in SSE response: m", 0, true},
		{"quoted error inside content is not an error", "data: {\"choices\":[{\"delta\":{\"content\":\"\\\"error\\\"\"}}]}\n\n", 0, "", 1, false},
		{"null error is not an error", "data: {\"error\":null,\"choices\":[]}\n\n", 0, "", 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(scripted(part{data: tt.stream}))
			defer srv.Close()
			rec := send(t, newTransport(t, Options{}), context.Background(), &sdk.TransportRequest{URL: srv.URL})
			if !tt.wantError {
				mustNotFail(t, rec.Error)
			} else {
				want := sdk.ErrorDetails{Code: tt.wantCode, Type: ErrTypeSSE, Message: tt.wantMsg}
				if rec.Error == nil || *rec.Error != want {
					t.Fatalf("error = %+v, want %+v", rec.Error, want)
				}
			}
			if rec.Status != 200 || len(rec.Responses) != tt.wantKept {
				t.Errorf("status %d, %d responses kept %+v, want 200 and %d", rec.Status, len(rec.Responses), rec.Responses, tt.wantKept)
			}
			if rec.EndPerfNs == 0 {
				t.Errorf("EndPerfNs not set")
			}
		})
	}
}

func TestSendHeadersExactlyAsGiven(t *testing.T) {
	type seen struct {
		method, host, proto string
		header              http.Header
		body                string
	}
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.Method, r.Host, r.Proto, r.Header.Clone(), string(b)}
		_, _ = io.WriteString(w, "{}")
	}))
	defer srv.Close()
	tr := newTransport(t, Options{})

	headers := map[string]string{
		"User-Agent":    "aiperf/0.5.0",
		"content-type":  "application/json",
		"Accept":        "text/event-stream",
		"Authorization": "Bearer sk-test",
		"X-Request-ID":  "7609a2e7",
	}
	rec := send(t, tr, context.Background(), &sdk.TransportRequest{URL: srv.URL + "/v1/chat/completions", Headers: headers, Body: []byte(`{"a":1}`)})
	mustNotFail(t, rec.Error)
	s := <-got
	if s.method != "POST" || s.body != `{"a":1}` || s.proto != "HTTP/1.1" || s.host != strings.TrimPrefix(srv.URL, "http://") {
		t.Errorf("method %q body %q proto %q host %q", s.method, s.body, s.proto, s.host)
	}
	for k, v := range headers {
		if g := s.header.Values(k); len(g) != 1 || g[0] != v {
			t.Errorf("header %s = %q, want [%q]", k, g, v)
		}
	}
	for k := range s.header {
		switch k {
		case "User-Agent", "Content-Type", "Accept", "Authorization", "X-Request-Id", "Content-Length":
		default:
			t.Errorf("unexpected header %s: %q", k, s.header[k])
		}
	}

	// No User-Agent given: none is sent (Go's default is suppressed).
	rec = send(t, tr, context.Background(), &sdk.TransportRequest{URL: srv.URL, Method: "PUT", Headers: map[string]string{"Host": "models.internal"}})
	mustNotFail(t, rec.Error)
	s = <-got
	if s.method != "PUT" || s.host != "models.internal" || s.header.Get("User-Agent") != "" || s.header.Get("Accept-Encoding") != "" {
		t.Errorf("method %q host %q user-agent %q accept-encoding %q", s.method, s.host, s.header.Get("User-Agent"), s.header.Get("Accept-Encoding"))
	}
}

func TestSendReusesConnections(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(scripted(part{data: "data: x\n\n"}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	tr := newTransport(t, Options{MaxConnsPerHost: 2})
	for i := range 5 {
		rec := send(t, tr, context.Background(), &sdk.TransportRequest{URL: srv.URL})
		if rec.Error != nil || len(rec.Responses) != 1 {
			t.Fatalf("request %d: error %+v responses %d", i, rec.Error, len(rec.Responses))
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("5 sequential requests opened %d connections, want 1 (keep-alive)", n)
	}
}

func TestSendTLS(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.Proto)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()

	rec := send(t, newTransport(t, Options{}), context.Background(), &sdk.TransportRequest{URL: srv.URL})
	if rec.Error == nil || rec.Error.Type != ErrTypeCertificate {
		t.Fatalf("self-signed certificate: error = %+v, want %s", rec.Error, ErrTypeCertificate)
	}

	rec = send(t, newTransport(t, Options{InsecureSkipVerify: true}), context.Background(), &sdk.TransportRequest{URL: srv.URL})
	mustNotFail(t, rec.Error)
	if len(rec.Responses) != 1 || string(rec.Responses[0].Data) != "HTTP/1.1" {
		t.Fatalf("responses = %+v, want the server to see HTTP/1.1 even though it offers h2", rec.Responses)
	}
}

func TestSendRedirects(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/new", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/new", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		_, _ = io.WriteString(w, r.Method+" "+string(b))
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	tr := newTransport(t, Options{})

	rec := send(t, tr, context.Background(), &sdk.TransportRequest{URL: srv.URL + "/old", Body: []byte("payload")})
	mustNotFail(t, rec.Error)
	if len(rec.Responses) != 1 || string(rec.Responses[0].Data) != "POST payload" {
		t.Fatalf("307 redirect: responses = %+v, want the POST body resent", rec.Responses)
	}

	rec = send(t, tr, context.Background(), &sdk.TransportRequest{URL: srv.URL + "/loop"})
	if rec.Error == nil || rec.Error.Type != ErrTypeTooManyRedirects {
		t.Fatalf("redirect loop: error = %+v, want %s", rec.Error, ErrTypeTooManyRedirects)
	}
}

func TestSendServerDropsMidStream(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		c, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer c.Close()
		_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
		_, _ = buf.WriteString("e\r\ndata: first\n\n\r\n")
		_ = buf.Flush() // then close without the terminating chunk
	}))
	defer srv.Close()
	rec := send(t, newTransport(t, Options{}), context.Background(), &sdk.TransportRequest{URL: srv.URL})
	if rec.Error == nil || rec.Error.Type != ErrTypePayload {
		t.Fatalf("error = %+v, want %s", rec.Error, ErrTypePayload)
	}
	if len(rec.Responses) != 1 || string(rec.Responses[0].Data) != "first" {
		t.Errorf("responses before the drop not kept: %+v", rec.Responses)
	}
}

// A server that reads the request and resets the connection (RST) before
// answering fails the request as aiohttp does: ClientOSError, whose message
// says the connection was reset. A clean close (FIN) is a disconnect.
func TestSendServerResetsBeforeAnswer(t *testing.T) {
	for _, c := range []struct {
		linger bool
		want   string
	}{{linger: true, want: ErrTypeOS}, {linger: false, want: ErrTypeServerDisconnected}} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			if req, err := http.ReadRequest(bufio.NewReader(conn)); err == nil {
				_, _ = io.Copy(io.Discard, req.Body)
			}
			if c.linger {
				_ = conn.(*net.TCPConn).SetLinger(0)
			}
			_ = conn.Close()
		}()
		rec := send(t, newTransport(t, Options{}), context.Background(),
			&sdk.TransportRequest{URL: "http://" + ln.Addr().String(), Body: []byte(`{"stream":true}`)})
		_ = ln.Close()
		if rec.Error == nil || rec.Error.Type != c.want {
			t.Errorf("RST %v: error = %+v, want %s", c.linger, rec.Error, c.want)
		} else if c.linger && !strings.Contains(rec.Error.Message, "connection reset") {
			t.Errorf("message %q does not say the connection was reset", rec.Error.Message)
		}
	}
}

func TestSendInvalidURL(t *testing.T) {
	tr := newTransport(t, Options{})
	for _, u := range []string{"ftp://host/x", "://nohost", "http:///path", "localhost:8000/v1"} {
		rec := send(t, tr, context.Background(), &sdk.TransportRequest{URL: u})
		if rec.Error == nil || rec.Error.Type != ErrTypeInvalidURL || rec.Error.Message == "" {
			t.Errorf("URL %q: error = %+v, want %s", u, rec.Error, ErrTypeInvalidURL)
		}
	}
}

func TestIsEventStream(t *testing.T) {
	for ct, want := range map[string]bool{
		"text/event-stream":                 true,
		"text/event-stream; charset=utf-8":  true,
		" Text/Event-Stream ;charset=utf-8": true,
		"application/json":                  false,
		"":                                  false,
		"text/event-streaming":              false,
	} {
		if got := isEventStream(ct); got != want {
			t.Errorf("isEventStream(%q) = %v, want %v", ct, got, want)
		}
	}
}

func TestSendNonStreamingBodySizes(t *testing.T) {
	for _, size := range []int{1, 511, 512, 513, 4096, 1 << 20} {
		for _, withLength := range []bool{true, false} {
			body := strings.Repeat("ab", size/2+1)[:size]
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if withLength {
					w.Header().Set("Content-Length", strconv.Itoa(size))
				}
				// Two flushed writes: without a length the body is chunked.
				_, _ = io.WriteString(w, body[:size/2])
				w.(http.Flusher).Flush()
				_, _ = io.WriteString(w, body[size/2:])
			}))
			rec := send(t, newTransport(t, Options{}), context.Background(), &sdk.TransportRequest{URL: srv.URL})
			srv.Close()
			mustNotFail(t, rec.Error)
			if len(rec.Responses) != 1 || string(rec.Responses[0].Data) != body {
				t.Errorf("size %d length %v: got %d responses, want one holding the %d-byte body", size, withLength, len(rec.Responses), size)
			}
		}
	}
}
