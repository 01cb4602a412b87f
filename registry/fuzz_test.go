package registry

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	aiperf "github.com/aiperf-go/aiperf"
)

// FuzzParseManifest checks that any manifest bytes, built-in or external,
// parse or fail with *ManifestError values that name the source and a line
// the file has, and that every parsed entry has a category and a name.
func FuzzParseManifest(f *testing.F) {
	f.Add(aiperf.BuiltinManifest, false)
	for _, s := range []string{
		entry("endpoint", "good", "grpc", "./p", 1, ""),
		entry("endpoint", "my-ep", "wasm", "/abs/p.wasm", 2, "    sha256: abc\n    priority: 5\n"),
		"schema_version: \"1\"\nname: x\nendpoint:\n  a:\n    kind: grpc\n  A:\n    kind: grpc\n",
		"endpoint: [1, 2]\n", "- a\n", "endpoint:\n  x:\n    typo_field: 1\n", "a: &x [*x]\n", "{",
	} {
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, external bool) {
		const source = "fuzz-manifest.yaml"
		m, err := parseManifest(data, source, external)
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, e := range flatten(err) {
			var me *ManifestError
			if !errors.As(e, &me) {
				t.Fatalf("error is not a *ManifestError: %v", e)
			}
			if !strings.HasPrefix(e.Error(), source+":") || me.Line < 0 || me.Line > lines {
				t.Fatalf("error %q: want the source and a line in 0..%d", e, lines)
			}
		}
		if m == nil {
			if err == nil {
				t.Fatal("nil manifest with no error")
			}
			return
		}
		for _, e := range m.Entries {
			if e.Category == "" || e.Name == "" || e.Name != Normalize(e.Name) {
				t.Fatalf("entry with category %q, name %q", e.Category, e.Name)
			}
			e.Where()
			e.ResolvedPath()
		}
	})
}

// flatten undoes errors.Join.
func flatten(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
