// Package faultserver is a misbehaving OpenAI chat-completions server for
// fault-injection tests: a raw TCP listener on loopback that speaks just
// enough HTTP/1.1 to answer /v1/chat/completions (a stream when the request
// says "stream": true, one JSON body otherwise) and fails in one chosen way
// — reset, stall, half-open, drip, garbage, empty answers, gzip, oversized
// events, or dying mid-run — while counting every request it read.
package faultserver

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Fault is the way the server misbehaves. Each names the real-world failure
// it imitates.
type Fault int

const (
	// None answers every request correctly: the control case.
	None Fault = iota
	// Reset reads the request and closes the connection with a TCP RST
	// before any response byte: a crashing worker behind a proxy, or a
	// load balancer dropping the connection.
	Reset
	// ResetMidStream sends the headers and the first event (or the first
	// half of a body), then RST: a server killed while streaming.
	ResetMidStream
	// Stall reads the request and never answers, holding the connection
	// open: a wedged server or a saturated queue that accepts and forgets.
	Stall
	// HalfOpen sends the headers and the first event, then nothing more,
	// never closing: a peer that vanished mid-stream (a cable pulled, a
	// NAT entry expired) so no FIN or RST ever arrives.
	HalfOpen
	// Drip sends a correct response one byte per write with DripDelay
	// between writes, headers included: a congested or throttled link.
	// The response is valid and the request must succeed.
	Drip
	// Garbage answers 200 with the Content-Type the client expects but a
	// body that is neither JSON nor SSE: a proxy's HTML error page or a
	// binary blob served with the wrong status.
	Garbage
	// EmptyChoices answers 200 without generated content: `choices: []`
	// with usage for a body, a usage-only chunk and [DONE] for a stream,
	// as servers do when generation is aborted or filtered.
	EmptyChoices
	// DoneOnly answers a stream with only "data: [DONE]" and a body with
	// no bytes at all: a backend that finished before producing a token.
	DoneOnly
	// Gzip sends a correct response compressed with gzip
	// (Content-Encoding: gzip), as a compressing proxy does. It must
	// succeed.
	Gzip
	// CorruptGzip claims Content-Encoding: gzip and sends a gzip stream
	// whose compressed bytes were damaged in transit: a broken proxy or
	// middlebox.
	CorruptGzip
	// Oversized answers with one content event (or body) of
	// OversizedBytes bytes: a server that emits a whole long answer as
	// one chunk, or a runaway generation.
	Oversized
	// Die answers DieAfter requests correctly, then on the next one closes
	// its listener and every open connection (RST): a server process
	// crashing or being OOM-killed mid-run. Later requests find nothing
	// listening (connection refused).
	Die
)

var faultNames = [...]string{"none", "reset", "reset-mid-stream", "stall", "half-open", "drip", "garbage",
	"empty-choices", "done-only", "gzip", "corrupt-gzip", "oversized", "die"}

func (f Fault) String() string {
	if f >= 0 && int(f) < len(faultNames) {
		return faultNames[f]
	}
	return "Fault(" + strconv.Itoa(int(f)) + ")"
}

// Config picks the fault and how often it strikes.
type Config struct {
	Fault Fault
	// Every makes only every Every-th request (the Every-th, 2*Every-th,
	// ... in the order they were read) misbehave; the others are answered
	// correctly, so a run has both outcomes. 0 or 1: every request.
	// Die ignores it (DieAfter says when).
	Every int
	// DieAfter is how many requests Die answers before it dies on the
	// next one.
	DieAfter int
	// OversizedBytes is the content size of an Oversized answer
	// (default DefaultOversizedBytes).
	OversizedBytes int
	// DripDelay is the pause between Drip's one-byte writes (default 200µs).
	DripDelay time.Duration
}

// DefaultOversizedBytes is 10 MiB and one byte: beyond any buffer size a
// client might pick as a round number.
const DefaultOversizedBytes = 10<<20 + 1

// Content is the answer text of every correct response, split into the
// events of a stream as ContentChunks.
const Content = "Hello there from the fault server"

// ContentChunks are the content deltas of a correct stream, in order.
var ContentChunks = []string{"Hello", " there", " from", " the", " fault", " server"}

// Server is a running fault server. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL, "http://127.0.0.1:<port>".
	URL string

	cfg      Config
	ln       net.Listener
	received atomic.Int64  // requests read in full
	faulted  atomic.Int64  // requests that got the fault
	done     chan struct{} // closed by Close: ends Drip's pauses
	doneOnce sync.Once
	wg       sync.WaitGroup

	mu    sync.Mutex
	conns map[net.Conn]struct{}
	dead  bool // Die struck or Close ran: no more connections
}

