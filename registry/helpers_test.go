package registry

import (
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// writeFile writes content at dir/rel (creating parents) and returns the path.
func writeFile(t testing.TB, dir, rel, content string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// completeBuiltins declares and implements one builtin per category, so a
// registry over it passes the built-in checks and only the external entry
// under test can fail.
func completeBuiltins(t testing.TB) (Builtins, *Manifest) {
	t.Helper()
	var b Builtins
	src := "schema_version: \"1.0\"\n"
	for _, c := range sdk.Categories {
		b = append(b, raw(c.Name, "base", func() any { return fake(c.Name) }))
		src += c.Name + ":\n  base:\n    description: the " + c.Name + " builtin\n"
	}
	m := mustParse(t, src, "plugins.yaml (embedded)")
	return b, m
}
