package wasmloader

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Real guests, built once for the whole package with the real toolchain.
var (
	guestDir                                            string
	cacheDir                                            string // shared compilation cache: later loads skip compiling
	metricWasm, misbehaveWasm, badImportWasm, rawV2Wasm string
	rawLegacyWasm                                       string
)

func TestMain(m *testing.M) {
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wasmloader tests:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	dir, err := os.MkdirTemp("", "wasmloader-test-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	guestDir, cacheDir = filepath.Join(dir, "guests"), filepath.Join(dir, "cache")
	builds := []struct {
		out *string
		pkg string
	}{
		{&metricWasm, "../../examples/plugins/go-wasm-metric"},
		{&misbehaveWasm, "./testdata/guests/misbehave"},
		{&badImportWasm, "./testdata/guests/badimport"},
		{&rawV2Wasm, "./testdata/guests/rawv2"},
		{&rawLegacyWasm, "./testdata/guests/rawlegacy"},
	}
	for _, b := range builds {
		*b.out = filepath.Join(guestDir, filepath.Base(b.pkg)+".wasm")
		if err := buildGuest(b.pkg, *b.out); err != nil {
			return 0, err
		}
	}
	return m.Run(), nil
}

func buildGuest(pkg, out string) error {
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build guest %s: %v\n%s", pkg, err, b)
	}
	return nil
}

func fileSHA256(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
