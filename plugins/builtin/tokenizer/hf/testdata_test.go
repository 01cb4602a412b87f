//go:build hf

package hf

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// qwen3Path finds Qwen3's tokenizer.json (fetched by `make testdata`):
// $AIPERF_QWEN3_TOKENIZER, else .cache/testdata/qwen3/tokenizer.json under
// the repository root. Missing data skips the test, unless
// AIPERF_REQUIRE_TESTDATA=1 (make test) makes that a failure.
func qwen3Path(tb testing.TB) string {
	tb.Helper()
	path := os.Getenv("AIPERF_QWEN3_TOKENIZER")
	if path == "" {
		root, err := repoRoot()
		if err != nil {
			tb.Fatalf("find repository root: %v", err)
		}
		path = filepath.Join(root, ".cache", "testdata", "qwen3", "tokenizer.json")
	}
	if _, err := os.Stat(path); err != nil {
		msg := "Qwen3 tokenizer.json missing (" + err.Error() + "); run `make testdata`"
		if os.Getenv("AIPERF_REQUIRE_TESTDATA") == "1" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	return path
}

// repoRoot is the nearest directory above the working directory with a go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}

var shared struct {
	once sync.Once
	tok  *Tokenizer
	err  error
}

// qwen3 loads the Qwen3 tokenizer once per test binary (the file is 11 MB)
// through the public Loader.
func qwen3(tb testing.TB) *Tokenizer {
	tb.Helper()
	path := qwen3Path(tb)
	shared.once.Do(func() {
		var tok sdk.Tokenizer
		tok, shared.err = New().Load(context.Background(), sdk.TokenizerSource{Name: path})
		if shared.err == nil {
			shared.tok = tok.(*Tokenizer)
		}
	})
	if shared.err != nil {
		tb.Fatalf("load %s: %v", path, shared.err)
	}
	return shared.tok
}
