package mockserver

import (
	"net/http"
	"strconv"
	"sync/atomic"
)

// writeAPIError sends an OpenAI-style error body:
// {"error":{"message":…,"type":…,"param":null,"code":<status>}}.
func writeAPIError(w http.ResponseWriter, status int, errType, msg string) {
	b := make([]byte, 0, 96+len(msg))
	b = append(b, `{"error":{"message":`...)
	b = appendJSONString(b, msg)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, errType)
	b = append(b, `,"param":null,"code":`...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, "}}\n"...)
	writeJSONStatus(w, status, b)
}

// errorInjector decides which inference requests fail. Decision n is a hash
// of (seed, n) with n from an atomic counter, so the sequence of outcomes is
// fixed by the seed and concurrent requests need no lock.
type errorInjector struct {
	// threshold is the rate scaled to [0, 2^53]; a draw below it fails.
	threshold uint64
	seed      uint64
	n         atomic.Uint64
}

func newErrorInjector(ratePercent float64, seed int64) *errorInjector {
	return &errorInjector{
		threshold: uint64(ratePercent / 100 * (1 << 53)),
		seed:      mix64(uint64(seed) ^ 0x6572726f72), // "error"
	}
}

// fail reports whether the next inference request gets an injected error.
func (e *errorInjector) fail() bool {
	if e.threshold == 0 {
		return false
	}
	n := e.n.Add(1)
	return mix64(e.seed+n*golden)>>11 < e.threshold
}

// errorWriter writes an error response in one API's error shape.
type errorWriter func(w http.ResponseWriter, status int, errType, msg string)

// writeAnthropicError sends Anthropic's error body:
// {"type":"error","error":{"type":…,"message":…}}.
func writeAnthropicError(w http.ResponseWriter, status int, errType, msg string) {
	if errType == "server_error" {
		errType = "api_error" // Anthropic's name for a 500
	}
	b := make([]byte, 0, 64+len(msg))
	b = append(b, `{"type":"error","error":{"type":`...)
	b = appendJSONString(b, errType)
	b = append(b, `,"message":`...)
	b = appendJSONString(b, msg)
	b = append(b, "}}\n"...)
	writeJSONStatus(w, status, b)
}
