package config

import (
	"reflect"
	"testing"
)

// input_config.gpu_telemetry is what AIPerf 0.13's build_gpu_telemetry
// writes for each way of asking for GPU telemetry; the DCGM case is the
// fixture's own block.
func TestInputConfigGPUTelemetry(t *testing.T) {
	pinTerminal(t, false)
	tests := []struct {
		name  string
		flags []string
		want  map[string]any
	}{
		{"default", nil, map[string]any{"enabled": true}},
		{"disabled", []string{"--no-gpu-telemetry"}, map[string]any{"enabled": false}},
		{"dcgm url without scheme", []string{"--gpu-telemetry", "127.0.0.1:18123/dcgm"},
			fixtureInputConfig(t, "gpu_telemetry_dcgm/profile_export_aiperf.json")["gpu_telemetry"].(map[string]any)},
		{"dcgm urls as given, dashboard", []string{"--gpu-telemetry", "http://node1:9401/metrics", "--gpu-telemetry", "node2:9400", "--gpu-telemetry", "dashboard"},
			map[string]any{"enabled": true, "urls": []any{"http://node1:9401/metrics", "http://node2:9400"},
				"collector": "dcgm", "mode": "realtime_dashboard"}},
		{"pynvml", []string{"--gpu-telemetry", "pynvml"},
			map[string]any{"enabled": true, "urls": []any{}, "collector": "pynvml", "mode": "summary"}},
		{"nvml alias", []string{"--gpu-telemetry", "nvml"},
			map[string]any{"enabled": true, "urls": []any{}, "collector": "pynvml", "mode": "summary"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, _ := load(t, nil, append([]string{"-m", "m"}, tc.flags...)...)
			got := cfg.InputConfig()["gpu_telemetry"]
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("gpu_telemetry = %#v, want %#v", got, tc.want)
			}
		})
	}
}