// Start runs a server for the test and closes it when the test ends.
func Start(t testing.TB, cfg Config) *Server {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// New starts a server on a free loopback port.
func New(cfg Config) (*Server, error) {
	if cfg.Fault < None || int(cfg.Fault) >= len(faultNames) {
		return nil, fmt.Errorf("faultserver: unknown fault %d", cfg.Fault)
	}
	if cfg.Every < 0 || cfg.DieAfter < 0 || cfg.OversizedBytes < 0 || cfg.DripDelay < 0 {
		return nil, fmt.Errorf("faultserver: negative setting in %+v", cfg)
	}
	if cfg.OversizedBytes == 0 {
		cfg.OversizedBytes = DefaultOversizedBytes
	}
	if cfg.DripDelay == 0 {
		cfg.DripDelay = 200 * time.Microsecond
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faultserver: listen: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), cfg: cfg, ln: ln,
		done: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Received is the number of chat-completions requests the server read in
// full, answered or not.
func (s *Server) Received() int { return int(s.received.Load()) }

// Faulted is the number of requests that got the fault.
func (s *Server) Faulted() int { return int(s.faulted.Load()) }

// Close stops the server: it releases stalled requests by resetting their
// connections and waits for every goroutine it started.
func (s *Server) Close() {
	s.doneOnce.Do(func() { close(s.done) })
	s.die()
	s.wg.Wait()
}

// die is Die striking: no listener, no connections, at once.
func (s *Server) die() {
	s.mu.Lock()
	s.dead = true
	s.mu.Unlock()
	s.killAll()
}

// killAll closes the listener and resets every open connection.
func (s *Server) killAll() {
	_ = s.ln.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		reset(c)
	}
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return // closed by Close or die
		}
		s.mu.Lock()
		if s.dead {
			s.mu.Unlock()
			reset(c)
			continue
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serve(c)
	}
}

// reset closes c with an RST instead of a FIN: SO_LINGER 0 makes the
// kernel drop unsent data and abort the connection.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}

// serve answers the requests of one keep-alive connection in turn.
func (s *Server) serve(c net.Conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		_ = c.Close()
	}()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return // the client closed, or the connection was reset
		}
		body, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return
		}
		if req.Method != http.MethodPost || !strings.HasSuffix(req.URL.Path, "/chat/completions") {
			// Only inference requests count and misbehave: aiperf also
			// scrapes /metrics, which this server does not serve.
			if _, err := c.Write(notFound); err != nil || req.Close {
				return
			}
			continue
		}
		n := int(s.received.Add(1))
		stream := wantsStream(body)
		fault := s.faultFor(n)
		if fault != None {
			s.faulted.Add(1)
		}
		if !s.answer(c, fault, stream) || req.Close {
			return
		}
	}
}

// faultFor decides how request n (1-based, in reading order) is answered.
func (s *Server) faultFor(n int) Fault {
	switch {
	case s.cfg.Fault == Die:
		if n > s.cfg.DieAfter {
			return Die
		}
		return None
	case s.cfg.Every > 1 && n%s.cfg.Every != 0:
		return None
	}
	return s.cfg.Fault
}

// wantsStream reports whether a chat request body asks for a stream.
func wantsStream(body []byte) bool {
	var req struct {
		Stream bool `json:"stream"`
	}
	_ = json.Unmarshal(body, &req) // a body that is not JSON asks for no stream
	return req.Stream
}

// answer writes the response to one request (or fails it) and reports
// whether the connection can carry another request.
func (s *Server) answer(c net.Conn, fault Fault, stream bool) bool {
	switch fault {
	case Reset:
		reset(c)
		return false
	case Stall:
		s.hold(c)
		return false
	case Die:
		s.die()
		return false
	case ResetMidStream, HalfOpen:
		// The first event of a stream, or the first half of a body.
		var first []byte
		if stream {
			head, events := streamResponse(correctEvents(), "")
			first = append(head, chunk(events[0])...)
		} else {
			body := completion(Content)
			full := bodyResponse("application/json", body, "")
			first = full[:len(full)-len(body)/2]
		}
		if _, err := c.Write(first); err != nil {
			return false
		}
		if fault == ResetMidStream {
			reset(c)
		} else {
			s.hold(c)
		}
		return false
	case Drip:
		for _, b := range s.correct(stream) {
			if _, err := c.Write([]byte{b}); err != nil {
				return false
			}
			select {
			case <-time.After(s.cfg.DripDelay):
			case <-s.done:
				return false
			}
		}
		return true
	}
	_, err := c.Write(s.response(fault, stream))
	return err == nil
}

// hold keeps c open without writing until the client gives up (its close
// ends the read) or the server closes.
func (s *Server) hold(c net.Conn) {
	_, _ = io.Copy(io.Discard, c)
}

// correct is a correct answer, whole.
func (s *Server) correct(stream bool) []byte {
	if stream {
		return joinStream(streamResponse(correctEvents(), ""))
	}
	return bodyResponse("application/json", completion(Content), "")
}

