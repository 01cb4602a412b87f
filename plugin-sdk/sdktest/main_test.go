package sdktest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Plugin binaries built once by TestMain; an empty path comes with the
// reason it could not be built, and the tests needing it skip.
var (
	textgenBinary, textgenSkip string // examples/plugins/go-grpc-endpoint (root module)
	fixtureBinary, fixtureSkip string // sdktest/testdata/plugin (this module)
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sdktest-plugins-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	textgenBinary, textgenSkip = buildPlugins(dir)
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// buildPlugins builds the fixture plugin (a failure is fatal: it lives in
// this module) and the textgen example, which needs the aiperf repository
// around this module (skipped when plugin-sdk is used on its own).
func buildPlugins(dir string) (textgen, textgenWhy string) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		fixtureSkip = "no go tool on PATH"
		return "", fixtureSkip
	}
	fixtureBinary = filepath.Join(dir, "fixture-plugin")
	if err := goBuild(goTool, "..", fixtureBinary, "./sdktest/testdata/plugin"); err != nil {
		fmt.Fprintln(os.Stderr, "sdktest: building the fixture plugin:", err)
		os.Exit(1)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		return "", err.Error()
	}
	if mod, err := os.ReadFile(filepath.Join(root, "go.mod")); err != nil || !strings.Contains(string(mod), "module github.com/aiperf-go/aiperf\n") {
		return "", "not inside the aiperf repository: the textgen example is not available"
	}
	textgen = filepath.Join(dir, "textgen-plugin")
	if err := goBuild(goTool, root, textgen, "./examples/plugins/go-grpc-endpoint"); err != nil {
		fmt.Fprintln(os.Stderr, "sdktest: building the textgen example:", err)
		os.Exit(1)
	}
	return textgen, ""
}

func goBuild(goTool, dir, out, pkg string) error {
	cmd := exec.Command(goTool, "build", "-o", out, pkg)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s in %s: %w\n%s", pkg, dir, err, b)
	}
	return nil
}

func requireBinary(t *testing.T, path, why string) {
	t.Helper()
	if path == "" {
		t.Skip(why)
	}
}
