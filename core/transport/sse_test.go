package transport

import (
	"bytes"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// ev is an expected event: the 1-based index of the read that delivered its
// first byte, its type and its data.
type ev struct {
	read  int64
	event string
	data  string
}

// parseReads feeds reads i=0.. at perfNs i+1 and finishes the stream.
func parseReads(reads ...string) []sdk.Response {
	var p SSEParser
	var out []sdk.Response
	for i, r := range reads {
		out = p.Feed(out, []byte(r), int64(i+1))
	}
	return p.Finish(out)
}

func TestSSEParser(t *testing.T) {
	tests := []struct {
		name  string
		reads []string
		want  []ev
	}{
		{"single event", []string{"data: hello\n\n"}, []ev{{1, "", "hello"}}},
		{"multi-line data joins with LF", []string{"data: a\ndata: b\ndata: c\n\n"}, []ev{{1, "", "a\nb\nc"}}},
		{"CRLF endings", []string{"data: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n"}, []ev{{1, "", "a\nb"}, {1, "", "c"}}},
		{"CR endings", []string{"data: a\rdata: b\r\rdata: c\r\r"}, []ev{{1, "", "a\nb"}, {1, "", "c"}}},
		{"mixed endings", []string{"data: a\r\ndata: b\n\rdata: c\r\n\n"}, []ev{{1, "", "a\nb"}, {1, "", "c"}}},
		{"CRLF split across reads is one line ending", []string{"data: a\r", "\n\r", "\ndata: b\r\n\r\n"}, []ev{{1, "", "a"}, {3, "", "b"}}},
		{"CR at read end then data", []string{"data: a\r", "\rdata: b\r\r"}, []ev{{1, "", "a"}, {2, "", "b"}}},
		{"comment block is not an event", []string{": ping\n\ndata: x\n\n"}, []ev{{1, "", "x"}}},
		{"comment inside an event is ignored", []string{": note\ndata: x\n: more\n\n"}, []ev{{1, "", "x"}}},
		{"[DONE] is kept", []string{"data: {\"a\":1}\n\ndata: [DONE]\n\n"}, []ev{{1, "", `{"a":1}`}, {1, "", "[DONE]"}}},
		{"leading BOM stripped", []string{"\xEF\xBB\xBFdata: x\n\n"}, []ev{{1, "", "x"}}},
		{"BOM split across reads", []string{"\xEF", "\xBB", "\xBFdata: x\n\n"}, []ev{{1, "", "x"}}},
		{"only the first BOM is stripped", []string{"\xEF\xBB\xBFdata: x\n\n\xEF\xBB\xBFdata: y\n\n"}, []ev{{1, "", "x"}}},
		{"event type", []string{"event: delta\ndata: x\n\n"}, []ev{{1, "delta", "x"}}},
		{"event type resets after dispatch", []string{"event: a\ndata: 1\n\ndata: 2\n\n"}, []ev{{1, "a", "1"}, {1, "", "2"}}},
		{"event without data is not dispatched", []string{"event: ping\n\n"}, nil},
		{"error event without data is dispatched", []string{"event: error\n\n"}, []ev{{1, "error", ""}}},
		{"field without colon has empty value", []string{"data\n\n"}, []ev{{1, "", ""}}},
		{"two empty data lines", []string{"data\ndata:\n\n"}, []ev{{1, "", "\n"}}},
		{"only one space is stripped", []string{"data:  two\n\ndata:none\n\n"}, []ev{{1, "", " two"}, {1, "", "none"}}},
		{"unknown fields ignored", []string{"id: 7\nretry: 100\nfoo: bar\ndata: x\n\n"}, []ev{{1, "", "x"}}},
		{"field names are case-sensitive", []string{"Data: x\n\n"}, nil},
		{"event split across reads keeps the first read's time", []string{"data: hel", "lo\n", "\n"}, []ev{{1, "", "hello"}}},
		{"two events in one read share its time", []string{"data: a\n\ndata: b\n\n"}, []ev{{1, "", "a"}, {1, "", "b"}}},
		{"event starting mid-read", []string{"data: a\n\ndata: b", "b\n\n"}, []ev{{1, "", "a"}, {1, "", "bb"}}},
		{"blank lines only", []string{"\n\n\r\n\r"}, nil},
		{"final event without blank line", []string{"data: a\n\ndata: last"}, []ev{{1, "", "a"}, {1, "", "last"}}},
		{"final event with one line ending", []string{"data: last\n"}, []ev{{1, "", "last"}}},
		{"UTF-8 split across reads", []string{"data: h\xC3", "\xA9 \xE4\xB8", "\x96\n\n"}, []ev{{1, "", "hé 世"}}},
		{"colon in value kept", []string{"data: {\"a\":\"b:c\"}\n\n"}, []ev{{1, "", `{"a":"b:c"}`}}},
		{"empty reads change nothing", []string{"", "data: x", "", "\n\n", ""}, []ev{{2, "", "x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseReads(tt.reads...)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d events %+v, want %d", len(got), got, len(tt.want))
			}
			for i, w := range tt.want {
				g := got[i]
				if g.PerfNs != w.read || g.Event != w.event || string(g.Data) != w.data {
					t.Errorf("event %d = {perf %d, %q, %q}, want {perf %d, %q, %q}",
						i, g.PerfNs, g.Event, g.Data, w.read, w.event, w.data)
				}
			}
		})
	}
}

