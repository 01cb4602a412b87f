// Package jsonenc appends JSON string literals straight into a byte slice,
// for the hand-rolled encoders on hot paths (request bodies, per-record
// JSONL lines) that cannot afford encoding/json's reflection and
// allocations.
//
// AppendString leaves <, > and & alone (unlike encoding/json's default):
// the output goes to inference servers and data files, not into HTML, and
// Python's json/orjson, which AIPerf uses, do not escape them either. It
// escapes '"', '\\' and control characters, replaces invalid UTF-8 with
// U+FFFD, and escapes U+2028/U+2029 so the output is also valid JavaScript.
package jsonenc

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// safeASCII marks the ASCII bytes that are copied into a JSON string as is.
var safeASCII = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

// AppendString appends s as a quoted JSON string. The output equals
// encoding/json's with SetEscapeHTML(false), including the short escapes
// \b and \f for backspace and form feed.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if safeASCII[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch {
			case b == '"' || b == '\\':
				dst = append(dst, '\\', b)
			case b == '\b':
				dst = append(dst, '\\', 'b')
			case b == '\f':
				dst = append(dst, '\\', 'f')
			case b == '\n':
				dst = append(dst, '\\', 'n')
			case b == '\r':
				dst = append(dst, '\\', 'r')
			case b == '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
