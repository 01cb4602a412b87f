// Package jsontest holds JSON helpers for tests that check a file's layout,
// not only its values.
package jsontest

import (
	"bytes"
	"encoding/json"
	"math"
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

// EqualWithin compares two decoded JSON values: objects key by key, numbers
// within a relative tolerance (float summation order differs between
// implementations), anything else exactly. Differences are reported under
// their path.
func EqualWithin(t testing.TB, path string, got, want any, rel float64) {
	t.Helper()
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			t.Errorf("%s: got %v, want %v", path, got, want)
			return
		}
		for k, v := range w {
			EqualWithin(t, path+"."+k, g[k], v, rel)
		}
	case float64:
		g, ok := got.(float64)
		if !ok || math.Abs(g-w) > rel*math.Max(1, math.Abs(w)) {
			t.Errorf("%s: got %v, want %v", path, got, w)
		}
	default:
		if got != want {
			t.Errorf("%s: got %v, want %v", path, got, want)
		}
	}
}
