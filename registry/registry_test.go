package registry

import (
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"strings"
	"testing"
)

const testManifest = `
schema_version: "1.0"
endpoint:
  chat:
    description: chat endpoint
  My-Endpoint:
    description: mine
ui:
  none:
    description: nothing
`

func builtins() Builtins {
	return Builtins{
		Provide(sdk.Endpoints, "chat", func() sdk.Endpoint { return &fakeChat{"chat"} }),
		Provide(sdk.Endpoints, "my_endpoint", func() sdk.Endpoint { return &fakeChat{"mine"} }),
		Provide(sdk.UIs, "none", func() sdk.UI { return fakeUI{} }),
	}
}

func mustParse(t testing.TB, src, name string) *Manifest {
	t.Helper()
	m, err := ParseManifest([]byte(src), name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestResolveNormalizesNames(t *testing.T) {
	r, err := New(builtins(), mustParse(t, testManifest, "plugins.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"my-endpoint", "MY_ENDPOINT", "My-Endpoint"} {
		ep, err := Get(r, sdk.Endpoints, name)
		if err != nil {
			t.Fatalf("Get(%q): %v", name, err)
		}
		if v := ep.(*fakeChat); v.id != "mine" {
			t.Fatalf("Get(%q) = %q", name, v.id)
		}
	}
}

func TestUnknownNameListsValidOnes(t *testing.T) {
	r, _ := New(builtins(), mustParse(t, testManifest, "plugins.yaml"))
	_, err := r.Resolve("endpoint", "chatt")
	if err == nil || !strings.Contains(err.Error(), `unknown endpoint "chatt"; valid: chat, my_endpoint`) {
		t.Fatalf("err = %v", err)
	}
	if _, err := r.Resolve("nope", "x"); err == nil || !strings.Contains(err.Error(), "valid categories: endpoint, transport") {
		t.Fatalf("err = %v", err)
	}
}

func TestConflictRules(t *testing.T) {
	ext := func(src, prio string) *Manifest {
		return mustParse(t, "endpoint:\n  chat:\n    kind: grpc\n    path: ./p\n    description: ext\n    priority: "+prio+"\n", src)
	}
	cases := []struct {
		name      string
		manifests []*Manifest
		wantSrc   string
		wantWarn  bool
	}{
		{"external beats builtin at equal priority", []*Manifest{mustParse(t, testManifest, "builtin"), ext("a.yaml", "0")}, "a.yaml", false},
		{"higher priority builtin beats external", []*Manifest{mustParse(t, "endpoint:\n  chat:\n    description: b\n    priority: 5\n", "builtin"), ext("a.yaml", "0")}, "builtin", false},
		{"first external wins at equal priority with a warning", []*Manifest{ext("a.yaml", "1"), ext("b.yaml", "1")}, "a.yaml", true},
		{"higher priority external wins", []*Manifest{ext("a.yaml", "1"), ext("b.yaml", "2")}, "b.yaml", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := New(nil, c.manifests...)
			if err != nil {
				t.Fatal(err)
			}
			e, err := r.Resolve("endpoint", "chat")
			if err != nil {
				t.Fatal(err)
			}
			if e.Source != c.wantSrc {
				t.Errorf("winner from %s, want %s", e.Source, c.wantSrc)
			}
			if got := len(r.Warnings) > 0; got != c.wantWarn {
				t.Errorf("warnings = %v, want warning %v", r.Warnings, c.wantWarn)
			}
		})
	}
}

func TestManifestErrorsNameFileAndLine(t *testing.T) {
	cases := map[string]string{
		"endpoint:\n  chat:\n    kind: docker\n":     `bad.yaml:3: endpoint.chat: unknown kind "docker"`,
		"endpoint:\n  chat:\n    descripton: typo\n": "bad.yaml:3: endpoint.chat:",
		"endpoint: [1, 2]\n":                         `bad.yaml:1: category "endpoint" must map`,
		"endpoint:\n  chat:\n    priority: high\n":   "bad.yaml:3",
	}
	for src, want := range cases {
		_, err := ParseManifest([]byte(src), "bad.yaml")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseManifest(%q) err = %v, want containing %q", src, err, want)
		}
	}
}

func TestBuiltinOnlyCategoryRefusesExternal(t *testing.T) {
	m := mustParse(t, "transport:\n  fast:\n    kind: wasm\n    description: x\n", "ext.yaml")
	if _, err := New(nil, m); err == nil || !strings.Contains(err.Error(), "accepts only builtin plugins") {
		t.Fatalf("err = %v", err)
	}
}

func TestValidateFindsUndeclaredAndMissing(t *testing.T) {
	b := builtins()
	b = append(b, raw("ui", "simple", func() any { return fakeUI{} }), raw("ui", "none", func() any { return fakeUI{} }))
	m := mustParse(t, testManifest+"  ghost:\n    description: no impl\n", "plugins.yaml")
	r, err := New(b, m)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, e := range r.Validate() {
		msgs = append(msgs, e.Error())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{"builtin ui.ghost has no implementation", "built-in ui.simple is implemented but not declared", "category transport has no plugins"} {
		if !strings.Contains(all, want) {
			t.Errorf("Validate() missing %q in:\n%s", want, all)
		}
	}
}
