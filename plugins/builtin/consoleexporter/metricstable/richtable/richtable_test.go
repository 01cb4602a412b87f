package richtable

import (
	"bytes"
	"strings"
	"testing"
)

func TestRenderLayout(t *testing.T) {
	tbl := &Table{
		Title:   "T",
		Columns: []Column{{Header: "Name", Align: Right}, {Header: "Msg", Align: Left}},
		Rows: [][]Cell{
			{{Text: "a"}, {Text: "two\nlines"}},
			{{Text: "long name"}, {Text: "x"}},
		},
	}
	var buf bytes.Buffer
	if err := tbl.Render(&buf, false); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"          T\n" +
		"┏━━━━━━━━━━━┳━━━━━━━┓\n" +
		"┃      Name ┃ Msg   ┃\n" +
		"┡━━━━━━━━━━━╇━━━━━━━┩\n" +
		"│         a │ two   │\n" +
		"│           │ lines │\n" +
		"│ long name │ x     │\n" +
		"└───────────┴───────┘\n"
	if buf.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", buf.String(), want)
	}
}

func TestColorAndSanitize(t *testing.T) {
	tbl := &Table{
		Title: "T", TitleStyle: Italic,
		Columns: []Column{{Header: "H", Style: Green}},
		Rows:    [][]Cell{{{Text: "evil\x1b[2Jx\ttab"}}, {{Text: "N/A", Style: Dim}}},
	}
	var plain, colored bytes.Buffer
	_ = tbl.Render(&plain, false)
	_ = tbl.Render(&colored, true)
	if strings.Contains(plain.String(), "\x1b") {
		t.Fatalf("escape reached the output: %q", plain.String())
	}
	if !strings.Contains(plain.String(), `evil\x1b[2Jx tab`) {
		t.Fatalf("sanitized text missing: %q", plain.String())
	}
	for _, want := range []string{"\x1b[3mT\x1b[0m", "\x1b[1mH\x1b[0m", "\x1b[2mN/A\x1b[0m", "\x1b[32mevil"} {
		if !strings.Contains(colored.String(), want) {
			t.Errorf("colored output lacks %q:\n%q", want, colored.String())
		}
	}
}

func TestWrap(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  []string
	}{
		{"short", 10, []string{"short"}},
		{"the quick brown fox jumps", 10, []string{"the quick", "brown fox", "jumps"}},
		{"abcdefghijklmnop end", 6, []string{"abcdef", "ghijkl", "mnop", "end"}},
		{"宽字符宽字符", 3, []string{"宽", "字", "符", "宽", "字", "符"}},
		{"宽", 1, []string{"宽"}}, // a glyph wider than the column still terminates
	}
	for _, tc := range tests {
		got := cellLines(tc.in, tc.width)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("wrap(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
		}
	}
}
