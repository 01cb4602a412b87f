package replayserver

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
)

const sample = `# source: test
status: 201
header: Content-Type: text/event-stream
header: X-Thing: a:b
expect-output: "ab"
---
"data: a\n\n"
# a comment
"data: b\r\n\r\n"
`

// TestParse reads every header field and one write per body line.
func TestParse(t *testing.T) {
	tr, err := Parse("srv/case", strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Server != "srv" || tr.Status != 201 || len(tr.Sources) != 1 || len(tr.Writes) != 2 {
		t.Fatalf("got %+v", tr)
	}
	if tr.Headers[1] != [2]string{"X-Thing", "a:b"} || string(tr.Writes[1]) != "data: b\r\n\r\n" {
		t.Errorf("headers %q writes %q", tr.Headers, tr.Writes)
	}
	if v, _ := tr.Field("expect-output"); v != `"ab"` {
		t.Errorf("expect-output %q", v)
	}
}

// TestParseErrorsNameTheLine rejects bad files with the file and line.
func TestParseErrorsNameTheLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"# source: x\n---\ndata: a\n", "x/y:3: a write must be one Go-quoted string"},
		{"# source: x\nstatus: abc\n---\n", "x/y:2: status \"abc\""},
		{"# source: x\nstatus: 200\n", "no \"---\" line"},
		{"status: 200\n---\n", "no \"# source:\" line"},
		{"# source: x\nnonsense\n---\n", "x/y:2: want \"key: value\""},
	} {
		_, err := Parse("x/y", strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
}

// TestServeKeepsWriteBoundaries reads the raw HTTP/1.1 response: each
// recorded write arrives as its own chunk, bytes unchanged.
func TestServeKeepsWriteBoundaries(t *testing.T) {
	tr, err := Parse("srv/case", strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	s := Start(t, tr)
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
	br := bufio.NewReader(conn)
	status, _ := br.ReadString('\n')
	if !strings.HasPrefix(status, "HTTP/1.1 201") {
		t.Fatalf("status line %q", status)
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if line == "\r\n" {
			break
		}
	}
	var chunks []string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(line), 16, 64)
		if err != nil {
			t.Fatalf("chunk size %q: %v", line, err)
		}
		if n == 0 {
			break
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(br, b); err != nil {
			t.Fatal(err)
		}
		chunks = append(chunks, string(b[:n]))
	}
	if len(chunks) != 2 || chunks[0] != "data: a\n\n" || chunks[1] != "data: b\r\n\r\n" {
		t.Errorf("chunks %q, want the two recorded writes", chunks)
	}
	if reqs := s.Requests(); len(reqs) != 1 || reqs[0].Path != "/v1/chat/completions" || string(reqs[0].Body) != "{}" {
		t.Errorf("requests %+v", reqs)
	}
}

// TestLoadAllReadsTheFixtures: every shipped transcript parses.
func TestLoadAllReadsTheFixtures(t *testing.T) {
	trs, err := LoadAll("testdata/transcripts")
	if err != nil {
		t.Fatal(err)
	}
	if len(trs) < 10 {
		t.Fatalf("%d transcripts, want at least 10", len(trs))
	}
	for _, tr := range trs {
		if tr.Server == "" || len(tr.Writes) == 0 {
			t.Errorf("%s: server %q, %d writes", tr.Name, tr.Server, len(tr.Writes))
		}
	}
}
