package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
)

// Telemetry collectors from a manifest: a gRPC plugin reads the GPUs
// (--gpu-telemetry-collector) and scrapes the server metrics
// (--server-metrics-collector), each source handed over as its "url"
// setting, and its readings reach the exports like the built-ins'.
func TestProfileWithGRPCTelemetryPlugins(t *testing.T) {
	if testing.Short() {
		t.Skip("builds plugin binaries")
	}
	dir := t.TempDir()
	bin, sum := buildPlugin(t, dir, "testplugin", "../../registry/grpcloader/testdata/testplugin")
	manifest := filepath.Join(dir, "aiperf-plugins.yaml")
	entry := func(cat, name string) string {
		return fmt.Sprintf("%s:\n  %s:\n    kind: grpc\n    description: test collector\n    path: %s\n    sha256: %s\n    api_version: 1\n    config:\n      path: /t\n",
			cat, name, filepath.Base(bin), sum)
	}
	yaml := entry("gpu_telemetry_collector", "vendor_gpus") + entry("server_metrics_collector", "vendor_metrics")
	if err := os.WriteFile(manifest, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	url := startMock(t, mockserver.Config{Fast: true})
	r := profile(t, "-m", "m", "-u", url, "--plugins", manifest, "--request-count", "8", "--concurrency", "2",
		"--gpu-telemetry", "http://rack7:9400/metrics", "--gpu-telemetry-collector", "vendor_gpus",
		"--server-metrics-collector", "vendor_metrics")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	jsonl, err := os.ReadFile(filepath.Join(r.dir, "gpu_telemetry_export.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(jsonl), `"gpu_uuid":"GPU-0"`) || !strings.Contains(string(jsonl), `"telemetry_source_url":"http://rack7:9400/metrics"`) {
		t.Errorf("GPU export lacks the plugin's readings:\n%.600s", jsonl)
	}
	sm, err := os.ReadFile(filepath.Join(r.dir, "server_metrics_export.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(sm), "test_requests") {
		t.Errorf("server metrics export lacks the plugin's family:\n%.600s", sm)
	}
}
