// Package jsontest holds JSON helpers for tests that check a file's layout,
// not only its values.
package jsontest

import (
	"bytes"
	"encoding/json"
	"testing"
)

// ObjectKeys returns the keys of the JSON object b in file order (a
// decoded map would lose it). The test fails when b is not an object.
func ObjectKeys(t testing.TB, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %.200s (%v)", b, err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}
