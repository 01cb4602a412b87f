package grpcloader

import (
	"context"
	"os"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/registry"
)

// The example's manifest parses, declares a grpc endpoint for API v1, and
// loads once its path points at the built binary.
func TestShippedExampleManifest(t *testing.T) {
	const path = "../../examples/plugins/go-grpc-endpoint/aiperf-plugins.yaml"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := registry.ParseManifest(b, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Entries) != 1 {
		t.Fatalf("%d entries, want 1", len(m.Entries))
	}
	e := m.Entries[0]
	if e.Category != sdk.CategoryEndpoint || e.Name != "textgen" || e.Kind != registry.KindGRPC || e.APIVersion != 1 ||
		e.Path != "./textgen-plugin" || e.Limits.CallTimeoutMS != 30000 {
		t.Fatalf("entry = %+v", e)
	}
	e.Path = textgenBin
	e.SHA256 = sha256Hex(t, textgenBin)
	l, _ := newLoader(t, Options{})
	v, err := l.Load(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := v.(sdk.Endpoint); !ok {
		t.Fatalf("%T is not an sdk.Endpoint", v)
	}
}
