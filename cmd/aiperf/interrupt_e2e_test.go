package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
)

// TestInterruptExportsWhatWasMeasured builds the real binary, sends it one
// SIGINT mid-run and checks it stops sending, exports the partial results
// marked as cancelled, and exits 0 (AIPerf's behaviour).
func TestInterruptExportsWhatWasMeasured(t *testing.T) {
	bin := aiperfBinary(t)
	url := startMock(t, mockserver.Config{TTFT: 5 * time.Millisecond, ITL: time.Millisecond})
	dir := t.TempDir()
	cmd := exec.Command(bin, "profile", "-m", "m", "-u", url, "--streaming", "--concurrency", "4",
		"--request-count", "1000000", "--num-dataset-entries", "100", "--isl", "16", "--osl", "8", "--artifact-dir", dir, "--ui", "none", "--tokenizer", "builtin")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	jsonl := filepath.Join(dir, "profile_export.jsonl")
	deadline := time.Now().Add(20 * time.Second)
	for {
		// Wait until records are streaming to disk, then interrupt.
		if st, err := os.Stat(jsonl); err == nil && st.Size() > 0 {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("no records streamed to %s\n%s", jsonl, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := interrupt(t, cmd, 30*time.Second, &stderr); err != nil {
		t.Fatalf("exit after one Ctrl-C: %v\n%s", err, stderr.String())
	}
	var summary map[string]json.RawMessage
	b, err := os.ReadFile(filepath.Join(dir, "profile_export_aiperf.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &summary); err != nil {
		t.Fatal(err)
	}
	if string(summary["was_cancelled"]) != "true" {
		t.Errorf("was_cancelled = %s", summary["was_cancelled"])
	}
	if !strings.Contains(stdout.String(), "(cancelled early)") || !strings.Contains(stdout.String(), "cancelled early. Results shown may be incomplete") {
		t.Errorf("console lacks the cancellation notes:\n%s", stdout.String())
	}
	lines, _ := os.ReadFile(jsonl)
	if n := bytes.Count(lines, []byte("\n")); n == 0 || n >= 1000000 {
		t.Errorf("%d JSONL records after an interrupt", n)
	}
}
