package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/aiperf-go/aiperf/mockserver"
)

// TestDashboardOnARealTerminal runs the real binary in a pseudo-terminal
// (as a user's shell would) with no --ui: the live dashboard is the default
// there. It must take the alternate screen, show live percentiles and GPU
// telemetry while the run executes, hold the run's log lines until it
// closes, leave one settled line per phase, and exit 0 with the artifacts.
func TestDashboardOnARealTerminal(t *testing.T) {
	bin := aiperfBinary(t)
	url := startMock(t, mockserver.Config{TTFT: 5 * time.Millisecond, ITL: time.Millisecond})
	dir := t.TempDir()
	cmd := exec.Command(bin, "profile", "-m", "m", "-u", url, "--streaming", "--concurrency", "4",
		"--request-count", "600", "--warmup-request-count", "20", "--isl", "16", "--osl", "24",
		"--tokenizer", "builtin", "--artifact-dir", dir, "--gpu-telemetry", url+"/dcgm/metrics")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	var screen bytes.Buffer
	copied := make(chan error, 1)
	go func() {
		_, err := io.Copy(&screen, tty)
		copied <- err
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		if err != nil {
			t.Fatalf("exit: %v", err)
		}
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("run did not end within 60 s")
	}
	// The child is gone: the master reads EIO once the buffer is drained.
	if err := <-copied; err != nil && !errors.Is(err, syscall.EIO) {
		t.Fatal(err)
	}
	out := screen.String()
	enter, leave := strings.Index(out, "\x1b[?1049h"), strings.LastIndex(out, "\x1b[?1049l")
	if enter < 0 || leave < enter {
		t.Fatalf("no alternate screen (enter %d, leave %d):\n%q", enter, leave, out[:min(len(out), 2000)])
	}
	during, after := out[enter:leave], out[leave:]
	for _, want := range []string{"Profiling", "Time to First Token", "Request Latency", "req/s", "NVIDIA H100"} {
		if !strings.Contains(during, want) {
			t.Errorf("dashboard never showed %q", want)
		}
	}
	for _, want := range []string{"Warmup: 100.0%", "20/20", "Profiling: 100.0%", "600/600", "Time to First Token", "JSON Export:"} {
		if !strings.Contains(after, want) {
			t.Errorf("after the dashboard closed, no %q:\n%s", want, after)
		}
	}
	// Log lines written while the dashboard held the screen come after it.
	if strings.Contains(during, `msg="profiling phase"`) || !strings.Contains(after, `msg="profiling phase"`) {
		t.Errorf("the run's log line tore the dashboard or was lost (during: %t, after: %t)",
			strings.Contains(during, `msg="profiling phase"`), strings.Contains(after, `msg="profiling phase"`))
	}
	if _, err := os.Stat(filepath.Join(dir, "profile_export_aiperf.json")); err != nil {
		t.Error(err)
	}
}
