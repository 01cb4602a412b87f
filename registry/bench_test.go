package registry

import (
	"context"
	"testing"

	aiperf "github.com/aiperf-go/aiperf"
)

// BenchmarkGetExternal measures resolving and instantiating an external
// plugin through its loader: the registry's share of a plugin lookup.
func BenchmarkGetExternal(b *testing.B) {
	m, err := ParseManifest([]byte(entry("endpoint", "good", "grpc", "./p", 1, "")), "v.yaml")
	if err != nil {
		b.Fatal(err)
	}
	r, err := New(nil, m)
	if err != nil {
		b.Fatal(err)
	}
	r.SetLoader(KindGRPC, &fakeLoader{})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Instantiate("endpoint", "good"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidateAll runs every offline check over a manifest with one
// external plugin whose sha256 is verified.
func BenchmarkValidateAll(b *testing.B) {
	dir := b.TempDir()
	writeFile(b, dir, "bin/echo", pluginBytes, 0o755)
	p := writeFile(b, dir, "v.yaml", entry("endpoint", "echo", "grpc", "./bin/echo", 1, "    sha256: "+pluginSHA()+"\n"), 0o644)
	bl, embedded := completeBuiltins(b)
	ext, err := ParseManifestFiles([]string{p})
	if err != nil {
		b.Fatal(err)
	}
	r := NewLenient(bl, append([]*Manifest{embedded}, ext...))
	b.ReportAllocs()
	for b.Loop() {
		if !Passed(r.ValidateAll(context.Background(), ValidateOptions{})) {
			b.Fatal("validation failed")
		}
	}
}

// BenchmarkParseManifest parses the embedded plugins.yaml, which every
// aiperf command does at startup.
func BenchmarkParseManifest(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseManifest(aiperf.BuiltinManifest, "plugins.yaml (embedded)"); err != nil {
			b.Fatal(err)
		}
	}
}
