package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// pluginBytes is the content of the fake plugin binary; its sha256 is
// computed here, not copied from a tool.
const pluginBytes = "#!/bin/sh\necho not really a plugin\n"

func pluginSHA() string {
	sum := sha256.Sum256([]byte(pluginBytes))
	return hex.EncodeToString(sum[:])
}

// validateManifest writes the external manifest src (and a plugin binary at
// bin/echo) in a temp dir and validates it leniently over complete
// built-ins. It returns the checks and the manifest path.
func validateManifest(t *testing.T, src string, loaders map[Kind]Loader) ([]Check, string) {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, dir, "bin/echo", pluginBytes, 0o755)
	writeFile(t, dir, "bin/noexec", pluginBytes, 0o644)
	p := writeFile(t, dir, "vendor.yaml", src, 0o644)
	b, embedded := completeBuiltins(t)
	ext, err := ParseManifestFiles([]string{p})
	r := NewLenient(b, append([]*Manifest{embedded}, ext...), err)
	for k, l := range loaders {
		r.SetLoader(k, l)
	}
	return r.ValidateAll(context.Background(), ValidateOptions{Live: loaders != nil, LoadTimeout: 200 * time.Millisecond}), p
}

func entry(category, name, kind, path string, api int, extra string) string {
	return fmt.Sprintf("%s:\n  %s:\n    kind: %s\n    path: %s\n    api_version: %d\n    description: vendor plugin\n%s", category, name, kind, path, api, extra)
}

func failures(checks []Check) []Check {
	var out []Check
	for _, c := range checks {
		if !c.OK {
			out = append(out, c)
		}
	}
	return out
}

