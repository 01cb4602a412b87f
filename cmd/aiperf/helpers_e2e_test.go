package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func grepLines(s, substr string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// runCommand runs the aiperf subcommand name with args through the root
// command, as the binary would, and returns what it printed.
func runCommand(t *testing.T, name string, args ...string) (string, error) {
	t.Helper()
	full := append([]string{name}, args...)
	root := newRootCmd(full)
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(full)
	err := root.Execute()
	return out.String(), err
}

// builtBinary is the aiperf binary the end-to-end tests that need a real
// process (signals, terminals) share: built once per test binary.
var builtBinary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// aiperfBinary builds the command (without the hf tag: these tests use
// the builtin tokenizer) and returns its path.
func aiperfBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	b := &builtBinary
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "aiperf-e2e-"); b.err != nil {
			return
		}
		b.path = filepath.Join(b.dir, "aiperf")
		if out, err := exec.Command("go", "build", "-o", b.path, ".").CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtBinary.dir != "" {
		os.RemoveAll(builtBinary.dir)
	}
	os.Exit(code)
}

// interrupt sends the running cmd one SIGINT and waits for it to exit, at
// most within (a hang detector, not a timing assertion); it returns Wait's
// error. output is what the command printed, shown when it hangs.
func interrupt(t *testing.T, cmd *exec.Cmd, within time.Duration, output fmt.Stringer) error {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(within):
		_ = cmd.Process.Kill()
		t.Fatalf("still running %v after SIGINT\n%s", within, output)
		return nil
	}
}
