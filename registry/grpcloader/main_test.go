package grpcloader

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/registry"
)

// Binaries built once for every test and benchmark: the shipped example
// endpoint and the misbehaving test plugin.
var (
	textgenBin    string
	testPluginBin string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "grpcloader-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	textgenBin = filepath.Join(dir, "textgen-plugin")
	testPluginBin = filepath.Join(dir, "testplugin")
	for bin, pkg := range map[string]string{
		textgenBin:    "github.com/aiperf-go/aiperf/examples/plugins/go-grpc-endpoint",
		testPluginBin: "./testdata/testplugin",
	} {
		if err := goBuild(bin, pkg); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return m.Run()
}

func goBuild(out, pkg string) error {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("building test plugins needs the go command on PATH: %w", err)
	}
	cmd := exec.Command(goBin, "build", "-o", out, pkg)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	return nil
}

// logBuffer is a concurrency-safe slog sink tests can search.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor polls the log until it holds every want string; plugin output
// arrives asynchronously. The deadline only guards against a hang.
func (b *logBuffer) waitFor(t *testing.T, want ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := b.String()
		missing := ""
		for _, w := range want {
			if !strings.Contains(s, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("log never contained %q; log:\n%s", missing, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// newLoader returns a loader logging at debug level into a searchable buffer,
// closed at the end of the test.
func newLoader(t testing.TB, opts Options) (*Loader, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	l := New(opts)
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return l, logs
}

func entry(category, name, path string) *registry.Entry {
	return &registry.Entry{Category: category, Name: name, Kind: registry.KindGRPC, Path: path, APIVersion: 1, Source: "test.yaml"}
}
