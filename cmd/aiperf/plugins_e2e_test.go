package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/registry"
)

// buildPlugin compiles an example plugin into dir and returns its path and sha256.
func buildPlugin(t *testing.T, dir, name, pkg string, env ...string) (string, string) {
	t.Helper()
	out := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", out)
	if len(env) > 0 {
		cmd.Args = append(cmd.Args, "-buildmode=c-shared")
	}
	cmd.Args = append(cmd.Args, pkg)
	cmd.Env = append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	sum, err := registry.FileSHA256(out)
	if err != nil {
		t.Fatal(err)
	}
	return out, sum
}

// TestProfileWithAGRPCEndpointPlugin runs a whole profile through an
// external endpoint: a separate Go process speaking a non-OpenAI JSON API,
// declared in a manifest with its checksum, mixed with built-in exporters.
func TestProfileWithAGRPCEndpointPlugin(t *testing.T) {
	if testing.Short() {
		t.Skip("builds plugin binaries")
	}
	dir := t.TempDir()
	bin, sum := buildPlugin(t, dir, "textgen-plugin", "../../examples/plugins/go-grpc-endpoint")
	wasm, wasmSum := buildPlugin(t, dir, "metric.wasm", "../../examples/plugins/go-wasm-metric", "GOOS=wasip1", "GOARCH=wasm")
	manifest := filepath.Join(dir, "aiperf-plugins.yaml")
	yaml := fmt.Sprintf("endpoint:\n  textgen:\n    kind: grpc\n    description: textgen over gRPC\n    path: %s\n    sha256: %s\n    api_version: 1\n", filepath.Base(bin), sum) +
		fmt.Sprintf("record_processor:\n  answer_chars:\n    kind: wasm\n    description: answer characters (WASM)\n    path: %s\n    sha256: %s\n    api_version: 1\n    limits:\n      memory_mb: 64\n      call_timeout_ms: 5000\n", filepath.Base(wasm), wasmSum)
	if err := os.WriteFile(manifest, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	url := startMock(t, mockserver.Config{Fast: true})
	r := profile(t, "-m", "m", "-u", url, "--endpoint-type", "textgen", "--plugins", manifest, "--streaming",
		"--concurrency", "4", "--request-count", "20", "--isl", "24", "--osl", "12")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if c := r.mustMetric(t, "request_count"); *c.Avg != 20 {
		t.Errorf("request_count %v", *c.Avg)
	}
	osl := r.mustMetric(t, "output_sequence_length")
	if *osl.Min != 12 || *osl.Max != 12 {
		t.Errorf("OSL %v..%v through the plugin, want the mock's exact 12", *osl.Min, *osl.Max)
	}
	r.mustMetric(t, "time_to_first_token")
	// The WASM record processor's metrics reach every record and the summary.
	chars := r.mustMetric(t, "answer_characters")
	if chars.Count == nil || *chars.Count != 20 || *chars.Min <= 0 {
		t.Errorf("answer_characters from the WASM plugin: %+v", chars)
	}
	for _, rec := range r.records {
		if _, ok := rec.Metrics["characters_per_token"]; !ok {
			t.Fatalf("record without the WASM plugin's characters_per_token: %v", rec.Metrics)
		}
	}
	checkJSONLRecomputesSummary(t, r)
	checkCSV(t, r)

	// A tampered binary is refused before any request, naming the plugin.
	if err := os.WriteFile(manifest, []byte(strings.Replace(yaml, sum, strings.Repeat("0", 64), 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := profile(t, "-m", "m", "-u", url, "--endpoint-type", "textgen", "--plugins", manifest, "--request-count", "2")
	if bad.code != 1 || !strings.Contains(bad.stderr, "checksum mismatch") || !strings.Contains(bad.stderr, "textgen") {
		t.Errorf("tampered plugin: exit %d, stderr %s", bad.code, bad.stderr)
	}
}

// TestProfileWithAWASMEndpointPlugin runs the same textgen endpoint compiled
// to WASM: the kind changes, the contract and the results do not.
func TestProfileWithAWASMEndpointPlugin(t *testing.T) {
	if testing.Short() {
		t.Skip("builds plugin binaries")
	}
	dir := t.TempDir()
	wasm, sum := buildPlugin(t, dir, "textgen.wasm", "../../examples/plugins/go-wasm-endpoint", "GOOS=wasip1", "GOARCH=wasm")
	manifest := filepath.Join(dir, "aiperf-plugins.yaml")
	yaml := fmt.Sprintf("endpoint:\n  textgen_wasm:\n    kind: wasm\n    description: textgen as WASM\n    path: %s\n    sha256: %s\n    api_version: 1\n", filepath.Base(wasm), sum)
	if err := os.WriteFile(manifest, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	url := startMock(t, mockserver.Config{Fast: true})
	for _, streaming := range []bool{true, false} {
		args := []string{"-m", "m", "-u", url, "--endpoint-type", "textgen_wasm", "--plugins", manifest,
			"--concurrency", "2", "--request-count", "8", "--isl", "16", "--osl", "6"}
		if streaming {
			args = append(args, "--streaming")
		}
		r := profile(t, args...)
		if r.code != 0 {
			t.Fatalf("streaming=%v: exit %d\n%s", streaming, r.code, r.stderr)
		}
		if osl := r.mustMetric(t, "output_sequence_length"); *osl.Min != 6 || *osl.Max != 6 {
			t.Errorf("streaming=%v: OSL %v..%v through the WASM endpoint, want 6", streaming, *osl.Min, *osl.Max)
		}
		if _, ttft := r.metric(t, "time_to_first_token"); ttft != streaming {
			t.Errorf("streaming=%v: TTFT present = %v", streaming, ttft)
		}
	}
}
