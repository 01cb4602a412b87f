package registry

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// extManifest declares one grpc endpoint plugin.
func extManifest(name string, priority int, extra string) string {
	return "endpoint:\n  " + name + ":\n    kind: grpc\n    path: ./bin/" + name + "\n    api_version: 1\n    description: from a manifest\n" +
		"    priority: " + strconv.Itoa(priority) + "\n" + extra
}

func TestManifestPathsOrderAndPrecedenceSources(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	xdg := filepath.Join(root, "xdg")
	work := filepath.Join(root, "work")
	envDir := filepath.Join(root, "envdir")
	userB := writeFile(t, home, ".config/aiperf/plugins.d/b.yaml", "", 0o644)
	userA := writeFile(t, home, ".config/aiperf/plugins.d/a.yml", "", 0o644)
	writeFile(t, home, ".config/aiperf/plugins.d/notes.txt", "", 0o644)
	xdgA := writeFile(t, xdg, "aiperf/plugins.d/x.yaml", "", 0o644)
	project := writeFile(t, work, ProjectManifest, "", 0o644)
	extra1 := writeFile(t, work, "extra1.yaml", "", 0o644)
	extra2 := writeFile(t, root, "extra2.yaml", "", 0o644)
	envFile := writeFile(t, root, "env-file.yaml", "", 0o644)
	envDirB := writeFile(t, envDir, "b.yaml", "", 0o644)
	envDirA := writeFile(t, envDir, "a.yaml", "", 0o644)
	envPath := strings.Join([]string{envFile, filepath.Join(root, "missing"), envDir}, string(os.PathListSeparator))

	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cases := []struct {
		name      string
		d         Discovery
		want      []string
		wantWarns int
	}{
		{"nothing anywhere", Discovery{Env: env(nil), HomeDir: filepath.Join(root, "nohome"), WorkDir: root}, nil, 0},
		{"user dir, sorted, only yaml", Discovery{Env: env(nil), HomeDir: home, WorkDir: root}, []string{userA, userB}, 0},
		{"XDG_CONFIG_HOME replaces ~/.config", Discovery{Env: env(map[string]string{"XDG_CONFIG_HOME": xdg}), HomeDir: home, WorkDir: root}, []string{xdgA}, 0},
		{"project before user dir", Discovery{Env: env(nil), HomeDir: home, WorkDir: work}, []string{project, userA, userB}, 0},
		{
			"every source, most specific first",
			Discovery{Env: env(map[string]string{EnvPluginPath: envPath}), HomeDir: home, WorkDir: work, Extra: []string{"extra1.yaml", extra2}},
			[]string{extra1, extra2, envFile, envDirA, envDirB, project, userA, userB}, 1,
		},
		{
			"a file found twice is read once, at its first place",
			Discovery{Env: env(map[string]string{EnvPluginPath: project}), HomeDir: home, WorkDir: work, Extra: []string{ProjectManifest}},
			[]string{project, userA, userB}, 0,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, warns, err := c.d.ManifestPaths()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("paths =\n%v\nwant\n%v", got, c.want)
			}
			if len(warns) != c.wantWarns {
				t.Errorf("warnings = %q, want %d", warns, c.wantWarns)
			}
			if c.wantWarns > 0 && !strings.Contains(warns[0], "AIPERF_PLUGIN_PATH: "+filepath.Join(root, "missing")+" does not exist") {
				t.Errorf("warning = %q", warns[0])
			}
		})
	}
}

func TestManifestPathsMissingPluginsFileIsAnError(t *testing.T) {
	d := Discovery{Env: func(string) string { return "" }, HomeDir: t.TempDir(), WorkDir: t.TempDir(), Extra: []string{"nope.yaml"}}
	_, _, err := d.ManifestPaths()
	if err == nil || !strings.Contains(err.Error(), "--plugins nope.yaml") || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("err = %v", err)
	}
}

// TestPrecedenceAcrossSources declares endpoint.echo in every source and
// checks who wins: at equal priority the most specific source, otherwise
// the highest priority.
func TestPrecedenceAcrossSources(t *testing.T) {
	cases := []struct {
		name       string
		priorities map[string]int // source -> priority; absent = not declared there
		want       string
	}{
		{"--plugins beats everything at equal priority", map[string]int{"user": 0, "project": 0, "env": 0, "extra": 0}, "extra"},
		{"env beats project and user", map[string]int{"user": 0, "project": 0, "env": 0}, "env"},
		{"project beats user", map[string]int{"user": 0, "project": 0}, "project"},
		{"higher priority in the user dir beats --plugins", map[string]int{"user": 5, "extra": 0}, "user"},
		{"user dir external beats builtin", map[string]int{"user": 0}, "user"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			home, work := filepath.Join(root, "home"), filepath.Join(root, "work")
			d := Discovery{Env: func(string) string { return "" }, HomeDir: home, WorkDir: work}
			srcs := map[string]string{}
			for src, prio := range c.priorities {
				body := extManifest("echo", prio, "")
				switch src {
				case "user":
					srcs[src] = writeFile(t, home, ".config/aiperf/plugins.d/u.yaml", body, 0o644)
				case "project":
					srcs[src] = writeFile(t, work, ProjectManifest, body, 0o644)
				case "env":
					srcs[src] = writeFile(t, root, "env.yaml", body, 0o644)
					d.Env = func(k string) string {
						if k == EnvPluginPath {
							return srcs["env"]
						}
						return ""
					}
				case "extra":
					srcs[src] = writeFile(t, root, "extra.yaml", body, 0o644)
					d.Extra = []string{srcs[src]}
				}
			}
			paths, _, err := d.ManifestPaths()
			if err != nil {
				t.Fatal(err)
			}
			ext, err := ParseManifestFiles(paths)
			if err != nil {
				t.Fatal(err)
			}
			builtin := mustParse(t, "endpoint:\n  echo:\n    description: builtin echo\n", "plugins.yaml (embedded)")
			r, err := New(nil, append([]*Manifest{builtin}, ext...)...)
			if err != nil {
				t.Fatal(err)
			}
			e, err := r.Resolve("endpoint", "echo")
			if err != nil {
				t.Fatal(err)
			}
			if e.Source != srcs[c.want] {
				t.Errorf("winner %s, want %s (%s)", e.Source, c.want, srcs[c.want])
			}
			if got := r.Names("endpoint"); !reflect.DeepEqual(got, []string{"echo"}) {
				t.Errorf("names = %v", got)
			}
		})
	}
}

