package transport

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func TestOnEventSeesEventsUntilDone(t *testing.T) {
	srv := httptest.NewServer(scripted(
		part{data: "data: role\n\n"},
		part{data: "data: first\n\ndata: second\n\n"},
		part{data: "data: third\n\n"},
	))
	defer srv.Close()
	var seen []string
	rec := send(t, newTransport(t, Options{}), context.Background(), &sdk.TransportRequest{URL: srv.URL, Streaming: true,
		OnEvent: func(data []byte) bool {
			seen = append(seen, string(data))
			return string(data) == "first" // e.g. the first token releases a prefill slot
		}})
	mustNotFail(t, rec.Error)
	if len(seen) != 2 || seen[0] != "role" || seen[1] != "first" {
		t.Errorf("OnEvent saw %q, want role then first, and nothing after it reported done", seen)
	}
	if len(rec.Responses) != 4 {
		t.Errorf("%d responses recorded, want all 4", len(rec.Responses))
	}
}

func TestCancelAfterSentRecordsCancellation(t *testing.T) {
	srv := httptest.NewServer(scripted(part{data: "data: one\n\n", pause: 2 * time.Second}, part{data: "data: two\n\n"}))
	defer srv.Close()
	tr := newTransport(t, Options{})
	for _, req := range []*sdk.TransportRequest{
		{URL: srv.URL, Streaming: true, CancelAfterSent: 50 * time.Millisecond},
		{URL: srv.URL, Streaming: true, CancelAtSend: true},
	} {
		rec := send(t, tr, context.Background(), req)
		if rec.Error == nil || rec.Error.Code != 499 || rec.Error.Type != ErrTypeCancelled || !rec.WasCancelled {
			t.Fatalf("delay %v at-send %v: error %+v cancelled %v, want a 499 cancellation", req.CancelAfterSent, req.CancelAtSend, rec.Error, rec.WasCancelled)
		}
		if rec.EndPerfNs-rec.StartPerfNs > int64(time.Second) {
			t.Errorf("cancellation took %v: the timer did not fire", time.Duration(rec.EndPerfNs-rec.StartPerfNs))
		}
	}
	// A request that ends before its delay is not cancelled.
	rec := send(t, tr, context.Background(), &sdk.TransportRequest{URL: httptest.NewServer(scripted(part{data: "data: x\n\n"})).URL,
		Streaming: true, CancelAfterSent: time.Minute})
	mustNotFail(t, rec.Error)
}

// connCounter counts the TCP connections a server accepted.
type connCounter struct {
	mu    sync.Mutex
	conns map[net.Conn]bool
}

func (c *connCounter) track(conn net.Conn, state http.ConnState) {
	if state == http.StateNew {
		c.mu.Lock()
		c.conns[conn] = true
		c.mu.Unlock()
	}
}

func (c *connCounter) n() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.conns)
}

func TestConnectionReuseModes(t *testing.T) {
	cases := []struct {
		name  string
		reqs  func(url string) []*sdk.TransportRequest
		conns int
	}{
		{"pooled reuses one connection", func(u string) []*sdk.TransportRequest {
			return []*sdk.TransportRequest{{URL: u}, {URL: u}, {URL: u}}
		}, 1},
		{"never opens one per request", func(u string) []*sdk.TransportRequest {
			return []*sdk.TransportRequest{{URL: u, CloseConnection: true}, {URL: u, CloseConnection: true}, {URL: u, CloseConnection: true}}
		}, 3},
		{"sticky sessions keep their own connection", func(u string) []*sdk.TransportRequest {
			return []*sdk.TransportRequest{
				{URL: u, ConnectionKey: "a"}, {URL: u, ConnectionKey: "b"}, {URL: u, ConnectionKey: "a"},
				{URL: u, ConnectionKey: "b", CloseConnection: true}, {URL: u, ConnectionKey: "a", CloseConnection: true},
			}
		}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			counter := &connCounter{conns: map[net.Conn]bool{}}
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{}`))
			}))
			srv.Config.ConnState = counter.track
			srv.Start()
			defer srv.Close()
			tr := newTransport(t, Options{MaxConnsPerHost: 4})
			for _, req := range c.reqs(srv.URL) {
				mustNotFail(t, send(t, tr, context.Background(), req).Error)
			}
			if got := counter.n(); got != c.conns {
				t.Errorf("%d connections, want %d", got, c.conns)
			}
		})
	}
}

func TestReleaseConnectionClosesASessionThatEndedEarly(t *testing.T) {
	counter := &connCounter{conns: map[net.Conn]bool{}}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusInternalServerError) // the session's first turn fails
	}))
	srv.Config.ConnState = counter.track
	srv.Start()
	defer srv.Close()
	tr := newTransport(t, Options{})
	_ = send(t, tr, context.Background(), &sdk.TransportRequest{URL: srv.URL, ConnectionKey: "s1"})
	if _, ok := tr.sticky.Load("s1"); !ok {
		t.Fatal("no sticky client after the first turn")
	}
	tr.ReleaseConnection("s1")
	if _, ok := tr.sticky.Load("s1"); ok {
		t.Error("the session's client is still held after ReleaseConnection")
	}
	tr.ReleaseConnection("never-seen") // harmless
}
