package errclass

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// loopbackFailure is a real failure over loopback: serve runs the server
// side of each accepted connection; a nil serve means a closed port.
type loopbackFailure struct {
	name     string
	serve    func(c net.Conn)
	readBody bool // fail while reading the body, not before the headers
}

// failures lists the failures the error summary must collapse.
var failures = []loopbackFailure{
	{name: "closed port"},
	{name: "reset before headers", serve: func(c net.Conn) {
		readRequest(c)
		c.(*net.TCPConn).SetLinger(0) // close with RST
		c.Close()
	}},
	{name: "closed before headers", serve: func(c net.Conn) {
		readRequest(c)
		c.Close()
	}},
	{name: "closed mid-body", readBody: true, serve: func(c net.Conn) {
		readRequest(c)
		c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial"))
		c.Close()
	}},
	{name: "reset mid-body", readBody: true, serve: func(c net.Conn) {
		readRequest(c)
		c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial"))
		c.(*net.TCPConn).SetLinger(0)
		c.Close()
	}},
}

func readRequest(c net.Conn) {
	req, err := http.ReadRequest(bufio.NewReader(c))
	if err == nil {
		req.Body.Close()
	}
}

// realErrors makes n requests that fail as f says, each on a fresh
// connection (so from a fresh client port), and returns their messages the
// way the transport records them (without the url.Error wrapper).
func realErrors(t *testing.T, f loopbackFailure, n int) []string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if f.serve == nil {
		ln.Close()
	} else {
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go f.serve(c)
			}
		}()
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	var msgs []string
	for range n {
		resp, err := client.Get("http://" + addr + "/v1/chat/completions")
		if err == nil {
			_, err = readAll(resp)
		}
		if err == nil {
			t.Fatalf("%s: request succeeded", f.name)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		msgs = append(msgs, err.Error())
	}
	return msgs
}

func readAll(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	var sb strings.Builder
	buf := make([]byte, 512)
	for {
		n, err := resp.Body.Read(buf)
		sb.Write(buf[:n])
		if err != nil {
			if err.Error() == "EOF" {
				return []byte(sb.String()), nil
			}
			return nil, err
		}
	}
}

func TestRealLoopbackFailuresCollapseToOneGroup(t *testing.T) {
	for _, f := range failures {
		t.Run(f.name, func(t *testing.T) {
			msgs := realErrors(t, f, 5)
			groups := map[sdk.ErrorDetails]int{}
			for _, m := range msgs {
				groups[GroupKey(sdk.ErrorDetails{Type: "ClientError", Message: m})]++
			}
			if len(groups) != 1 {
				t.Fatalf("%d groups from %q, want 1: %v", len(groups), msgs, groups)
			}
			for k := range groups {
				if strings.Contains(k.Message, "->") {
					t.Errorf("normalised message %q still names the client address", k.Message)
				}
			}
		})
	}
}

// TestRawMessagesDiffer shows why grouping is needed: resets from different
// client ports have different raw messages.
func TestRawMessagesDiffer(t *testing.T) {
	msgs := realErrors(t, failures[1], 3)
	seen := map[string]bool{}
	for _, m := range msgs {
		seen[m] = true
	}
	if len(seen) < 2 {
		t.Fatalf("raw reset messages %q are all alike; the client port should differ", msgs)
	}
}

func TestNormalize(t *testing.T) {
	cases := []struct {
		msg, want string
	}{
		{"dial tcp 127.0.0.1:1: connect: connection refused", "dial tcp 127.0.0.1:1: connect: connection refused"},
		{"read tcp 127.0.0.1:54321->127.0.0.1:8000: read: connection reset by peer", "read tcp 127.0.0.1:8000: read: connection reset by peer"},
		{"write tcp [::1]:40000->[::1]:8000: write: broken pipe", "write tcp [::1]:8000: write: broken pipe"},
		{"read tcp 10.0.0.2:40000->10.0.0.9:443: i/o timeout", "read tcp 10.0.0.9:443: i/o timeout"},
		{"dial tcp 10.255.255.1:80: i/o timeout", "dial tcp 10.255.255.1:80: i/o timeout"},
		{"net/http: TLS handshake timeout", "net/http: TLS handshake timeout"},
		{"net/http: timeout awaiting response headers", "net/http: timeout awaiting response headers"},
		{"dial tcp: lookup model.invalid on 127.0.0.53:53: no such host", "dial tcp: lookup model.invalid on 127.0.0.53:53: no such host"},
		{"dial tcp: lookup model.internal on 10.0.0.2:53: read udp 10.0.0.5:41234->10.0.0.2:53: i/o timeout", "dial tcp: lookup model.internal on 10.0.0.2:53: read udp 10.0.0.2:53: i/o timeout"},
		{"tls: failed to verify certificate: x509: certificate signed by unknown authority", "tls: failed to verify certificate: x509: certificate signed by unknown authority"},
		{"remote error: tls: handshake failure", "remote error: tls: handshake failure"},
		{"stream error: stream ID 17; INTERNAL_ERROR; received from peer", "stream error: stream ID N; INTERNAL_ERROR; received from peer"},
		{`http2: server sent GOAWAY and closed the connection; LastStreamID=41, ErrCode=NO_ERROR, debug=""`, `http2: server sent GOAWAY and closed the connection; LastStreamID=N, ErrCode=NO_ERROR, debug=""`},
		{"unexpected EOF", "unexpected EOF"},
		{"EOF", "EOF"},
		{"context canceled", "context canceled"},
		{"TCP user timeout after 30s on request 0b7f3c2e-9a1d-4c55-8e21-3f6a9d2b1c04", "TCP user timeout after <duration> on request <id>"},
		{"response 2: invalid character 'x'", "response 2: invalid character 'x'"},
	}
	for _, c := range cases {
		if got := Normalize(c.msg); got != c.want {
			t.Errorf("Normalize(%q)\n got %q\nwant %q", c.msg, got, c.want)
		}
	}
}

// TestGroupKeyKeepsCodedMessages: HTTP bodies, SSE errors and cancellations
// carry a code and group on their exact text, as in AIPerf.
func TestGroupKeyKeepsCodedMessages(t *testing.T) {
	for _, e := range []sdk.ErrorDetails{
		{Code: 500, Type: "Internal Server Error", Message: "worker 10.0.0.1:5000->10.0.0.2:80 took 1.5s"},
		{Code: 499, Type: "RequestCancellationError", Message: "Request was cancelled after 0.250 seconds"},
	} {
		if got := GroupKey(e); got != e {
			t.Errorf("GroupKey(%+v) = %+v, want it unchanged", e, got)
		}
	}
	e := sdk.ErrorDetails{Type: "ClientError", Message: "read tcp 127.0.0.1:1->127.0.0.1:2: read: connection reset by peer"}
	if got := GroupKey(e); got.Type != "ClientError" || got.Message != "read tcp 127.0.0.1:2: read: connection reset by peer" {
		t.Errorf("GroupKey(%+v) = %+v", e, got)
	}
}

// Retry-After is a hint, not what failed: 429s with different waits are
// one row of the summary.
func TestGroupKeyDropsRetryAfter(t *testing.T) {
	a := GroupKey(sdk.ErrorDetails{Code: 429, Type: "Too Many Requests", Message: "slow down", RetryAfter: "30"})
	b := GroupKey(sdk.ErrorDetails{Code: 429, Type: "Too Many Requests", Message: "slow down", RetryAfter: "7"})
	if a != b || a.RetryAfter != "" {
		t.Errorf("group keys %+v and %+v, want one key without retry_after", a, b)
	}
}