func TestRelativePluginPathResolvesAgainstManifestDir(t *testing.T) {
	root := t.TempDir()
	src := "endpoint:\n" +
		"  rel:\n    kind: grpc\n    path: ./bin/rel\n    api_version: 1\n    description: d\n" +
		"  up:\n    kind: wasm\n    path: ../shared/up.wasm\n    api_version: 1\n    description: d\n" +
		"  abs:\n    kind: grpc\n    path: /opt/plugins/abs\n    api_version: 1\n    description: d\n"
	p := writeFile(t, root, "vendor/manifests/m.yaml", src, 0o644)
	m, err := ParseManifestFile(p)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"rel": filepath.Join(root, "vendor/manifests/bin/rel"),
		"up":  filepath.Join(root, "vendor/shared/up.wasm"),
		"abs": "/opt/plugins/abs",
	}
	if len(m.Entries) != 3 {
		t.Fatalf("entries = %d", len(m.Entries))
	}
	for _, e := range m.Entries {
		if got := e.ResolvedPath(); got != want[e.Name] {
			t.Errorf("%s: ResolvedPath = %s, want %s", e.Name, got, want[e.Name])
		}
		if e.Source != p || !m.External || m.Dir != filepath.Join(root, "vendor/manifests") {
			t.Errorf("%s: source %s external %v dir %s", e.Name, e.Source, m.External, m.Dir)
		}
	}
}

func TestExternalManifestRules(t *testing.T) {
	cases := []struct {
		name, src, want, check string
	}{
		{"builtin kind", "endpoint:\n  sneaky:\n    kind: builtin\n    description: d\n",
			"m.yaml:3: endpoint.sneaky: kind builtin is reserved for plugins compiled into aiperf", CheckKinds},
		{"missing kind", "endpoint:\n  nokind:\n    path: ./p\n    api_version: 1\n    description: d\n",
			"m.yaml:3: endpoint.nokind: kind is required in an external manifest (grpc or wasm)", CheckSchema},
		{"missing path", "record_processor:\n  nopath:\n    kind: wasm\n    api_version: 1\n    description: d\n",
			"m.yaml:3: record_processor.nopath: path is required for a wasm plugin", CheckSchema},
		{"missing api_version", "endpoint:\n  noapi:\n    kind: grpc\n    path: ./p\n    description: d\n",
			"m.yaml:3: endpoint.noapi: api_version is required for a grpc plugin (this aiperf speaks plugin API v1)", CheckSchema},
		{"duplicate after normalization", extManifest("my-ep", 0, "") + "  My_Ep:\n    kind: grpc\n    path: ./q\n    api_version: 1\n    description: d\n",
			`m.yaml:8: endpoint.My_Ep: duplicate plugin name: normalizes to "my_ep", already declared at line 2`, CheckNames},
		{"unknown field", "endpoint:\n  typo:\n    kind: grpc\n    path: ./p\n    api_verison: 1\n",
			`m.yaml:5: endpoint.typo: unknown field "api_verison" (valid: api_version, config, description, grants, kind, limits, metadata, path, priority, sha256)`, CheckSchema},
		{"unknown nested field", "endpoint:\n  lim:\n    kind: wasm\n    path: ./p\n    api_version: 1\n    limits:\n      memory: 64\n",
			`m.yaml:7: endpoint.lim: limits: unknown field "memory" (valid: call_timeout_ms, memory_mb)`, CheckSchema},
		{"entry not a mapping", "endpoint:\n  flat: grpc\n", "m.yaml:2: endpoint.flat: entry must be a mapping", CheckSchema},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			writeFile(t, dir, "m.yaml", c.src, 0o644)
			_, err := ParseManifestFile("m.yaml")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v\nwant containing %q", err, c.want)
			}
			if got := classify([]error{err}); len(got[c.check]) != 1 {
				t.Errorf("classified as %v, want one %s problem", got, c.check)
			}
		})
	}
}

func TestParseReportsEveryBadEntry(t *testing.T) {
	src := "endpoint:\n  a:\n    kind: docker\n  b:\n    kind: grpc\n    description: fine\n    path: ./b\n    api_version: 1\n  c:\n    priority: high\n"
	m, err := ParseManifest([]byte(src), "x.yaml")
	if err == nil {
		t.Fatal("want an error")
	}
	for _, want := range []string{`x.yaml:3: endpoint.a: unknown kind "docker"`, "x.yaml:10: endpoint.c:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want containing %q", err, want)
		}
	}
	if len(m.Entries) != 1 || m.Entries[0].Name != "b" {
		t.Errorf("good entries = %v, want just b", m.Entries)
	}
}
