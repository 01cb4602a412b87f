package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	aiperf "github.com/aiperf-go/aiperf"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/registry"
)

// pluginsSandbox gives the test its own HOME, working directory and an empty
// AIPERF_PLUGIN_PATH, so discovery never sees the real user's manifests.
// It returns the root directory; the working directory is root/work.
func pluginsSandbox(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	t.Setenv("HOME", filepath.Join(root, "home"))
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv(registry.EnvPluginPath, "")
	work := filepath.Join(root, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	return root
}

func writePluginFile(t *testing.T, path, content string, mode os.FileMode) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	return path
}

const fakePluginBinary = "#!/bin/sh\nexit 3\n"

func fakePluginSHA() string {
	s := sha256.Sum256([]byte(fakePluginBinary))
	return hex.EncodeToString(s[:])
}

// vendorManifest declares a grpc endpoint "echo" (sha256 checked) and a
// wasm record processor, both at ./bin relative to the manifest.
func vendorManifest(apiVersion int, sha string) string {
	return fmt.Sprintf(`name: acme-plugins
description: ACME endpoints
endpoint:
  echo:
    kind: grpc
    path: ./bin/echo
    sha256: %s
    api_version: %d
    priority: 2
    description: Echo API endpoint
    metadata:
      endpoint_path: /v1/echo
      streaming: false
      tags: [a, b]
    config:
      region: eu
      api_key: sk-not-shown
record_processor:
  extra:
    kind: wasm
    path: ./bin/extra.wasm
    api_version: 1
    description: Extra metric
    limits:
      memory_mb: 64
`, sha, apiVersion)
}

// builtinCount counts the embedded manifest's entries (of one category, or
// all with ""), so the checks follow plugins.yaml as built-ins are added.
func builtinCount(t *testing.T, category string) int {
	t.Helper()
	m, err := registry.ParseManifest(aiperf.BuiltinManifest, "plugins.yaml")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range m.Entries {
		if category == "" || e.Category == category {
			n++
		}
	}
	return n
}

