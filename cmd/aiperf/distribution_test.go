package main

import (
	"encoding/json"
	"io"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// The distribution and the embedded plugins.yaml declare the same plugins,
// and every built-in implements its category's interface.
func TestDistributionMatchesManifest(t *testing.T) {
	reg, err := embeddedRegistry()
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range reg.Validate() {
		t.Error(err)
	}
	for _, c := range sdk.Categories {
		names := reg.Names(c.Name)
		if len(names) == 0 {
			t.Errorf("category %s has no built-in", c.Name)
		}
		for _, n := range names {
			v, err := reg.Instantiate(c.Name, n)
			if err != nil {
				t.Errorf("%s.%s: %v", c.Name, n, err)
				continue
			}
			if !c.Implements(v) {
				t.Errorf("%s.%s does not implement %s", c.Name, n, c.InterfaceName())
			}
		}
	}
}

// A built-in with a lifecycle (settings, Init, Close) gets a fresh
// instance per use: per-phase plugins (timing, arrival, ramp) must never
// share that state. Stateless ones may share (the embedded tokenizer).
func TestBuiltinsAreFreshInstances(t *testing.T) {
	for _, f := range builtins() {
		v := f.New()
		switch v.(type) {
		case sdk.Configurable, sdk.Initializer, sdk.Validator, io.Closer:
		default:
			continue
		}
		a, b := reflect.ValueOf(v), reflect.ValueOf(f.New())
		// Pointers to zero-size values may share an address and hold no state.
		if a.Kind() == reflect.Pointer && a.Type().Elem().Size() > 0 && a.Pointer() == b.Pointer() {
			t.Errorf("%s.%s returns a shared instance", f.Category, f.Name)
		}
	}
}

// The core and the registry never import a plugin package, tests
// included: the command owns the distribution.
func TestCoreNeverImportsAPlugin(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports,TestImports,XTestImports",
		"github.com/aiperf-go/aiperf/core/...", "github.com/aiperf-go/aiperf/registry/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	const plugins = "github.com/aiperf-go/aiperf/plugins/"
	checked := 0
	for {
		var p struct {
			ImportPath                         string
			Imports, TestImports, XTestImports []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range append(append(p.Imports, p.TestImports...), p.XTestImports...) {
			if strings.HasPrefix(imp, plugins) {
				t.Errorf("%s imports %s", p.ImportPath, imp)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d packages listed", checked)
	}
}
