// Package richtable renders a box-drawn table in the style of Python Rich's
// default (HEAVY_HEAD) table, which is what AIPerf prints, so our console
// output looks the same. It is shared by the builtin console exporters.
package richtable

import (
	"bufio"
	"io"
	"strings"
)

// Align is a column's horizontal justification.
type Align int

const (
	Right Align = iota
	Left
)

// SGR styles (ANSI Select Graphic Rendition parameters) used by the exporters.
const (
	Bold   = "1"
	Dim    = "2"
	Italic = "3"
	Red    = "31"
	Green  = "32"
	Yellow = "33"
	Cyan   = "36"
)

// Column describes one column.
type Column struct {
	Header string
	Align  Align
	// Style colours the column's cells when color is on.
	Style string
	// MaxWidth wraps longer cell lines (0 = never wrap).
	MaxWidth int
}

// Cell is one table cell. Text may contain newlines (multi-line cells);
// Style overrides the column style (e.g. dim "N/A").
type Cell struct {
	Text  string
	Style string
}

// Table is a titled table.
type Table struct {
	Title      string
	TitleStyle string
	Columns    []Column
	Rows       [][]Cell
}

// Render writes the table. Cell text is sanitized first: it may carry
// server-controlled bytes (error messages), and raw escape sequences must
// never reach a terminal.
func (t *Table) Render(w io.Writer, color bool) error {
	bw := bufio.NewWriter(w)
	n := len(t.Columns)
	header := make([][]string, n)
	for i, c := range t.Columns {
		header[i] = cellLines(c.Header, c.MaxWidth)
	}
	body := make([][][]string, len(t.Rows))
	for r, row := range t.Rows {
		body[r] = make([][]string, n)
		for i := range n {
			if i < len(row) {
				body[r][i] = cellLines(row[i].Text, t.Columns[i].MaxWidth)
			}
		}
	}

	widths := make([]int, n)
	for i := range n {
		widths[i] = maxWidth(header[i])
		for r := range body {
			widths[i] = max(widths[i], maxWidth(body[r][i]))
		}
	}
	total := n + 1
	for _, wd := range widths {
		total += wd + 2
	}

	if t.Title != "" {
		title := sanitize(t.Title)
		pad := max(0, (total-textWidth(title))/2)
		bw.WriteString(strings.Repeat(" ", pad))
		writeStyled(bw, title, t.TitleStyle, color)
		bw.WriteByte('\n')
	}
	rule(bw, widths, "┏", "━", "┳", "┓")
	styles := make([]string, n)
	for i := range styles {
		styles[i] = Bold
	}
	writeRow(bw, t.Columns, widths, header, styles, "┃", color)
	rule(bw, widths, "┡", "━", "╇", "┩")
	for r, row := range t.Rows {
		for i := range styles {
			styles[i] = t.Columns[i].Style
			if i < len(row) && row[i].Style != "" {
				styles[i] = row[i].Style
			}
		}
		writeRow(bw, t.Columns, widths, body[r], styles, "│", color)
	}
	rule(bw, widths, "└", "─", "┴", "┘")
	return bw.Flush()
}

func rule(bw *bufio.Writer, widths []int, left, fill, mid, right string) {
	bw.WriteString(left)
	for i, wd := range widths {
		if i > 0 {
			bw.WriteString(mid)
		}
		bw.WriteString(strings.Repeat(fill, wd+2))
	}
	bw.WriteString(right)
	bw.WriteByte('\n')
}

// writeRow writes one logical row, which spans as many lines as its tallest
// cell; shorter cells are padded below (Rich's top vertical alignment).
func writeRow(bw *bufio.Writer, cols []Column, widths []int, cells [][]string, styles []string, sep string, color bool) {
	height := 1
	for _, c := range cells {
		height = max(height, len(c))
	}
	for line := range height {
		bw.WriteString(sep)
		for i, wd := range widths {
			if i > 0 {
				bw.WriteString(sep)
			}
			text := ""
			if line < len(cells[i]) {
				text = cells[i][line]
			}
			gap := strings.Repeat(" ", wd-textWidth(text))
			bw.WriteByte(' ')
			if cols[i].Align == Right {
				bw.WriteString(gap)
			}
			if text != "" {
				writeStyled(bw, text, styles[i], color)
			}
			if cols[i].Align == Left {
				bw.WriteString(gap)
			}
			bw.WriteByte(' ')
		}
		bw.WriteString(sep)
		bw.WriteByte('\n')
	}
}

func writeStyled(bw *bufio.Writer, text, style string, color bool) {
	if !color || style == "" {
		bw.WriteString(text)
		return
	}
	bw.WriteString("\x1b[" + style + "m")
	bw.WriteString(text)
	bw.WriteString("\x1b[0m")
}

func maxWidth(lines []string) int {
	m := 0
	for _, l := range lines {
		m = max(m, textWidth(l))
	}
	return m
}
