package config

import (
	"fmt"
	"strings"
)

// GPU telemetry options (issue 12).
const (
	keyGPUTelemetry = "gpu_telemetry"
	// The collector plugins' selection flags (ours).
	keyGPUCollectorPlugin    = "gpu_telemetry_collector"
	keyServerCollectorPlugin = "server_metrics_collector"
	keyNoGPUTelemetry        = "no_gpu_telemetry"
)

// DefaultDCGMURLs are the DCGM exporter endpoints AIPerf 0.13 always tries
// in DCGM mode (AIPERF_GPU_DEFAULT_DCGM_ENDPOINTS); a run where they do not
// answer simply has no GPU telemetry, so their failures are not worth a
// warning.
var DefaultDCGMURLs = []string{"http://localhost:9400/metrics", "http://localhost:9401/metrics"}

// GPU telemetry collector plugin names.
const (
	GPUCollectorDCGM = "dcgm"
	GPUCollectorNVML = "nvml"
	// nvmlSource is the one source of the local collector (AIPerf's
	// PYNVML_SOURCE_IDENTIFIER).
	nvmlSource = "pynvml://localhost"
)

// GPUTelemetry resolves --gpu-telemetry / --no-gpu-telemetry as AIPerf
// 0.13 does: on by default in DCGM mode with DefaultDCGMURLs followed by
// each URL item (http:// and /metrics added when missing, duplicates
// dropped); "pynvml" (or "nvml") reads the local GPUs through NVML instead;
// "dashboard" is accepted (there is no dashboard UI: summary output).
// collector is "" when GPU telemetry is off.
func (c *RunConfig) GPUTelemetry() (collector string, urls []string, err error) {
	if c.NoGPUTelemetry {
		if len(c.GPUTelemetryItems) > 0 {
			return "", nil, fmt.Errorf("cannot use both --no-gpu-telemetry and --gpu-telemetry together; use only one or the other")
		}
		return "", nil, nil
	}
	collector = GPUCollectorDCGM
	var user []string
	for _, item := range c.GPUTelemetryItems {
		item = strings.TrimSpace(item)
		switch low := strings.ToLower(item); {
		case item == "":
		case low == "pynvml" || low == "nvml":
			collector = GPUCollectorNVML
		case low == "dashboard":
		case low == "amdsmi":
			return "", nil, fmt.Errorf("--gpu-telemetry amdsmi: AMD GPUs are not supported; use DCGM exporter URLs or pynvml")
		case strings.HasSuffix(low, ".csv"):
			return "", nil, fmt.Errorf("--gpu-telemetry %s: custom GPU metrics CSV files are not supported yet", item)
		case strings.HasPrefix(low, "http") || strings.Contains(item, ":"):
			user = append(user, dcgmURL(item))
		default:
			return "", nil, fmt.Errorf("invalid --gpu-telemetry item %q: valid options are 'pynvml', 'dashboard' and DCGM exporter URLs", item)
		}
	}
	if collector == GPUCollectorNVML {
		if len(user) > 0 {
			return "", nil, fmt.Errorf("cannot use pynvml with DCGM URLs (%s): use either 'pynvml' for local GPU monitoring or URLs for DCGM endpoints, not both", strings.Join(user, ", "))
		}
		return collector, []string{nvmlSource}, nil
	}
	seen := map[string]bool{}
	for _, u := range append(append([]string(nil), DefaultDCGMURLs...), user...) {
		if !seen[u] {
			seen[u] = true
			urls = append(urls, u)
		}
	}
	return collector, urls, nil
}

// dcgmURL completes a DCGM exporter address: http:// when no scheme,
// /metrics when the path does not end in it.
func dcgmURL(u string) string {
	u = strings.TrimRight(normalizeURL(u), "/")
	if !strings.HasSuffix(u, "/metrics") {
		u += "/metrics"
	}
	return u
}

// validateGPUTelemetry reports a bad --gpu-telemetry combination.
func (c *RunConfig) validateGPUTelemetry() []error {
	if _, _, err := c.GPUTelemetry(); err != nil {
		return []error{err}
	}
	return nil
}