func TestSSEParserPayloadsDoNotAlias(t *testing.T) {
	got := parseReads("data: aa\n\ndata: bb\n\n")
	if len(got) != 2 {
		t.Fatalf("got %d events", len(got))
	}
	_ = append(got[0].Data, 'X', 'X') // must not overwrite the next payload
	if string(got[1].Data) != "bb" {
		t.Fatalf("second payload became %q after appending to the first", got[1].Data)
	}
}

func TestSSEParserResetKeepsHandedOutPayloads(t *testing.T) {
	var p SSEParser
	first := p.Finish(p.Feed(nil, []byte("data: one\n\n"), 1))
	p.Reset()
	second := p.Finish(p.Feed(nil, []byte("data: two\n\n"), 2))
	if string(first[0].Data) != "one" || string(second[0].Data) != "two" {
		t.Fatalf("payloads after Reset: %q, %q", first[0].Data, second[0].Data)
	}
	// A partial line or open event must not leak into the next stream.
	p.Reset()
	_ = p.Feed(nil, []byte("event: error\ndata: half"), 3)
	p.Reset()
	third := p.Finish(p.Feed(nil, []byte("data: three\n\n"), 4))
	if len(third) != 1 || third[0].Event != "" || string(third[0].Data) != "three" {
		t.Fatalf("stream after Reset mid-event = %+v", third)
	}
}

func TestSSEParserErrorComment(t *testing.T) {
	var p SSEParser
	_ = p.Finish(p.Feed(nil, []byte(": first\ndata: x\n\nevent: error\n: boom\n: other\ndata: {}\n\n"), 1))
	c, ok := p.ErrorComment()
	if !ok || c != "boom" {
		t.Fatalf("ErrorComment() = %q, %v; want \"boom\", true", c, ok)
	}
}

func TestSSEParserLargeStreamMatchesWholeParse(t *testing.T) {
	stream := chatStream(500)
	whole := parseReads(string(stream))
	for _, size := range []int{1, 3, 7, 64, 4096} {
		var p SSEParser
		var got []sdk.Response
		for off := 0; off < len(stream); off += size {
			got = p.Feed(got, stream[off:min(off+size, len(stream))], 1)
		}
		got = p.Finish(got)
		if len(got) != len(whole) || len(got) != 502 {
			t.Fatalf("read size %d: %d events, whole parse %d, want 502", size, len(got), len(whole))
		}
		for i := range got {
			if !bytes.Equal(got[i].Data, whole[i].Data) {
				t.Fatalf("read size %d: event %d = %q, want %q", size, i, got[i].Data, whole[i].Data)
			}
		}
	}
}