// response is the whole answer for a fault that is only a matter of bytes.
func (s *Server) response(fault Fault, stream bool) []byte {
	switch fault {
	case Garbage:
		if stream {
			return joinStream(streamResponse([][]byte{garbage}, ""))
		}
		return bodyResponse("application/json", garbage, "")
	case EmptyChoices:
		if stream {
			return joinStream(streamResponse([][]byte{event(usageChunk()), done}, ""))
		}
		return bodyResponse("application/json", emptyCompletion(), "")
	case DoneOnly:
		if stream {
			return joinStream(streamResponse([][]byte{done}, ""))
		}
		return bodyResponse("application/json", nil, "")
	case Gzip, CorruptGzip:
		var plain []byte
		if stream {
			plain = bytes.Join(correctEvents(), nil)
		} else {
			plain = completion(Content)
		}
		z := gzipped(plain)
		if fault == CorruptGzip {
			z = corrupt(z)
		}
		if stream {
			return joinStream(streamResponse([][]byte{z}, "gzip"))
		}
		return bodyResponse("application/json", z, "gzip")
	case Oversized:
		text := strings.Repeat("word ", s.cfg.OversizedBytes/5+1)[:s.cfg.OversizedBytes]
		if stream {
			return joinStream(streamResponse([][]byte{event(contentChunk(text)), event(usageChunk()), done}, ""))
		}
		return bodyResponse("application/json", completion(text), "")
	}
	return s.correct(stream)
}

// garbage is neither JSON nor SSE: binary noise around an HTML fragment,
// with no line breaks, so an SSE reader finds no field in it.
var garbage = []byte("\x00\x01\x02\xff\xfe<html><body>502 Bad Gateway</body></html>\x7f\x80")

var done = []byte("data: [DONE]\n\n")

var notFound = []byte("HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 22\r\n\r\n" +
	`{"error":"not found"}` + "\n")

func event(payload []byte) []byte {
	return append(append([]byte("data: "), payload...), "\n\n"...)
}

// correctEvents is a correct stream: content chunks, a usage chunk, [DONE].
func correctEvents() [][]byte {
	var evs [][]byte
	for _, c := range ContentChunks {
		evs = append(evs, event(contentChunk(c)))
	}
	return append(evs, event(usageChunk()), done)
}

func contentChunk(text string) []byte {
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-fault", "object": "chat.completion.chunk", "model": "fault-model",
		"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": text}, "finish_reason": nil}},
	})
	return b
}

func usageChunk() []byte {
	return []byte(`{"id":"chatcmpl-fault","object":"chat.completion.chunk","model":"fault-model","choices":[],` +
		`"usage":{"prompt_tokens":8,"completion_tokens":6,"total_tokens":14}}`)
}

func completion(text string) []byte {
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-fault", "object": "chat.completion", "model": "fault-model",
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": text},
			"finish_reason": "stop"}},
		"usage": map[string]any{"prompt_tokens": 8, "completion_tokens": 6, "total_tokens": 14},
	})
	return b
}

func emptyCompletion() []byte {
	return []byte(`{"id":"chatcmpl-fault","object":"chat.completion","model":"fault-model","choices":[],` +
		`"usage":{"prompt_tokens":8,"completion_tokens":0,"total_tokens":8}}`)
}

// bodyResponse is a complete non-streaming response with a Content-Length.
func bodyResponse(contentType string, body []byte, encoding string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\n", contentType, len(body))
	if encoding != "" {
		fmt.Fprintf(&b, "Content-Encoding: %s\r\n", encoding)
	}
	b.WriteString("\r\n")
	b.Write(body)
	return b.Bytes()
}

// streamResponse is an SSE response's header block and its events, each to
// go out as one HTTP chunk (chunked transfer encoding keeps the connection
// reusable).
func streamResponse(events [][]byte, encoding string) (head []byte, body [][]byte) {
	h := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n"
	if encoding != "" {
		h += "Content-Encoding: " + encoding + "\r\n"
	}
	return []byte(h + "\r\n"), events
}

// joinStream is a whole chunked stream: the head, one chunk per event and
// the terminating chunk.
func joinStream(head []byte, events [][]byte) []byte {
	out := append([]byte{}, head...)
	for _, e := range events {
		out = append(out, chunk(e)...)
	}
	return append(out, "0\r\n\r\n"...)
}

// chunk frames b as one HTTP/1.1 chunk.
func chunk(b []byte) []byte {
	out := []byte(strconv.FormatInt(int64(len(b)), 16) + "\r\n")
	return append(append(out, b...), "\r\n"...)
}

func gzipped(b []byte) []byte {
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	_, _ = w.Write(b)
	_ = w.Close()
	return z.Bytes()
}

// corrupt damages the deflate data of a gzip stream, past its 10-byte
// header, so the header still reads as gzip but the body does not decode.
func corrupt(z []byte) []byte {
	out := append([]byte{}, z...)
	for i := 10; i < len(out)-8 && i < 26; i++ {
		out[i] ^= 0xff
	}
	return out
}
