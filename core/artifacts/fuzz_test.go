package artifacts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadRun writes a run directory from the fuzzed summary, records,
// timeslices and GPU telemetry files and reads it as `aiperf plot` does:
// an error names the directory's file at fault; a run that reads has
// finite slice duration and no negative GPU count.
func FuzzReadRun(f *testing.F) {
	const csvHeader = "Timeslice,Start_NS,End_NS,Metric,Unit,Stat,Value\r\n"
	f.Add([]byte(`{"time_to_first_token": {"unit": "ms", "avg": 21, "p50": 21}, "input_config": {"output": {"slice_duration": 0.5}}}`),
		[]byte(`{"metadata":{"benchmark_phase":"profiling","request_start_ns":5,"request_end_ns":9},"metrics":{"time_to_first_token":{"value":20,"unit":"ms"}},"error":null}`+"\n"),
		[]byte(csvHeader+"0,1,2,Request Latency,ms,avg,1.5\r\n"),
		[]byte(`{"gpu_index":0,"timestamp_ns":1,"telemetry_data":{"nvidia_power_usage":70.5}}`+"\n"))
	f.Add([]byte(`{}`), []byte(""), []byte(csvHeader+"0,1,2,\"Request Latency,ms,avg,1.5\r\n"), []byte(`{"gpu_index":0,`))
	f.Add([]byte(`{"telemetry_data": {"endpoints": {"e": {"gpus": {"g": {}}}}}}`), []byte("{\"metrics\": 5}\n"), []byte("x"), []byte(`{"timestamp_ns":1}`))
	f.Fuzz(func(t *testing.T, summary, records, timeslices, gpu []byte) {
		dir := t.TempDir()
		for name, content := range map[string][]byte{SummaryFile: summary, RecordsFile: records, TimeslicesFile: timeslices, GPUTelemetryFile: gpu} {
			if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		run, err := ReadRun(dir)
		if err != nil {
			for _, name := range []string{SummaryFile, RecordsFile, TimeslicesFile, GPUTelemetryFile} {
				if strings.Contains(err.Error(), name) {
					return
				}
			}
			t.Fatalf("error names no file: %v", err)
		}
		if run.GPUCount < 0 || run.SliceDuration < 0 {
			t.Fatalf("GPU count %d, slice duration %v", run.GPUCount, run.SliceDuration)
		}
		ReadRunConfig(dir)
	})
}