func runPlugins(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), append([]string{"plugins"}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

type echoEndpoint struct{}

var _ sdk.Endpoint = echoEndpoint{}

func (echoEndpoint) Metadata() sdk.EndpointMetadata {
	return sdk.EndpointMetadata{EndpointPath: "/v1/echo"}
}
func (echoEndpoint) FormatPayload(sdk.RequestInfo) ([]byte, error) {
	return []byte(`{}`), nil
}
func (echoEndpoint) ParseResponse([]byte) (sdk.ParsedResponse, error) {
	return sdk.ParsedResponse{}, nil
}

type echoProcessor struct{}

var _ sdk.RecordProcessor = echoProcessor{}

func (echoProcessor) Metrics() []sdk.MetricSpec {
	return []sdk.MetricSpec{{Tag: "echo_count", Header: "Echo Count", Unit: "requests"}}
}
func (echoProcessor) Process(*sdk.ParsedRecord) (*sdk.RecordMetrics, error) {
	return &sdk.RecordMetrics{}, nil
}

// kindLoader stands in for the grpc and wasm loaders: it returns a value
// of the entry's category, and counts Close calls.
type kindLoader struct{ closed *int }

func (l kindLoader) Load(_ context.Context, e *registry.Entry) (any, error) {
	switch e.Category {
	case sdk.CategoryEndpoint:
		return echoEndpoint{}, nil
	case sdk.CategoryRecordProcessor:
		return echoProcessor{}, nil
	}
	return nil, fmt.Errorf("kindLoader: no %s", e.Category)
}

func (l kindLoader) Close() error { *l.closed++; return nil }

// withFakeLoaders installs grpc and wasm loaders for the test and returns
// how many times they were closed.
func withFakeLoaders(t *testing.T) *int {
	closed := new(int)
	old := pluginLoaders
	pluginLoaders = func() map[registry.Kind]registry.Loader {
		return map[registry.Kind]registry.Loader{registry.KindGRPC: kindLoader{closed}, registry.KindWASM: kindLoader{closed}}
	}
	t.Cleanup(func() { pluginLoaders = old })
	return closed
}

// installVendor writes the vendor manifest and its plugin files in dir.
func installVendor(t *testing.T, dir string, apiVersion int, sha string) string {
	writePluginFile(t, filepath.Join(dir, "bin/echo"), fakePluginBinary, 0o755)
	writePluginFile(t, filepath.Join(dir, "bin/extra.wasm"), "\x00asm", 0o644)
	return writePluginFile(t, filepath.Join(dir, "vendor.yaml"), vendorManifest(apiVersion, sha), 0o644)
}

func TestPluginsListsInstalledPackages(t *testing.T) {
	root := pluginsSandbox(t)
	vendor := installVendor(t, filepath.Join(root, "vendor"), 1, fakePluginSHA())
	user := writePluginFile(t, filepath.Join(root, "home/.config/aiperf/plugins.d/mine.yaml"),
		"data_exporter:\n  parquet:\n    kind: grpc\n    path: /opt/parquet\n    api_version: 1\n    description: Parquet files\n", 0o644)

	code, out, errOut := runPlugins(t, "--plugins", vendor)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []string{
		"Installed Packages",
		"PACKAGE            VERSION  PLUGINS  DESCRIPTION",
		fmt.Sprintf("aiperf (built-in) v1 %d Plugins compiled into aiperf", builtinCount(t, "")),
		"acme-plugins       v1       2        ACME endpoints",
	}
	if len(lines) != 5 || strings.Join(fields(lines[:4]), "\n") != strings.Join(fields(want), "\n") {
		t.Fatalf("output:\n%s", out)
	}
	// Most specific first: --plugins, then the user directory.
	if got := strings.Fields(lines[4]); got[0] != user || got[1] != "v1" || got[2] != "1" {
		t.Errorf("user row = %q", lines[4])
	}

	code, out, _ = runPlugins(t, "--plugins", vendor, "--json")
	var js struct {
		Packages []registry.PackageInfo `json:"packages"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &js) != nil {
		t.Fatalf("exit %d, output %s", code, out)
	}
	if len(js.Packages) != 3 || js.Packages[1].Package != "acme-plugins" || js.Packages[1].Source != vendor ||
		js.Packages[1].Plugins != 2 || js.Packages[2].Source != user || js.Packages[0].APIVersions[0] != 1 {
		t.Errorf("packages = %+v", js.Packages)
	}
}

// fields collapses runs of spaces so table checks do not depend on padding.
func fields(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.Join(strings.Fields(l), " ")
	}
	return out
}

func TestPluginsAllShowsCategories(t *testing.T) {
	root := pluginsSandbox(t)
	installVendor(t, filepath.Join(root, "work"), 1, fakePluginSHA())
	if err := os.Rename(filepath.Join(root, "work/vendor.yaml"), filepath.Join(root, "work", registry.ProjectManifest)); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runPlugins(t, "--all")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := fields(strings.Split(out, "\n"))
	for _, want := range []string{
		"Plugin Categories",
		"CATEGORY PLUGINS KINDS DESCRIPTION",
		fmt.Sprintf("endpoint %d builtin, grpc, wasm Request formatting and response parsing for one API shape", builtinCount(t, "endpoint")+1),
		fmt.Sprintf("transport %d builtin Network layer that sends requests and timestamps responses", builtinCount(t, "transport")),
		fmt.Sprintf("record_processor %d builtin, grpc, wasm Per-record metric computation; declares the metrics it produces", builtinCount(t, "record_processor")+1),
	} {
		if !contains(got, want) {
			t.Errorf("missing line %q in:\n%s", want, out)
		}
	}
	code, out, _ = runPlugins(t, "--all", "--json")
	var js struct {
		Categories []registry.CategoryInfo `json:"categories"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &js) != nil {
		t.Fatalf("exit %d, output %s", code, out)
	}
	if len(js.Categories) != len(sdk.Categories) || js.Categories[0].Name != "endpoint" || js.Categories[0].Plugins != builtinCount(t, "endpoint")+1 ||
		js.Categories[0].Cardinality != "one" || len(js.Categories[0].Kinds) != 3 {
		t.Errorf("categories[0] = %+v", js.Categories[0])
	}
}

func contains(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}

func TestPluginsCategoryAndDetail(t *testing.T) {
	root := pluginsSandbox(t)
	vendor := installVendor(t, filepath.Join(root, "vendor"), 1, fakePluginSHA())
	t.Setenv(registry.EnvPluginPath, filepath.Dir(vendor))

	code, out, errOut := runPlugins(t, "endpoint")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// Built-ins first, in declaration order, then the external plugin.
	got := fields(strings.Split(strings.TrimSpace(out), "\n"))
	if len(got) != 2+builtinCount(t, "endpoint")+1 || got[0] != "Plugins in endpoint" || got[1] != "NAME KIND SOURCE DESCRIPTION" ||
		got[2] != "chat builtin aiperf (built-in) OpenAI Chat Completions (/v1/chat/completions), streaming or not." ||
		got[len(got)-1] != "echo grpc acme-plugins Echo API endpoint" {
		t.Errorf("category view:\n%s", out)
	}

	code, out, _ = runPlugins(t, "Endpoint", "ECHO")
	wantDetail := "Type:        echo\n" +
		"Category:    endpoint\n" +
		"Kind:        grpc\n" +
		"Package:     acme-plugins\n" +
		"Source:      " + vendor + "\n" +
		"Path:        " + filepath.Join(filepath.Dir(vendor), "bin/echo") + "\n" +
		"SHA256:      " + fakePluginSHA() + "\n" +
		"API version: 1\n" +
		"Priority:    2\n" +
		"Description: Echo API endpoint\n" +
		"Metadata:\n" +
		"  endpoint_path: /v1/echo\n" +
		"  streaming: false\n" +
		`  tags: ["a","b"]` + "\n" +
		"Config:\n" +
		"  api_key: <redacted>\n" +
		"  region: eu\n"
	if code != 0 || out != wantDetail {
		t.Errorf("exit %d, detail:\n%s\nwant\n%s", code, out, wantDetail)
	}

	code, out, _ = runPlugins(t, "record-processor", "extra", "--json")
	var info registry.PluginInfo
	if code != 0 || json.Unmarshal([]byte(out), &info) != nil {
		t.Fatalf("exit %d, output %s", code, out)
	}
	if info.Type != "extra" || info.Kind != registry.KindWASM || info.Limits == nil || info.Limits.MemoryMB != 64 || info.APIVersion != 1 {
		t.Errorf("info = %+v", info)
	}
	// Stable JSON: the same input gives the same bytes.
	_, again, _ := runPlugins(t, "record-processor", "extra", "--json")
	if again != out {
		t.Errorf("JSON differs between runs:\n%s\n%s", out, again)
	}

	code, out, _ = runPlugins(t, "endpoint", "--json")
	var cat struct {
		Category string                `json:"category"`
		Plugins  []registry.PluginInfo `json:"plugins"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &cat) != nil || cat.Category != "endpoint" || len(cat.Plugins) != builtinCount(t, "endpoint")+1 || cat.Plugins[len(cat.Plugins)-1].Source != vendor {
		t.Errorf("exit %d, category JSON %s", code, out)
	}
}

func TestPluginsBadArguments(t *testing.T) {
	pluginsSandbox(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"nope"}, `Error: unknown plugin category "nope"; valid categories: endpoint, transport`},
		{[]string{"endpoint", "chatt"}, `Error: unknown endpoint "chatt"; valid: chat, completions`},
		{[]string{"--plugins", "missing.yaml"}, "Error: --plugins missing.yaml:"},
	}
	for _, c := range cases {
		code, _, errOut := runPlugins(t, c.args...)
		if code != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want containing %q", c.args, code, errOut, c.want)
		}
	}
}

func TestPluginsValidatePasses(t *testing.T) {
	root := pluginsSandbox(t)
	closed := withFakeLoaders(t)
	vendor := installVendor(t, filepath.Join(root, "vendor"), 1, fakePluginSHA())
	code, out, errOut := runPlugins(t, "--validate", "--plugins", vendor)
	want := "(OK) Manifest schema: 2 manifests\n" +
		fmt.Sprintf("(OK) Plugin names: %d plugins\n", builtinCount(t, "")+2) +
		"(OK) Categories and kinds\n" +
		"(OK) Built-ins match compiled code\n" +
		"(OK) External files and checksums: 2 external plugins\n" +
		"(OK) API versions: v1\n" +
		"(OK) Live load: endpoint.echo (grpc, " + vendor + "): loaded, implements sdk.Endpoint\n" +
		"(OK) Live load: record_processor.extra (wasm, " + vendor + "): loaded, implements sdk.RecordProcessor\n" +
		"All checks passed\n"
	if code != 0 || out != want {
		t.Errorf("exit %d (stderr %s), output:\n%s\nwant\n%s", code, errOut, out, want)
	}
	if *closed != 2 {
		t.Errorf("loaders closed %d times, want 2", *closed)
	}
}

func TestPluginsValidateShippedManifestPasses(t *testing.T) {
	pluginsSandbox(t)
	code, out, _ := runPlugins(t, "--validate")
	if code != 0 || !strings.HasSuffix(out, "All checks passed\n") || strings.Contains(out, "(FAIL)") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

func TestPluginsValidateFailures(t *testing.T) {
	good := vendorManifest(1, fakePluginSHA())
	cases := []struct {
		name     string
		manifest string
		want     string
	}{
		{"bad checksum", vendorManifest(1, strings.Repeat("0", 64)),
			"(FAIL) External files and checksums: %M:5: endpoint.echo: sha256 mismatch for %D/bin/echo: manifest says " + strings.Repeat("0", 64) + ", file has " + fakePluginSHA()},
		{"missing binary", strings.Replace(good, "./bin/echo", "./bin/gone", 1),
			"(FAIL) External files and checksums: %M:5: endpoint.echo: plugin file %D/bin/gone not found"},
		{"wrong API version", vendorManifest(2, fakePluginSHA()),
			"(FAIL) API versions: %M:5: endpoint.echo: built for plugin API v2; this aiperf speaks v1"},
		{"unknown category", strings.Replace(good, "record_processor:", "chart:", 1),
			`(FAIL) Categories and kinds: %M:20: chart.extra: unknown plugin category "chart"`},
		{"kind not allowed", strings.Replace(good, "record_processor:", "timing_strategy:", 1),
			"(FAIL) Categories and kinds: %M:20: timing_strategy.extra: kind wasm not allowed: category timing_strategy accepts only builtin plugins (it runs inside the timed window)"},
		{"duplicate names", good + "  Extra:\n    kind: wasm\n    path: ./bin/extra.wasm\n    api_version: 1\n    description: again\n",
			`(FAIL) Plugin names: %M:26: record_processor.Extra: duplicate plugin name: normalizes to "extra", already declared at line 19`},
		{"builtin kind in external manifest", good + "ui:\n  fancy:\n    kind: builtin\n    description: not ours\n",
			"(FAIL) Categories and kinds: %M:28: ui.fancy: kind builtin is reserved for plugins compiled into aiperf; an external manifest declares kind grpc or wasm"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := pluginsSandbox(t)
			withFakeLoaders(t)
			dir := filepath.Join(root, "vendor")
			installVendor(t, dir, 1, fakePluginSHA())
			m := writePluginFile(t, filepath.Join(dir, "vendor.yaml"), c.manifest, 0o644)
			want := strings.NewReplacer("%M", m, "%D", dir).Replace(c.want)

			code, out, _ := runPlugins(t, "--validate", "--plugins", m)
			if code != 1 || !strings.HasSuffix(out, "Validation failed\n") {
				t.Errorf("exit %d, output:\n%s", code, out)
			}
			if !containsLineWithPrefix(out, want) {
				t.Errorf("missing %q in:\n%s", want, out)
			}
			if n := strings.Count(out, "(FAIL)"); n != 1 {
				t.Errorf("%d failures, want 1:\n%s", n, out)
			}

			code, out, _ = runPlugins(t, "--validate", "--json", "--plugins", m)
			var js struct {
				Passed   bool             `json:"passed"`
				Checks   []registry.Check `json:"checks"`
				Warnings []string         `json:"warnings"`
			}
			if err := json.Unmarshal([]byte(out), &js); err != nil || code != 1 || js.Passed || js.Warnings == nil {
				t.Fatalf("exit %d, err %v, JSON %s", code, err, out)
			}
			found := false
			for _, ch := range js.Checks {
				found = found || (!ch.OK && strings.HasPrefix(ch.String(), want))
			}
			if !found {
				t.Errorf("JSON checks lack %q: %+v", want, js.Checks)
			}
		})
	}
}

func containsLineWithPrefix(out, prefix string) bool {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

func TestPluginsProfileStyleLoadRefusesBrokenManifest(t *testing.T) {
	root := pluginsSandbox(t)
	m := writePluginFile(t, filepath.Join(root, "work", registry.ProjectManifest), "endpoint:\n  x:\n    kind: builtin\n    description: d\n", 0o644)
	// Without --validate a broken manifest stops the command with its location.
	code, _, errOut := runPlugins(t)
	if code != 1 || !strings.Contains(errOut, m+":3: endpoint.x: kind builtin is reserved") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

func TestPluginsWarnsOnEqualPriorityConflict(t *testing.T) {
	root := pluginsSandbox(t)
	body := "endpoint:\n  dup:\n    kind: grpc\n    path: ./p\n    api_version: 1\n    description: d\n"
	a := writePluginFile(t, filepath.Join(root, "a.yaml"), body, 0o644)
	b := writePluginFile(t, filepath.Join(root, "b.yaml"), body, 0o644)
	code, out, errOut := runPlugins(t, "endpoint", "dup", "--plugins", a, "--plugins", b)
	want := "Warning: plugin endpoint.dup declared by both " + a + " and " + b + " with equal priority; keeping the first (" + a + ")"
	if code != 0 || !strings.Contains(errOut, want) || !strings.Contains(out, "Source:      "+a+"\n") {
		t.Errorf("exit %d, stdout %s, stderr %q", code, out, errOut)
	}
}

// A built-in endpoint's details say what it is and which metrics its runs
// report: rankings take text and have no streaming metrics; chat takes
// media and adds the streaming ones.
func TestPluginsEndpointDetails(t *testing.T) {
	for _, c := range []struct {
		name     string
		want     []string
		wantNot  []string
		category string
	}{
		{"nim_rankings", []string{"API path:    /v1/ranking", "Streaming:   no", "Title:       Rankings Metrics", "request_latency"},
			[]string{"+ streaming", "time_to_first_token", "output_sequence_length"}, "endpoint"},
		{"chat", []string{"Takes:       text (tokenized), images, audio, video", "Makes:       tokens", "+ streaming: time_to_first_token", "num_images"},
			nil, "endpoint"},
		{"video_generation", []string{"Transport:   multipart form, polled job", "Makes:       video", "video_inference_time"},
			[]string{"time_to_first_token"}, "endpoint"},
		{"template", []string{"API path:    (none: posts to --url, or --custom-endpoint)"}, nil, "endpoint"},
	} {
		pluginsSandbox(t)
		code, out, errOut := runPlugins(t, c.category, c.name)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: details lack %q:\n%s", c.name, w, out)
			}
		}
		for _, w := range c.wantNot {
			if strings.Contains(out, w) {
				t.Errorf("%s: details show %q:\n%s", c.name, w, out)
			}
		}
	}
}
