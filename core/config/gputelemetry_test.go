package config

import (
	"slices"
	"strings"
	"testing"
)

func TestGPUTelemetryItems(t *testing.T) {
	defaults := []string{"http://localhost:9400/metrics", "http://localhost:9401/metrics"}
	for _, c := range []struct {
		items     []string
		off       bool
		collector string
		urls      []string
		err       string
	}{
		{nil, false, "dcgm", defaults, ""},
		{nil, true, "", nil, ""},
		{[]string{"node1:9400", "http://node2:9401/metrics/", "localhost:9400"}, false, "dcgm",
			append(slices.Clone(defaults), "http://node1:9400/metrics", "http://node2:9401/metrics"), ""},
		{[]string{"dashboard", "127.0.0.1:8000/dcgm"}, false, "dcgm", append(slices.Clone(defaults), "http://127.0.0.1:8000/dcgm/metrics"), ""},
		{[]string{"pynvml"}, false, "nvml", []string{"pynvml://localhost"}, ""},
		{[]string{"PyNVML", "dashboard"}, false, "nvml", []string{"pynvml://localhost"}, ""},
		{[]string{"pynvml", "node1:9400"}, false, "", nil, "cannot use pynvml with DCGM URLs"},
		{[]string{"node1:9400"}, true, "", nil, "--no-gpu-telemetry and --gpu-telemetry"},
		{[]string{"bogus"}, false, "", nil, `invalid --gpu-telemetry item "bogus"`},
		{[]string{"metrics.csv"}, false, "", nil, "CSV files are not supported"},
		{[]string{"amdsmi"}, false, "", nil, "AMD GPUs are not supported"},
	} {
		cfg := RunConfig{GPUTelemetryItems: c.items, NoGPUTelemetry: c.off}
		col, urls, err := cfg.GPUTelemetry()
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v off=%v: err %v, want %q", c.items, c.off, err, c.err)
			}
			if errs := cfg.validateGPUTelemetry(); len(errs) != 1 {
				t.Errorf("%v: validate gave %v", c.items, errs)
			}
			continue
		}
		if err != nil || col != c.collector || !slices.Equal(urls, c.urls) {
			t.Errorf("%v off=%v: got %q %v %v, want %q %v", c.items, c.off, col, urls, err, c.collector, c.urls)
		}
	}
}
