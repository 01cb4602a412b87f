package richtable

import (
	"strings"
	"unicode"
)

// cellLines sanitizes a cell and splits it into display lines, wrapping
// lines wider than maxWidth (0 = unlimited).
func cellLines(s string, maxWidth int) []string {
	var out []string
	for _, line := range strings.Split(sanitize(s), "\n") {
		if maxWidth <= 0 || textWidth(line) <= maxWidth {
			out = append(out, line)
			continue
		}
		out = append(out, wrap(line, maxWidth)...)
	}
	return out
}

// sanitize makes text safe for a terminal: tabs become spaces, CR and other
// control characters (ESC above all) become visible \xNN escapes. Newlines
// are kept; they separate cell lines.
func sanitize(s string) string {
	clean := true
	for _, r := range s {
		if r != '\n' && (unicode.IsControl(r) || r == '\uFFFD') {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteRune(r)
		case r == '\t':
			b.WriteByte(' ')
		case unicode.IsControl(r):
			const hex = "0123456789abcdef"
			if r < 0x100 {
				b.WriteString(`\x`)
				b.WriteByte(hex[r>>4])
				b.WriteByte(hex[r&0xf])
			} else {
				b.WriteRune('\uFFFD')
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// wrap breaks a line at spaces so each piece fits width; a word longer than
// width is split hard.
func wrap(line string, width int) []string {
	var out []string
	var cur []rune
	curW := 0
	flush := func() {
		out = append(out, strings.TrimRight(string(cur), " "))
		cur, curW = cur[:0], 0
	}
	for _, word := range strings.Split(line, " ") {
		rs := []rune(word)
		ww := textWidth(word)
		if curW > 0 && curW+1+ww > width {
			flush()
		}
		if curW > 0 {
			cur = append(cur, ' ')
			curW++
		}
		// Only a word wider than a whole line gets here with curW == 0:
		// split it hard, at least one glyph per line.
		for ww > width-curW && len(rs) > 0 {
			take, w := 0, 0
			for take < len(rs) && w+runeWidth(rs[take]) <= width-curW {
				w += runeWidth(rs[take])
				take++
			}
			take = max(take, 1)
			cur = append(cur, rs[:take]...)
			curW += textWidth(string(rs[:take]))
			rs = rs[take:]
			ww = textWidth(string(rs))
			flush()
		}
		cur = append(cur, rs...)
		curW += ww
	}
	if curW > 0 || len(out) == 0 {
		flush()
	}
	return out
}

// textWidth is the number of terminal cells s occupies.
func textWidth(s string) int {
	w := 0
	for _, r := range s {
		w += runeWidth(r)
	}
	return w
}

// runeWidth approximates wcwidth: combining marks take no cell, East Asian
// wide characters and emoji take two.
func runeWidth(r rune) int {
	switch {
	case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || r == '\u200B':
		return 0
	case r >= 0x1100 && r <= 0x115F, r >= 0x2E80 && r <= 0xA4CF && r != 0x303F,
		r >= 0xAC00 && r <= 0xD7A3, r >= 0xF900 && r <= 0xFAFF, r >= 0xFE30 && r <= 0xFE4F,
		r >= 0xFF00 && r <= 0xFF60, r >= 0xFFE0 && r <= 0xFFE6,
		r >= 0x1F300 && r <= 0x1F64F, r >= 0x1F900 && r <= 0x1F9FF, r >= 0x20000 && r <= 0x3FFFD:
		return 2
	}
	return 1
}
