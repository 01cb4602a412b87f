package main

// End-to-end tests of GPU telemetry (issue 12): `aiperf profile
// --gpu-telemetry <mock>/dcgm` scrapes the mock's fake DCGM exporter and
// writes telemetry_data, the CSV GPU section, gpu_telemetry_export.jsonl
// and the console tables in AIPerf 0.13's layout
// (testdata/aiperf013/gpu_telemetry_dcgm).

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
)

var gpuRef = filepath.Join("..", "..", "testdata", "aiperf013", "gpu_telemetry_dcgm")

// layout is a document's text from the line holding start to the line
// holding end with every number blanked, so two runs compare by shape.
func layout(t *testing.T, path, start, end string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(b), "\r\n", "\n")
	i := strings.Index(s, start)
	if i < 0 {
		t.Fatalf("%s: no %q", path, start)
	}
	s = s[i:]
	if end != "" {
		if j := strings.Index(s, end); j >= 0 {
			s = s[:j]
		}
	}
	return regexp.MustCompile(`-?[0-9][0-9.e+-]*`).ReplaceAllString(s, "N")
}

func TestGPUTelemetryFromMockDCGMInEveryExport(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 20 * time.Millisecond, ITL: 5 * time.Millisecond})
	host := strings.TrimPrefix(url, "http://")
	r := profile(t, "--model", "mock-model", "--url", url, "--endpoint-type", "chat", "--streaming",
		"--concurrency", "4", "--request-count", "60", "--isl", "32", "--osl", "64", "--no-server-metrics",
		"--gpu-telemetry", host+"/dcgm")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	source := url + mockserver.DCGMPath

	// JSON: telemetry_data laid out exactly as AIPerf's, the mock's address
	// standing in for the capture's.
	want := layout(t, filepath.Join(gpuRef, "profile_export_aiperf.json"), `"telemetry_data"`, `"input_config"`)
	got := layout(t, filepath.Join(r.dir, "profile_export_aiperf.json"), `"telemetry_data"`, `"input_config"`)
	if got != want {
		t.Errorf("telemetry_data layout differs from AIPerf's:\n got %s\nwant %s", got, want)
	}
	var td struct {
		Summary struct {
			Configured []string `json:"endpoints_configured"`
		} `json:"summary"`
		Endpoints map[string]struct {
			GPUs map[string]struct {
				UUID    string                                `json:"gpu_uuid"`
				Metrics map[string]map[string]json.RawMessage `json:"metrics"`
			} `json:"gpus"`
		} `json:"endpoints"`
	}
	if err := json.Unmarshal(r.summary["telemetry_data"], &td); err != nil {
		t.Fatal(err)
	}
	ep, ok := td.Endpoints[host+"/dcgm"]
	if !ok || len(td.Summary.Configured) != 1 || td.Summary.Configured[0] != source || len(ep.GPUs) != 2 {
		t.Fatalf("telemetry_data: %s", r.summary["telemetry_data"])
	}
	power := ep.GPUs["gpu_0"].Metrics["nvidia_power_usage"]
	var maxW float64
	_ = json.Unmarshal(power["max"], &maxW)
	// Four requests in flight drive GPU 0 to 100% (700 W) at some scrape.
	if ep.GPUs["gpu_0"].UUID != "GPU-5fd4c4a2-6a1b-4c1e-9f0a-000000000000" || maxW <= 70 {
		t.Errorf("GPU 0 power did not move with the load: %s", power["max"])
	}

	// CSV: the GPU section's rows laid out as AIPerf's.
	want = layout(t, filepath.Join(gpuRef, "profile_export_aiperf.csv"), "Endpoint,GPU_Index", "")
	got = layout(t, filepath.Join(r.dir, "profile_export_aiperf.csv"), "Endpoint,GPU_Index", "")
	if got != strings.ReplaceAll(want, "N:N/dcgm", "N:N/dcgm") || !strings.Contains(got, "NVIDIA GPU Power Usage (W)") {
		t.Errorf("CSV GPU section differs from AIPerf's:\n got %s\nwant %s", got, want)
	}

	// JSONL: one line per GPU per sample, AIPerf's keys in its order.
	f, err := os.Open(filepath.Join(r.dir, "gpu_telemetry_export.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	keys := regexp.MustCompile(`"([a-z_]+)":`)
	ref, _ := os.ReadFile(filepath.Join(gpuRef, "gpu_telemetry_export.jsonl"))
	wantKeys := keys.FindAllString(strings.SplitN(string(ref), "\n", 2)[0], -1)
	sc := bufio.NewScanner(f)
	lines := 0
	for sc.Scan() {
		lines++
		if g := keys.FindAllString(sc.Text(), -1); strings.Join(g, "") != strings.Join(wantKeys, "") {
			t.Fatalf("line %d keys %v, want %v", lines, g, wantKeys)
		}
		if !strings.Contains(sc.Text(), `"telemetry_source_url":"`+source+`"`) {
			t.Fatalf("line %d source: %s", lines, sc.Text())
		}
	}
	if lines < 2 || lines%2 != 0 {
		t.Errorf("want whole samples of 2 GPUs, got %d lines", lines)
	}

	// Console: the GPU Telemetry Summary after the metrics table.
	console, _ := os.ReadFile(filepath.Join(r.dir, "profile_export_console.txt"))
	c := string(console)
	if i, j := strings.Index(c, "LLM Metrics"), strings.Index(c, "AIPerf | GPU Telemetry Summary"); i < 0 || j < i ||
		!strings.Contains(c, "1/1 telemetry sources reachable") || !strings.Contains(c, host+"/dcgm | GPU 1 | NVIDIA H100 80GB HBM3") {
		t.Errorf("console:\n%s", c)
	}
}

// A GPU source that is down does not stop the run, and the exports stay
// those of a run without GPU telemetry.
func TestGPUTelemetryDownSourceRunGoesOn(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true})
	r := profile(t, "--model", "mock-model", "--url", url, "--endpoint-type", "chat",
		"--request-count", "8", "--no-server-metrics", "--gpu-telemetry", "127.0.0.1:1/dcgm")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "gpu_telemetry_export.jsonl")); err == nil {
		t.Error("gpu_telemetry_export.jsonl written without samples")
	}
	if !strings.Contains(string(r.summary["telemetry_data"]), `"endpoints": {}`) {
		t.Errorf("telemetry_data: %s", r.summary["telemetry_data"])
	}
}

func TestGPUTelemetryFlagConflicts(t *testing.T) {
	for _, args := range [][]string{
		{"--gpu-telemetry", "pynvml", "node1:9400"},
		{"--gpu-telemetry", "node1:9400", "--no-gpu-telemetry"},
		{"--gpu-telemetry", "bogus"},
	} {
		r := profile(t, append([]string{"--model", "m", "--url", "127.0.0.1:1", "--request-count", "1"}, args...)...)
		if r.code == 0 || !strings.Contains(r.stderr, "gpu-telemetry") && !strings.Contains(r.stderr, "pynvml") {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
}
