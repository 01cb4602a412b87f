package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Unit is the top level of one JSON response unit, for endpoints that read
// it the way AIPerf's dict lookups do (embeddings, rankings, TGI, Solido).
// At most one of Object and Array is set; both are nil for a scalar.
type Unit struct {
	// Object holds the members of a JSON object, values undecoded.
	Object map[string]json.RawMessage
	// Array holds the elements of a JSON array, undecoded.
	Array []json.RawMessage
}

// DecodeUnit decodes the top level of one response unit. ok is false when
// the unit carries nothing: empty data, [DONE], or a JSON value Python
// treats as false (null, false, 0, "", [], {}), which AIPerf's
// `if not json_obj: return None` skips. Malformed JSON is an error that
// names the endpoint; AIPerf's get_json would return None there, but every
// endpoint of this module reports it (sdktest requires it).
func DecodeUnit(endpoint string, data []byte) (u Unit, ok bool, err error) {
	if IsEmptyUnit(data) {
		return Unit{}, false, nil
	}
	data = bytes.TrimSpace(data)
	if !json.Valid(data) {
		return Unit{}, false, fmt.Errorf("%s: malformed response JSON: %q", endpoint, ErrorHead(data))
	}
	if JSONFalsy(data) {
		return Unit{}, false, nil
	}
	switch data[0] {
	case '{':
		err = json.Unmarshal(data, &u.Object)
	case '[':
		err = json.Unmarshal(data, &u.Array)
	}
	if err != nil {
		return Unit{}, false, fmt.Errorf("%s: decode response: %w", endpoint, err)
	}
	return u, true, nil
}

// ErrorHead is the start of a response unit, to quote in an error.
func ErrorHead(data []byte) []byte {
	return head(bytes.TrimSpace(data), errorHeadBytes)
}

// JSONFalsy reports whether a valid JSON value is false by Python's rules:
// null, false, a zero number, "", [] or {}. Absent (empty) data is falsy.
func JSONFalsy(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return true
	}
	switch raw[0] {
	case 'n', 'f':
		return true // null, false
	case 't':
		return false
	case '"':
		return len(raw) == 2
	case '[', '{':
		return len(bytes.TrimSpace(raw[1:len(raw)-1])) == 0
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	return err == nil && f == 0
}

// JSONString returns raw as a Go string when it is a JSON string.
func JSONString(raw []byte) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}
