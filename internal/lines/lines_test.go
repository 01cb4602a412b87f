package lines

import (
	"strings"
	"testing"
)

func TestSplitterEmitsWholeLines(t *testing.T) {
	var s Splitter
	var got []string
	emit := func(l []byte) { got = append(got, string(l)) }
	for _, chunk := range []string{"par", "tial\nsecond\r\n", "third", "\n", "tail"} {
		s.Write([]byte(chunk), 1024, emit)
	}
	if strings.Join(got, "|") != "partial|second|third" {
		t.Errorf("lines = %q", got)
	}
	if p := string(s.Pending()); p != "tail" || len(got) != 3 {
		t.Errorf("Pending = %q (emitted %q), want the unterminated line, not emitted", p, got)
	}
	s.Flush(emit)
	if len(got) != 4 || got[3] != "tail" {
		t.Errorf("Flush did not emit the pending line: %q", got)
	}
	s.Write([]byte(strings.Repeat("x", 10)), 8, emit)
	if len(got) != 5 || len(got[4]) != 10 {
		t.Errorf("an overlong unterminated line was not emitted: %q", got)
	}
}
