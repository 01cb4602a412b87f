package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A plugin that never completes its handshake (here a script that only
// sleeps) must not hold the first Ctrl-C for the plugin start timeout
// (10 s): the start is abandoned, the plugin process killed, and aiperf
// exits 130 saying nothing was sent.
func TestFirstCtrlCStopsAPluginHungAtStartup(t *testing.T) {
	bin := aiperfBinary(t)
	dir := t.TempDir()
	started := filepath.Join(dir, "started")
	script := filepath.Join(dir, "hung-plugin")
	// It records its pid, then sleeps past any timeout without a handshake.
	body := "#!/bin/sh\necho $$ > " + started + ".tmp && mv " + started + ".tmp " + started + "\nexec sleep 60\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(dir, "plugins.yaml")
	yaml := "endpoint:\n  hung:\n    kind: grpc\n    description: never answers its handshake\n    path: " + script + "\n    api_version: 1\n"
	if err := os.WriteFile(manifest, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "profile", "-m", "m", "-u", "http://127.0.0.1:1", "--endpoint-type", "hung",
		"--plugins", manifest, "--request-count", "1", "--ui", "none", "--tokenizer", "builtin",
		"--artifact-dir", filepath.Join(dir, "artifacts"))
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill() //nolint:errcheck // only if the test failed early

	var pid int
	deadline := time.Now().Add(20 * time.Second)
	for pid == 0 {
		if b, err := os.ReadFile(started); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		if time.Now().After(deadline) {
			t.Fatalf("the plugin never started\n%s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	sent := time.Now()
	// 8 s: under the 10 s start timeout it used to wait out.
	err := interrupt(t, cmd, 8*time.Second, &stderr)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("exit %v after Ctrl-C during plugin start-up, want status 130\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "Interrupted before the benchmark started") ||
		!strings.Contains(stderr.String(), "endpoint.hung") {
		t.Errorf("stderr does not say the start of endpoint.hung was interrupted:\n%s", stderr.String())
	}
	t.Logf("exited %v after Ctrl-C", time.Since(sent).Round(time.Millisecond))
	// The plugin process does not outlive aiperf.
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(sent.Add(8 * time.Second)) {
			t.Fatalf("plugin process %d still runs after aiperf exited", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
