package faultserver

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// post sends one chat request and returns the response with its body read
// (as far as it could be) and the first error met.
func post(t *testing.T, client *http.Client, url string, stream bool) (*http.Response, []byte, error) {
	t.Helper()
	body := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	if stream {
		body = `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}`
	}
	resp, err := client.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

// newClient is a client that leaves Content-Encoding alone, as aiperf's
// transport does, and gives up after timeout.
func newClient(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, Transport: &http.Transport{DisableCompression: true}}
}

// streamContent joins the content deltas of an SSE body.
func streamContent(t *testing.T, body []byte) string {
	t.Helper()
	var out strings.Builder
	for _, line := range strings.Split(string(body), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct{ Content string } `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		for _, ch := range c.Choices {
			out.WriteString(ch.Delta.Content)
		}
	}
	return out.String()
}

func bodyContent(t *testing.T, body []byte) string {
	t.Helper()
	var c struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(body, &c); err != nil {
		t.Fatalf("body %.80q: %v", body, err)
	}
	if len(c.Choices) == 0 {
		return ""
	}
	return c.Choices[0].Message.Content
}

// TestAnswers checks each fault that answers 200 sends what its comment
// promises, streaming and not, and that the server counts each request.
func TestAnswers(t *testing.T) {
	cases := []struct {
		fault       Fault
		stream      bool
		wantContent string // the text the answer carries
		wantRaw     string // or a substring of the raw body
		wantEnc     string
	}{
		{fault: None, stream: true, wantContent: Content},
		{fault: None, wantContent: Content},
		{fault: Drip, stream: true, wantContent: Content},
		{fault: Drip, wantContent: Content},
		{fault: Garbage, stream: true, wantRaw: "502 Bad Gateway"},
		{fault: Garbage, wantRaw: "502 Bad Gateway"},
		{fault: EmptyChoices, stream: true, wantRaw: `"choices":[],"usage"`},
		{fault: EmptyChoices, wantRaw: `"choices":[],"usage"`},
		{fault: DoneOnly, stream: true, wantRaw: "data: [DONE]\n\n"},
		{fault: Gzip, stream: true, wantContent: Content, wantEnc: "gzip"},
		{fault: Gzip, wantContent: Content, wantEnc: "gzip"},
	}
	for _, c := range cases {
		name := c.fault.String()
		if c.stream {
			name += "/stream"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := Start(t, Config{Fault: c.fault})
			client := newClient(10 * time.Second)
			for i := range 2 { // twice: the connection must stay reusable
				resp, body, err := post(t, client, s.URL, c.stream)
				if err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				if resp.StatusCode != 200 {
					t.Fatalf("status %d", resp.StatusCode)
				}
				if enc := resp.Header.Get("Content-Encoding"); enc != c.wantEnc {
					t.Fatalf("Content-Encoding %q, want %q", enc, c.wantEnc)
				}
				if c.wantEnc == "gzip" {
					zr, err := gzip.NewReader(bytes.NewReader(body))
					if err != nil {
						t.Fatal(err)
					}
					if body, err = io.ReadAll(zr); err != nil {
						t.Fatal(err)
					}
				}
				if isSSE := resp.Header.Get("Content-Type") == "text/event-stream"; isSSE != c.stream {
					t.Fatalf("Content-Type %q for stream=%v", resp.Header.Get("Content-Type"), c.stream)
				}
				switch {
				case c.wantRaw != "":
					if !strings.Contains(string(body), c.wantRaw) {
						t.Fatalf("body %q lacks %q", body, c.wantRaw)
					}
				case c.stream:
					if got := streamContent(t, body); got != c.wantContent {
						t.Fatalf("stream content %q, want %q", got, c.wantContent)
					}
				default:
					if got := bodyContent(t, body); got != c.wantContent {
						t.Fatalf("content %q, want %q", got, c.wantContent)
					}
				}
			}
			if s.Received() != 2 {
				t.Errorf("Received() = %d, want 2", s.Received())
			}
		})
	}
}

// TestDoneOnlyBodyIsEmpty: a non-streaming DoneOnly answer is a 200 with no
// bytes.
func TestDoneOnlyBodyIsEmpty(t *testing.T) {
	s := Start(t, Config{Fault: DoneOnly})
	resp, body, err := post(t, newClient(10*time.Second), s.URL, false)
	if err != nil || resp.StatusCode != 200 || len(body) != 0 {
		t.Fatalf("status %v, %d body bytes, err %v; want 200 and none", resp, len(body), err)
	}
}

// TestDripWritesOneByteAtATime: the drip answer arrives on the socket in
// about as many reads as it has bytes (each write is its own TCP segment: Go
// sets TCP_NODELAY), and is still one correct stream.
func TestDripWritesOneByteAtATime(t *testing.T) {
	s := Start(t, Config{Fault: Drip})
	c, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := `{"stream":true}`
	req := "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
		"Connection: close\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	reads := 0
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			reads++
			got.Write(buf[:n])
		}
		if err != nil {
			break
		}
	}
	// A response sent at once would arrive in a read or two.
	if got.Len() < 100 || reads < got.Len()/4 {
		t.Errorf("%d bytes in %d reads; want them dripped", got.Len(), reads)
	}
	resp, err := http.ReadResponse(bufio.NewReader(&got), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if content := streamContent(t, b); content != Content {
		t.Errorf("dripped stream says %q, want %q", content, Content)
	}
}

// TestCorruptGzipDoesNotDecode: the body is gzip by its header and broken
// past it.
func TestCorruptGzipDoesNotDecode(t *testing.T) {
	for _, stream := range []bool{false, true} {
		s := Start(t, Config{Fault: CorruptGzip})
		resp, body, err := post(t, newClient(10*time.Second), s.URL, stream)
		if err != nil || resp.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("stream=%v: err %v, headers %v", stream, err, resp.Header)
		}
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("stream=%v: the gzip header must stay valid: %v", stream, err)
		}
		if _, err := io.ReadAll(zr); err == nil {
			t.Errorf("stream=%v: the corrupt body decoded", stream)
		}
	}
}

// TestOversized: one content event (or body) of the configured size.
func TestOversized(t *testing.T) {
	const size = 3 << 20
	for _, stream := range []bool{false, true} {
		s := Start(t, Config{Fault: Oversized, OversizedBytes: size})
		_, body, err := post(t, newClient(10*time.Second), s.URL, stream)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		if stream {
			got = streamContent(t, body)
		} else {
			got = bodyContent(t, body)
		}
		if len(got) != size {
			t.Errorf("stream=%v: content of %d bytes, want %d", stream, len(got), size)
		}
	}
}

// TestBrokenConnections: the faults that never complete a response fail
// the client the way their comments say, and count the request.
func TestBrokenConnections(t *testing.T) {
	cases := []struct {
		fault   Fault
		stream  bool
		timeout bool   // the client must give up by its own timeout
		partial string // what arrives before the failure
	}{
		{fault: Reset},
		{fault: ResetMidStream, stream: true, partial: "data: "},
		{fault: ResetMidStream, partial: `{"choices":`},
		{fault: Stall, timeout: true},
		{fault: HalfOpen, stream: true, timeout: true, partial: "data: "},
	}
	for _, c := range cases {
		t.Run(c.fault.String(), func(t *testing.T) {
			t.Parallel()
			s := Start(t, Config{Fault: c.fault})
			_, body, err := post(t, newClient(500*time.Millisecond), s.URL, c.stream)
			if err == nil {
				t.Fatalf("request succeeded with %q", body)
			}
			var ne interface{ Timeout() bool }
			isTimeout := errors.As(err, &ne) && ne.Timeout()
			if isTimeout != c.timeout {
				t.Fatalf("error %v: timeout %v, want %v", err, isTimeout, c.timeout)
			}
			if !c.timeout && !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("error %v: want a reset", err)
			}
			if !strings.Contains(string(body), c.partial) {
				t.Errorf("got %q before the failure, want %q in it", body, c.partial)
			}
			if s.Received() != 1 || s.Faulted() != 1 {
				t.Errorf("Received() = %d, Faulted() = %d, want 1 and 1", s.Received(), s.Faulted())
			}
		})
	}
}

// TestEvery: with Every 3, requests 3 and 6 of 6 get the fault.
func TestEvery(t *testing.T) {
	s := Start(t, Config{Fault: Reset, Every: 3})
	client := newClient(10 * time.Second)
	var failed []int
	for i := 1; i <= 6; i++ {
		if _, _, err := post(t, client, s.URL, false); err != nil {
			failed = append(failed, i)
		}
	}
	if len(failed) != 2 || failed[0] != 3 || failed[1] != 6 {
		t.Errorf("failed requests %v, want [3 6]", failed)
	}
	if s.Received() != 6 || s.Faulted() != 2 {
		t.Errorf("Received() = %d, Faulted() = %d, want 6 and 2", s.Received(), s.Faulted())
	}
}

// TestDie: two requests answered, the third kills the server (reset), and
// the fourth finds no listener.
func TestDie(t *testing.T) {
	s := Start(t, Config{Fault: Die, DieAfter: 2})
	client := newClient(10 * time.Second)
	var errs []error
	for range 4 {
		_, _, err := post(t, client, s.URL, true)
		errs = append(errs, err)
	}
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("the first two requests failed: %v", errs[:2])
	}
	if errs[2] == nil {
		t.Fatal("the request that killed the server succeeded")
	}
	if !errors.Is(errs[3], syscall.ECONNREFUSED) {
		t.Errorf("after death: %v, want connection refused", errs[3])
	}
	if s.Received() != 3 {
		t.Errorf("Received() = %d, want 3 (the fourth never connected)", s.Received())
	}
}

// TestCloseReleasesStalls: Close ends a stalled request at once, however
// long its client would wait.
func TestCloseReleasesStalls(t *testing.T) {
	s, err := New(Config{Fault: HalfOpen})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", s.URL+"/v1/chat/completions", strings.NewReader(`{"stream":true}`))
		resp, err := newClient(0).Do(req)
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		errc <- err
	}()
	for s.Received() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	s.Close()
	if err := <-errc; err == nil || ctx.Err() != nil {
		t.Errorf("stalled request ended with %v (context %v); want a reset before the context's end", err, ctx.Err())
	}
}

// TestOtherPathsAreNotFound: only chat completions count and misbehave; a
// metrics scrape gets a 404 even from a resetting server.
func TestOtherPathsAreNotFound(t *testing.T) {
	s := Start(t, Config{Fault: Reset})
	for range 2 {
		resp, err := newClient(10 * time.Second).Get(s.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET /metrics: status %d, want 404", resp.StatusCode)
		}
	}
	if s.Received() != 0 {
		t.Errorf("Received() = %d after two scrapes, want 0", s.Received())
	}
}

func TestNewRefusesBadConfig(t *testing.T) {
	for _, cfg := range []Config{{Fault: Fault(99)}, {Fault: Reset, Every: -1}, {Fault: Die, DieAfter: -2}} {
		if s, err := New(cfg); err == nil {
			s.Close()
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
}