func TestValidateAllPassesForAGoodManifest(t *testing.T) {
	checks, p := validateManifest(t, entry("endpoint", "echo", "grpc", "./bin/echo", 1, "    sha256: "+strings.ToUpper(pluginSHA())+"\n"), nil)
	if !Passed(checks) {
		t.Fatalf("failures: %v", failures(checks))
	}
	var lines []string
	for _, c := range checks {
		lines = append(lines, c.String())
	}
	want := []string{
		"(OK) Manifest schema: 2 manifests",
		fmt.Sprintf("(OK) Plugin names: %d plugins", len(sdk.Categories)+1),
		"(OK) Categories and kinds",
		"(OK) Built-ins match compiled code",
		"(OK) External files and checksums: 1 external plugin",
		"(OK) API versions: v1",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("checks (manifest %s):\n%s\nwant\n%s", p, strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

func TestValidateAllFailures(t *testing.T) {
	cases := []struct {
		name  string
		src   string
		check string
		want  string
	}{
		{"bad checksum", entry("endpoint", "echo", "grpc", "./bin/echo", 1, "    sha256: "+strings.Repeat("ab", 32)+"\n"),
			CheckFiles, "vendor.yaml:3: endpoint.echo: sha256 mismatch for %DIR%/bin/echo: manifest says " + strings.Repeat("ab", 32) + ", file has " + pluginSHA()},
		{"malformed checksum", entry("endpoint", "echo", "grpc", "./bin/echo", 1, "    sha256: xyz\n"),
			CheckFiles, `endpoint.echo: sha256 "xyz" is not 64 hex digits`},
		{"missing binary", entry("endpoint", "echo", "grpc", "./bin/gone", 1, ""),
			CheckFiles, "vendor.yaml:3: endpoint.echo: plugin file %DIR%/bin/gone not found"},
		{"path is a directory", entry("endpoint", "echo", "wasm", "./bin", 1, ""),
			CheckFiles, "plugin path %DIR%/bin is a directory, not a file"},
		{"grpc binary not executable", entry("endpoint", "echo", "grpc", "./bin/noexec", 1, ""),
			CheckFiles, "plugin file %DIR%/bin/noexec is not executable"},
		{"wrong API version", entry("endpoint", "echo", "grpc", "./bin/echo", 2, ""),
			CheckAPI, "vendor.yaml:3: endpoint.echo: built for plugin API v2; this aiperf speaks v1"},
		{"unknown category", entry("chart", "pareto", "wasm", "./bin/echo", 1, ""),
			CheckKinds, `vendor.yaml:3: chart.pareto: unknown plugin category "chart"; valid categories: endpoint, transport`},
		{"kind not allowed in a timed-window category", entry("transport", "quic", "grpc", "./bin/echo", 1, ""),
			CheckKinds, "transport.quic: kind grpc not allowed: category transport accepts only builtin plugins (it runs inside the timed window)"},
		{"kind not allowed in a category without RPCs", entry("tokenizer", "sp", "wasm", "./bin/echo", 1, ""),
			CheckKinds, "tokenizer.sp: kind wasm not allowed: category tokenizer accepts only builtin plugins (the plugin protocol has no calls for it in API v1)"},
		{"duplicate names", entry("endpoint", "my-ep", "grpc", "./bin/echo", 1, "  MY_EP:\n    kind: grpc\n    path: ./bin/echo\n    api_version: 1\n    description: again\n"),
			CheckNames, `vendor.yaml:7: endpoint.MY_EP: duplicate plugin name: normalizes to "my_ep", already declared at line 2`},
		{"builtin kind in an external manifest", "endpoint:\n  chat:\n    kind: builtin\n    description: pretend\n",
			CheckKinds, "vendor.yaml:3: endpoint.chat: kind builtin is reserved"},
		{"missing api_version", "endpoint:\n  echo:\n    kind: grpc\n    path: ./bin/echo\n    description: d\n",
			CheckSchema, "endpoint.echo: api_version is required"},
		{"missing description", "endpoint:\n  echo:\n    kind: grpc\n    path: ./bin/echo\n    api_version: 1\n",
			CheckSchema, "endpoint.echo has no description"},
		{"not YAML", "endpoint: [unclosed\n", CheckSchema, "vendor.yaml: yaml:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checks, p := validateManifest(t, c.src, nil)
			want := strings.ReplaceAll(c.want, "%DIR%", filepath.Dir(p))
			fails := failures(checks)
			if len(fails) != 1 {
				t.Fatalf("want exactly one failure, got %v", fails)
			}
			if fails[0].Name != c.check || !strings.Contains(fails[0].Detail, want) {
				t.Errorf("failure = %q\nwant %s containing %q", fails[0].String(), c.check, want)
			}
			if Passed(checks) {
				t.Error("Passed = true")
			}
		})
	}
}

type fakeEndpoint struct{}

func (fakeEndpoint) Metadata() sdk.EndpointMetadata {
	return sdk.EndpointMetadata{EndpointPath: "/v1/echo"}
}
func (fakeEndpoint) FormatPayload(sdk.RequestInfo) ([]byte, error) {
	return []byte(`{}`), nil
}
func (fakeEndpoint) ParseResponse([]byte) (sdk.ParsedResponse, error) {
	return sdk.ParsedResponse{}, nil
}

var _ sdk.Endpoint = fakeEndpoint{}

// fakeLoader behaves according to the plugin's name; it stands in for the
// grpc and wasm loaders.
type fakeLoader struct {
	mu     sync.Mutex // a timed-out load may still run when the next starts
	loaded []string
	closed int
}

func (l *fakeLoader) Load(ctx context.Context, e *Entry) (any, error) {
	l.mu.Lock()
	l.loaded = append(l.loaded, e.Name)
	l.mu.Unlock()
	switch e.Name {
	case "good":
		return fakeEndpoint{}, nil
	case "wrong":
		return "a string", nil
	case "crash":
		return nil, errors.New("plugin exited during handshake: exit status 2")
	case "hang":
		<-ctx.Done()
		select {} // ignores cancellation on purpose: validation must not wait
	case "boom":
		panic("nil map")
	}
	return nil, fmt.Errorf("unexpected %s", e.Name)
}

func (l *fakeLoader) Close() error { l.closed++; return nil }

func TestValidateAllLiveLoads(t *testing.T) {
	var src strings.Builder
	src.WriteString("endpoint:\n")
	for _, n := range []string{"good", "wrong", "crash", "hang", "boom"} {
		fmt.Fprintf(&src, "  %s:\n    kind: grpc\n    path: ./bin/echo\n    api_version: 1\n    description: d\n", n)
	}
	src.WriteString("  modular:\n    kind: wasm\n    path: ./bin/echo\n    api_version: 1\n    description: d\n")
	src.WriteString("  old:\n    kind: grpc\n    path: ./bin/echo\n    api_version: 3\n    description: d\n")
	l := &fakeLoader{}
	checks, p := validateManifest(t, src.String(), map[Kind]Loader{KindGRPC: l})
	var live []string
	for _, c := range checks {
		if c.Name == CheckLive {
			live = append(live, c.String())
		}
	}
	want := []string{
		"(OK) Live load: endpoint.good (grpc, " + p + "): loaded, implements sdk.Endpoint",
		"(FAIL) Live load: endpoint.wrong (grpc, " + p + "): the loaded plugin does not implement sdk.Endpoint",
		"(FAIL) Live load: endpoint.crash (grpc, " + p + "): plugin exited during handshake: exit status 2",
		"(FAIL) Live load: endpoint.hang (grpc, " + p + "): no answer within 200ms: context deadline exceeded",
		"(FAIL) Live load: endpoint.boom (grpc, " + p + "): loader panicked: nil map",
		"(FAIL) Live load: endpoint.modular (wasm, " + p + "): no loader for wasm plugins in this build",
	}
	if strings.Join(live, "\n") != strings.Join(want, "\n") {
		t.Errorf("live checks:\n%s\nwant\n%s", strings.Join(live, "\n"), strings.Join(want, "\n"))
	}
	// "old" fails its API check and is never started.
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, n := range l.loaded {
		if n == "old" {
			t.Error("a plugin with the wrong API version was loaded")
		}
	}
}

func TestInstantiateRefusesOtherAPIVersion(t *testing.T) {
	m := mustParse(t, "endpoint:\n  echo:\n    kind: grpc\n    path: ./p\n    api_version: 2\n    description: d\n", "v.yaml")
	r, err := New(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	l := &fakeLoader{}
	r.SetLoader(KindGRPC, l)
	_, err = r.Instantiate("endpoint", "echo")
	if err == nil || err.Error() != "v.yaml:3: endpoint.echo: built for plugin API v2; this aiperf speaks v1" {
		t.Fatalf("err = %v", err)
	}
	if len(l.loaded) != 0 {
		t.Errorf("loader called for %v", l.loaded)
	}
	if err := r.Close(); err != nil || l.closed != 1 {
		t.Errorf("Close = %v, closed %d times", err, l.closed)
	}
}

func TestInstantiateThroughLoader(t *testing.T) {
	m := mustParse(t, "endpoint:\n  good:\n    kind: grpc\n    path: ./p\n    api_version: 1\n    description: d\n", "v.yaml")
	r, err := New(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Get(r, sdk.Endpoints, "good"); err == nil || !strings.Contains(err.Error(), "no loader for grpc plugins") {
		t.Fatalf("without a loader: err = %v", err)
	}
	r.SetLoader(KindGRPC, &fakeLoader{})
	ep, err := Get(r, sdk.Endpoints, "GOOD")
	if err != nil {
		t.Fatal(err)
	}
	if got := ep.Metadata().EndpointPath; got != "/v1/echo" {
		t.Errorf("endpoint path = %q", got)
	}
}

func TestStrictNewStopsAtRefusedEntries(t *testing.T) {
	cases := map[string]string{
		entry("chart", "pareto", "wasm", "./p", 1, ""):     `unknown plugin category "chart"`,
		entry("ramp", "sigmoid", "wasm", "./p", 1, ""):     "kind wasm not allowed: category ramp accepts only builtin plugins",
		entry("accumulator", "hist", "grpc", "./p", 1, ""): "kind grpc not allowed: category accumulator accepts only builtin plugins",
	}
	for src, want := range cases {
		if _, err := New(nil, mustParse(t, src, "x.yaml")); err == nil || !strings.Contains(err.Error(), "x.yaml:3: ") || !strings.Contains(err.Error(), want) {
			t.Errorf("New(%q) err = %v, want containing %q", src, err, want)
		}
	}
}

func TestBuiltinOverriddenByExternalIsStillDeclared(t *testing.T) {
	b, embedded := completeBuiltins(t)
	ext := mustParse(t, entry("endpoint", "base", "grpc", "./p", 1, ""), "v.yaml")
	r, err := New(b, embedded, ext)
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := r.Resolve("endpoint", "base"); e.Kind != KindGRPC {
		t.Fatalf("winner kind = %s", e.Kind)
	}
	if errs := r.builtinProblems(); len(errs) != 0 {
		t.Errorf("builtinProblems = %v", errs)
	}
}

func TestPackagesAndInfo(t *testing.T) {
	b, embedded := completeBuiltins(t)
	embedded.Name = BuiltinPackage
	dir := t.TempDir()
	p := writeFile(t, dir, "v.yaml", "name: acme-plugins\ndescription: ACME endpoints\n"+
		entry("endpoint", "acme", "grpc", "./bin/acme", 1, "    sha256: "+pluginSHA()+"\n    priority: 3\n    metadata:\n      endpoint_path: /v1/acme\n")+
		entry("record_processor", "extra", "wasm", "extra.wasm", 2, "    limits:\n      memory_mb: 64\n    grants:\n      read_dirs: [/data]\n"), 0o644)
	anon := writeFile(t, dir, "anon.yaml", entry("data_exporter", "parquet", "grpc", "/opt/parquet", 1, ""), 0o644)
	ext, err := ParseManifestFiles([]string{p, anon})
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(b, append([]*Manifest{embedded}, ext...)...)
	if err != nil {
		t.Fatal(err)
	}
	pk := r.Packages()
	got := fmt.Sprintf("%+v", pk)
	want := fmt.Sprintf("%+v", []PackageInfo{
		{Package: BuiltinPackage, Source: "plugins.yaml (embedded)", APIVersions: []int{1}, Plugins: len(sdk.Categories), Description: "Plugins compiled into aiperf"},
		{Package: "acme-plugins", Source: p, APIVersions: []int{1, 2}, Plugins: 2, Description: "ACME endpoints"},
		{Package: anon, Source: anon, APIVersions: []int{1}, Plugins: 1},
	})
	if got != want {
		t.Errorf("Packages =\n%s\nwant\n%s", got, want)
	}
	e, _ := r.Resolve("endpoint", "acme")
	info := r.Info(e)
	if info.Package != "acme-plugins" || info.Path != filepath.Join(dir, "bin/acme") || info.SHA256 != pluginSHA() ||
		info.Priority != 3 || info.APIVersion != 1 || info.Metadata["endpoint_path"] != "/v1/acme" || info.Limits != nil {
		t.Errorf("Info(acme) = %+v", info)
	}
	e, _ = r.Resolve("record_processor", "extra")
	info = r.Info(e)
	if info.Limits == nil || info.Limits.MemoryMB != 64 || info.Grants == nil || info.Grants.ReadDirs[0] != "/data" {
		t.Errorf("Info(extra) = %+v", info)
	}
	base, _ := r.Resolve("ui", "base")
	if info := r.Info(base); info.APIVersion != 1 || info.Path != "" || info.Package != BuiltinPackage {
		t.Errorf("Info(builtin) = %+v", info)
	}
	cats := r.CategoryInfos()
	if len(cats) != len(sdk.Categories) || cats[0].Name != "endpoint" || cats[0].Plugins != 2 || len(cats[0].Kinds) != 3 || len(cats[1].Kinds) != 1 {
		t.Errorf("CategoryInfos = %+v", cats[:2])
	}
}

func TestInstantiateRefusesUndeclaredAPIVersion(t *testing.T) {
	// ParseManifest (not ParseManifestFile) lets api_version be omitted;
	// Instantiate still refuses to start such a plugin.
	r, err := New(nil, mustParse(t, "endpoint:\n  echo:\n    kind: wasm\n    path: ./p\n    description: d\n", "mem"))
	if err != nil {
		t.Fatal(err)
	}
	r.SetLoader(KindWASM, &fakeLoader{})
	if _, err := r.Instantiate("endpoint", "echo"); err == nil || err.Error() != "mem:3: endpoint.echo: declares no api_version; this aiperf speaks plugin API v1" {
		t.Fatalf("err = %v", err)
	}
}

func TestKindsFollowTheLoaders(t *testing.T) {
	cases := []struct {
		yaml, want string
	}{
		{"data_exporter:\n  x:\n    kind: wasm\n    path: ./x.wasm\n    api_version: 1\n    description: d\n",
			"data_exporter.x: kind wasm not allowed: category data_exporter accepts builtin and grpc plugins"},
		{"console_exporter:\n  x:\n    kind: grpc\n    path: ./x\n    api_version: 1\n    description: d\n",
			"console_exporter.x: kind grpc not allowed: category console_exporter accepts only builtin plugins (the plugin protocol has no calls for it in API v1)"},
	}
	for _, c := range cases {
		m, err := ParseManifest([]byte(c.yaml), "ext.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := New(nil, m); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v, want %q", err, c.want)
		}
	}
}

type settingsRamp struct {
	fakeRamp
	cfg struct {
		Steps int `json:"steps"`
	}
}

func (r *settingsRamp) PluginConfig() any { return &r.cfg }

// A built-in's manifest config must decode into its settings, as a run
// would decode it.
func TestValidateChecksBuiltinConfig(t *testing.T) {
	b := Builtins{
		Provide(sdk.Ramps, "steps", func() sdk.Ramp { return &settingsRamp{} }),
		Provide(sdk.Ramps, "plain", func() sdk.Ramp { return fakeRamp{} }),
	}
	m := mustParse(t, "ramp:\n  steps:\n    description: d\n    config:\n      stpes: 2\n"+
		"  plain:\n    description: d\n    config:\n      steps: 1\n", "plugins.yaml")
	r, err := New(b, m)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, e := range r.builtinProblems() {
		msgs = append(msgs, e.Error())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{
		`plugins.yaml:3: ramp.steps: config: unknown setting "stpes"`,
		`plugins.yaml:7: ramp.plain: config: plugin ramp.plain takes no settings (got "steps")`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("builtinProblems lacks %q in:\n%s", want, all)
		}
	}
}
