package registry

import (
	"context"
	"errors"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"strings"
	"testing"
)

// recordingLoader stands in for the grpc/wasm loaders: it returns a fixed
// value and counts calls, so dispatch and Close can be checked here.
type recordingLoader struct {
	loads, closes int
	err           error
}

func (l *recordingLoader) Load(_ context.Context, e *Entry) (any, error) {
	l.loads++
	if l.err != nil {
		return nil, l.err
	}
	return &fakeChat{id: "external:" + e.Name}, nil
}

func (l *recordingLoader) Close() error { l.closes++; return nil }

func TestExternalKindsGoThroughTheirLoader(t *testing.T) {
	m := mustParse(t, "endpoint:\n  textgen:\n    kind: grpc\n    path: ./plugin\n    api_version: 1\n    description: x\n", "ext.yaml")
	m.Entries[0].Dir = "/opt/plugins"
	r, err := New(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Instantiate("endpoint", "textgen"); err == nil || !strings.Contains(err.Error(), "no loader for grpc plugins") {
		t.Fatalf("without a loader: %v", err)
	}
	l := &recordingLoader{}
	r.SetLoader(KindGRPC, l)
	ep, err := Get(r, sdk.Endpoints, "textgen")
	v, _ := ep.(*fakeChat)
	if err != nil || v == nil || v.id != "external:textgen" || l.loads != 1 {
		t.Fatalf("Get = %v, %v (loads %d)", v, err, l.loads)
	}
	if got := m.Entries[0].ResolvedPath(); got != "/opt/plugins/plugin" {
		t.Errorf("ResolvedPath = %q", got)
	}
	l.err = errors.New("handshake failed")
	if _, err := r.Instantiate("endpoint", "textgen"); err == nil || !strings.Contains(err.Error(), "plugin endpoint.textgen (grpc, ext.yaml): handshake failed") {
		t.Errorf("loader error not attributed to the plugin: %v", err)
	}
	if err := r.Close(); err != nil || l.closes != 1 {
		t.Errorf("Close = %v, loader closed %d times", err, l.closes)
	}
}
