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

// stubUI does nothing; it gives the test distribution a second category.
type stubUI struct{}

func (stubUI) Start(context.Context, sdk.ProgressSource) {}
func (stubUI) Stop()                                     {}

// stubLoader returns an endpoint whose path names the plugin's manifest, so
// the test sees which declaration won.
type stubLoader struct{}

func (stubLoader) Load(_ context.Context, e *registry.Entry) (any, error) {
	return stubEndpoint{path: e.Source}, nil
}
func (stubLoader) Close() error { return nil }

// testBuiltins and testManifest are a tiny distribution: what cmd/aiperf
// hands LoadRegistry, with stubs instead of the real built-ins (the core
// never imports a plugin).
func testBuiltins() registry.Builtins {
	return registry.Builtins{
		registry.Provide(sdk.Endpoints, "chat", func() sdk.Endpoint { return stubEndpoint{path: "builtin chat"} }),
		registry.Provide(sdk.Endpoints, "completions", func() sdk.Endpoint { return stubEndpoint{path: "builtin completions"} }),
		registry.Provide(sdk.UIs, "none", func() sdk.UI { return stubUI{} }),
	}
}

const testManifest = "schema_version: \"1.0\"\n" +
	"endpoint:\n  chat:\n    description: d\n  completions:\n    description: d\n" +
	"ui:\n  none:\n    description: d\n"

// registryOptions is the test distribution with discovery sandboxed in
// root (no environment, home and work directory inside it).
func registryOptions(root string) RegistryOptions {
	return RegistryOptions{Builtins: testBuiltins(), Manifest: []byte(testManifest),
		Env: func(string) string { return "" }, HomeDir: root, WorkDir: root}
}

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
	opts := registryOptions(root)
	opts.Env, opts.HomeDir, opts.WorkDir = func(k string) string { return env[k] }, home, work
	opts.Loaders = map[registry.Kind]registry.Loader{registry.KindGRPC: stubLoader{}}
	reg, warnings, err := LoadRegistry(opts)
	if err != nil {
		t.Fatal(err)
	}
	ep, err := registry.Get(reg, sdk.Endpoints, "echo")
	if err != nil {
		t.Fatal(err)
	}
	// The project manifest is more specific than the user directory.
	if got := ep.Metadata().EndpointPath; got != project {
		t.Errorf("echo came from %s, want %s", got, project)
	}
	// The distribution's built-ins are there, bound to its constructors.
	if chat, err := registry.Get(reg, sdk.Endpoints, "chat"); err != nil || chat.Metadata().EndpointPath != "builtin chat" {
		t.Errorf("built-in chat: %v, %v", chat, err)
	}
	if got := strings.Join(reg.Names(sdk.CategoryEndpoint), ","); got != "chat,completions,echo" {
		t.Errorf("endpoints %s, want the embedded ones first, in declaration order", got)
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
	opts := registryOptions(root)
	opts.ExtraManifests = []string{bad}
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

func TestLoadRegistryWithoutExternalManifestsIsTheDistribution(t *testing.T) {
	root := t.TempDir()
	reg, warnings, err := LoadRegistry(registryOptions(root))
	if err != nil || len(warnings) != 0 {
		t.Fatalf("err %v, warnings %v", err, warnings)
	}
	m, err := registry.ParseManifest([]byte(testManifest), EmbeddedManifestSource)
	if err != nil {
		t.Fatal(err)
	}
	alone, err := registry.New(testBuiltins(), m)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range sdk.Categories {
		if got, want := strings.Join(reg.Names(c.Name), ","), strings.Join(alone.Names(c.Name), ","); got != want {
			t.Errorf("%s: %s, the distribution alone has %s", c.Name, got, want)
		}
	}
	if pk := reg.Packages(); len(pk) != 1 || pk[0].Package != registry.BuiltinPackage {
		t.Errorf("packages = %+v, want the embedded manifest only", pk)
	}
	// Every declared built-in is bound to the distribution's constructor.
	for _, c := range sdk.Categories {
		for _, n := range reg.Names(c.Name) {
			if v, err := reg.Instantiate(c.Name, n); err != nil || !c.Implements(v) {
				t.Errorf("%s.%s: %v, %v", c.Name, n, v, err)
			}
		}
	}
}

func TestLoadRegistryNeedsTheDistributionsManifest(t *testing.T) {
	opts := registryOptions(t.TempDir())
	opts.Manifest = nil
	if _, _, err := LoadRegistry(opts); err == nil || !strings.Contains(err.Error(), "no built-in plugin manifest") {
		t.Errorf("LoadRegistry without a manifest: %v", err)
	}
	// A built-in the manifest declares but the distribution lacks is an
	// error where it is used, naming the plugin.
	opts = registryOptions(t.TempDir())
	opts.Builtins = opts.Builtins[:1]
	reg, _, err := LoadRegistry(opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := registry.Get(reg, sdk.Endpoints, "completions"); err == nil || !strings.Contains(err.Error(), "builtin endpoint.completions has no implementation") {
		t.Errorf("Get(completions) = %v", err)
	}
}
