package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/registry"
)

type stubEndpoint struct{ path string }

var _ sdk.Endpoint = stubEndpoint{}

func (s stubEndpoint) Metadata() sdk.EndpointMetadata {
	return sdk.EndpointMetadata{EndpointPath: s.path}
}
func (stubEndpoint) FormatPayload(sdk.RequestInfo) ([]byte, error) {
	return []byte(`{}`), nil
}
func (stubEndpoint) ParseResponse([]byte) (sdk.ParsedResponse, error) {
	return sdk.ParsedResponse{}, nil
}

// stubLoader returns an endpoint whose path names the plugin's manifest, so
// the test sees which declaration won.
type stubLoader struct{}

func (stubLoader) Load(_ context.Context, e *registry.Entry) (any, error) {
	return stubEndpoint{path: e.Source}, nil
}
func (stubLoader) Close() error { return nil }

func write(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const echoManifest = "endpoint:\n  echo:\n    kind: grpc\n    path: ./echo\n    api_version: 1\n    description: echo\n"

func TestLoadRegistryDiscoversAndInstallsLoaders(t *testing.T) {
	root := t.TempDir()
	home, work := filepath.Join(root, "home"), filepath.Join(root, "work")
	user := write(t, filepath.Join(home, ".config/aiperf/plugins.d/echo.yaml"), echoManifest)
	project := write(t, filepath.Join(work, "aiperf-plugins.yaml"), echoManifest)
	env := map[string]string{registry.EnvPluginPath: filepath.Join(root, "nowhere")}
	reg, warnings, err := LoadRegistry(RegistryOptions{
		Env: func(k string) string { return env[k] }, HomeDir: home, WorkDir: work,
		Loaders: map[registry.Kind]registry.Loader{registry.KindGRPC: stubLoader{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	ep, err := registry.Get[sdk.Endpoint](reg, sdk.CategoryEndpoint, "echo")
	if err != nil {
		t.Fatal(err)
	}
	// The project manifest is more specific than the user directory.
	if got := ep.Metadata().EndpointPath; got != project {
		t.Errorf("echo came from %s, want %s", got, project)
	}
	if _, err := registry.Get[sdk.Endpoint](reg, sdk.CategoryEndpoint, "chat"); err != nil {
		t.Errorf("built-in chat: %v", err)
	}
	all := strings.Join(warnings, "\n")
	for _, want := range []string{"AIPERF_PLUGIN_PATH: " + filepath.Join(root, "nowhere") + " does not exist",
		"keeping the first (" + project + ")", user} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings %q lack %q", warnings, want)
		}
	}
	pk := reg.Packages()
	if len(pk) != 3 || pk[0].Package != registry.BuiltinPackage || pk[1].Source != project || pk[2].Source != user {
		t.Errorf("packages = %+v", pk)
	}
}

func TestLoadRegistryStrictAndLenient(t *testing.T) {
	root := t.TempDir()
	bad := write(t, filepath.Join(root, "bad.yaml"), "endpoint:\n  echo:\n    kind: grpc\n    path: ./echo\n    description: no api version\n")
	opts := RegistryOptions{Env: func(string) string { return "" }, HomeDir: root, WorkDir: root, ExtraManifests: []string{bad}}
	if _, _, err := LoadRegistry(opts); err == nil || !strings.Contains(err.Error(), bad+":3: endpoint.echo: api_version is required") {
		t.Fatalf("strict err = %v", err)
	}
	opts.Lenient = true
	reg, _, err := LoadRegistry(opts)
	if err != nil {
		t.Fatal(err)
	}
	checks := reg.ValidateAll(context.Background(), registry.ValidateOptions{})
	if registry.Passed(checks) || checks[0].OK || !strings.Contains(checks[0].Detail, "api_version is required") {
		t.Errorf("checks = %v", checks)
	}
	if _, err := reg.Resolve(sdk.CategoryEndpoint, "chat"); err != nil {
		t.Errorf("built-ins lost in lenient mode: %v", err)
	}
}

func TestLoadRegistryWithoutExternalManifestsMatchesNewRegistry(t *testing.T) {
	root := t.TempDir()
	reg, warnings, err := LoadRegistry(RegistryOptions{Env: func(string) string { return "" }, HomeDir: root, WorkDir: root})
	if err != nil || len(warnings) != 0 {
		t.Fatalf("err %v, warnings %v", err, warnings)
	}
	old, err := NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range sdk.Categories {
		if got, want := strings.Join(reg.Names(c.Name), ","), strings.Join(old.Names(c.Name), ","); got != want {
			t.Errorf("%s: %s, NewRegistry has %s", c.Name, got, want)
		}
	}
	if !registry.Passed(reg.ValidateAll(context.Background(), registry.ValidateOptions{Live: true})) {
		t.Error("the embedded manifest does not validate")
	}
}
