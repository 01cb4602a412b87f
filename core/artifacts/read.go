// Package artifacts reads a run's artifact directory (the files `aiperf
// profile` writes) back for after-the-run tools such as `aiperf plot`.
package artifacts

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// The files a run directory must hold: AIPerf's default export names (its
// plot command reads only these names too).
const (
	SummaryFile = "profile_export_aiperf.json"
	RecordsFile = "profile_export.jsonl"
)

// ReadRun reads dir's summary and streams its per-request records into compact
// rows (numbers only), so memory grows with the request count, not the file.
// The optional time-series files (TimeslicesFile, GPUTelemetryFile,
// ServerMetricsFile) are read when present; a malformed one is an error
// naming the file and line.
func ReadRun(dir string) (*sdk.PlotRun, error) {
	if err := CheckRunDir(dir); err != nil {
		return nil, err
	}
	summary, sliceDuration, gpuCount, err := ReadSummary(filepath.Join(dir, SummaryFile))
	if err != nil {
		return nil, err
	}
	reqs, err := readRecords(filepath.Join(dir, RecordsFile))
	if err != nil {
		return nil, err
	}
	run := &sdk.PlotRun{Dir: dir, Summary: summary, Requests: reqs, SliceDuration: sliceDuration, GPUCount: gpuCount}
	for _, r := range reqs {
		if r.StartNs > 0 && (run.StartNs == 0 || r.StartNs < run.StartNs) {
			run.StartNs = r.StartNs
		}
	}
	if err := readSeries(dir, run); err != nil {
		return nil, err
	}
	return run, nil
}

// CheckRunDir says whether dir is a run's artifact directory: it exists
// and holds SummaryFile and RecordsFile; the error names what is missing.
func CheckRunDir(dir string) error {
	if st, err := os.Stat(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("run directory %s does not exist: expected %s and %s in it", dir, SummaryFile, RecordsFile)
		}
		return fmt.Errorf("run directory %s: %w", dir, err)
	} else if !st.IsDir() {
		return fmt.Errorf("run directory %s is not a directory", dir)
	}
	var missing []string
	for _, f := range []string{SummaryFile, RecordsFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, f)
		} else if err != nil {
			return fmt.Errorf("run directory %s: %w", dir, err)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("run directory %s lacks %s: expected %s and %s (written by `aiperf profile` under default export names)",
			dir, strings.Join(missing, " and "), SummaryFile, RecordsFile)
	}
	return nil
}

// ReadSummary returns the summary's metrics, input_config's
// slice_duration (under output or artifacts, where AIPerf's loader looks)
// and the GPU count of its telemetry_data.
func ReadSummary(path string) (map[string]sdk.PlotStat, float64, int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("read %s: %w", path, err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, 0, 0, fmt.Errorf("parse %s: %w", path, err)
	}
	var ic struct {
		Output, Artifacts struct {
			SliceDuration *float64 `json:"slice_duration"`
		}
	}
	var sliceDuration float64
	// A config of another shape only loses the slice labels, not the run.
	if raw, ok := top["input_config"]; ok && json.Unmarshal(raw, &ic) == nil {
		for _, d := range []*float64{ic.Output.SliceDuration, ic.Artifacts.SliceDuration} {
			if d != nil && *d > 0 {
				sliceDuration = *d
				break
			}
		}
	}
	out := map[string]sdk.PlotStat{}
	for name, raw := range top {
		// Metrics are objects with a "unit"; other top-level fields are not.
		var m map[string]any
		if json.Unmarshal(raw, &m) != nil {
			continue
		}
		unit, ok := m["unit"].(string)
		if !ok {
			continue
		}
		st := sdk.PlotStat{Unit: unit, Stats: map[string]float64{}}
		for k, v := range m {
			if f, ok := v.(float64); ok {
				st.Stats[k] = f
			}
		}
		out[name] = st
	}
	return out, sliceDuration, gpuCount(top["telemetry_data"]), nil
}

// gpuCount counts the GPUs across all endpoints of telemetry_data as
// AIPerf's calculate_gpu_count_from_telemetry: the block needs both summary
// and endpoints, and an endpoint or gpus entry that is not an object counts
// nothing. A block of another shape (AIPerf warns) only loses the per-GPU
// plots, not the run, so it counts 0.
func gpuCount(raw json.RawMessage) int {
	var td map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &td) != nil || td == nil {
		return 0
	}
	if _, ok := td["summary"]; !ok {
		return 0
	}
	var endpoints map[string]json.RawMessage
	if json.Unmarshal(td["endpoints"], &endpoints) != nil {
		return 0
	}
	n := 0
	for _, ep := range endpoints {
		var e map[string]json.RawMessage
		if json.Unmarshal(ep, &e) != nil {
			continue
		}
		var gpus map[string]json.RawMessage
		if json.Unmarshal(e["gpus"], &gpus) == nil {
			n += len(gpus)
		}
	}
	return n
}

type record struct {
	Metadata struct {
		RequestStartNs int64 `json:"request_start_ns"`
		RequestEndNs   int64 `json:"request_end_ns"`
	} `json:"metadata"`
	Metrics map[string]struct {
		Value json.RawMessage `json:"value"`
	} `json:"metrics"`
	Error json.RawMessage `json:"error"`
}

func readRecords(path string) ([]sdk.PlotRequest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	var out []sdk.PlotRequest
	err = ScanJSONL(f, path, func(line []byte) error {
		var r record
		if err := json.Unmarshal(line, &r); err != nil {
			return err
		}
		req := sdk.PlotRequest{
			StartNs: r.Metadata.RequestStartNs,
			EndNs:   r.Metadata.RequestEndNs,
			Error:   len(r.Error) > 0 && string(r.Error) != "null",
			Metrics: make(map[string]float64, len(r.Metrics)),
		}
		for name, m := range r.Metrics {
			// Scalars only: list-valued metrics (inter_chunk_latency) are skipped.
			var v float64
			if json.Unmarshal(m.Value, &v) == nil {
				req.Metrics[name] = v
			}
		}
		out = append(out, req)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ReadRunConfig takes the model, endpoint and profiling load from the
// input_config of dir's profile_export_aiperf.json.
func ReadRunConfig(dir string) (sdk.PlotRunConfig, error) {
	path := filepath.Join(dir, SummaryFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return sdk.PlotRunConfig{}, fmt.Errorf("read %s: %w", path, err)
	}
	var doc struct {
		InputConfig struct {
			Models struct {
				Items []struct {
					Name string `json:"name"`
				} `json:"items"`
			} `json:"models"`
			Endpoint struct {
				Type      string `json:"type"`
				Streaming bool   `json:"streaming"`
			} `json:"endpoint"`
			Phases []struct {
				Kind        string   `json:"kind"`
				Concurrency *float64 `json:"concurrency"`
				Rate        *float64 `json:"rate"`
			} `json:"phases"`
		} `json:"input_config"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return sdk.PlotRunConfig{}, fmt.Errorf("parse input_config of %s: %w", path, err)
	}
	ic := doc.InputConfig
	var c sdk.PlotRunConfig
	var models []string
	for _, m := range ic.Models.Items {
		models = append(models, m.Name)
	}
	c.Model, c.EndpointType, c.Streaming = strings.Join(models, ","), ic.Endpoint.Type, ic.Endpoint.Streaming
	for _, ph := range ic.Phases {
		if ph.Kind != "profiling" {
			continue
		}
		if ph.Concurrency != nil {
			c.Concurrency = *ph.Concurrency
		}
		if ph.Rate != nil {
			c.RequestRate = *ph.Rate
		}
	}
	return c, nil
}
