package app

import (
	"os"
	"path/filepath"
	"testing"
)

// The completion marker is AIPerf 0.13's: compact JSON, mode 0600, and
// partial with the failed exporters named when some export failed.
func TestWriteResultsReady(t *testing.T) {
	for _, tc := range []struct {
		name      string
		cancelled bool
		failed    []string
		want      string
	}{
		{"complete", false, nil, `{"ready":true,"was_cancelled":false,"partial":false}`},
		{"cancelled", true, nil, `{"ready":true,"was_cancelled":true,"partial":false}`},
		{"an exporter failed", false, []string{"data_exporter.csv"},
			`{"ready":true,"was_cancelled":false,"partial":true,"failed_exporters":["data_exporter.csv"]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, ResultsReadyFile)
			if err := os.WriteFile(path, []byte("stale"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := writeResultsReady(path, tc.cancelled, tc.failed); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil || string(got) != tc.want {
				t.Fatalf("marker = %s, %v; want %s", got, err, tc.want)
			}
			if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600", info.Mode().Perm())
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("temporary file left behind: %v", entries)
			}
		})
	}
}

func TestNewBenchmarkID(t *testing.T) {
	a, b := newBenchmarkID(), newBenchmarkID()
	for _, id := range []string{a, b} {
		if len(id) != 12 || id != lowerHex(id) {
			t.Errorf("benchmark id %q is not 12 lowercase hex characters", id)
		}
	}
	if a == b {
		t.Errorf("two runs got the same id %q", a)
	}
}

func lowerHex(s string) string {
	out := []byte(s)
	for i, c := range out {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			out[i] = '!'
		}
	}
	return string(out)
}
