package openai

import "github.com/aiperf-go/aiperf/internal/jsonenc"

// AppendString appends s as a quoted JSON string. The output equals
// encoding/json's with SetEscapeHTML(false): <, > and & are NOT escaped (the
// body goes to an inference server, not into HTML, and Python's json/orjson
// do the same), invalid UTF-8 becomes U+FFFD and U+2028/U+2029 are escaped
// so the body is also valid JavaScript. It is [jsonenc.AppendString], kept
// here for the endpoints that build bodies with this package.
func AppendString(dst []byte, s string) []byte {
	return jsonenc.AppendString(dst, s)
}
