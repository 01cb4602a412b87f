// Package pyfmt formats values the way Python's repr does: numbers as
// AIPerf's JSON exports spell them, so our files compare byte for byte,
// and strings as AIPerf's error messages and form fields print them.
package pyfmt

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// AppendFloat appends f the way Python's repr (and so AIPerf's JSON) writes
// a float: shortest round-trip digits, a trailing ".0" on whole numbers, and
// scientific notation only below 1e-4 or from 1e16 on. Callers must have
// filtered out NaN and ±Inf, which JSON cannot carry.
func AppendFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	if abs != 0 && (abs < 1e-4 || abs >= 1e16) {
		return strconv.AppendFloat(b, f, 'e', -1, 64)
	}
	b = strconv.AppendFloat(b, f, 'f', -1, 64)
	if f == math.Trunc(f) {
		b = append(b, '.', '0')
	}
	return b
}

// Float is Python's repr of any float: AppendFloat's spelling for finite
// values, and nan, inf, -inf.
func Float(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return string(AppendFloat(nil, f))
}

// AppendStr appends Python's repr of a str: single quotes unless the text
// has a single quote and no double quote; \\, the quote, \t, \n and \r
// escaped; other non-printable characters as \xNN, \uNNNN or \UNNNNNNNN.
func AppendStr(b []byte, s string) []byte {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	b = append(b, quote)
	for _, r := range s {
		switch {
		case r == rune(quote) || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\t':
			b = append(b, `\t`...)
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r < ' ' || r == 0x7f:
			b = fmt.Appendf(b, `\x%02x`, r)
		case r < 0x7f || unicode.IsPrint(r):
			b = utf8.AppendRune(b, r)
		case r <= 0xff:
			b = fmt.Appendf(b, `\x%02x`, r)
		case r <= 0xffff:
			b = fmt.Appendf(b, `\u%04x`, r)
		default:
			b = fmt.Appendf(b, `\U%08x`, r)
		}
	}
	return append(b, quote)
}
