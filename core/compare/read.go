package compare

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/aiperf-go/aiperf/core/artifacts"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Run is one run's artifact directory as compare reads it.
type Run struct {
	Dir          string
	Model        string
	EndpointType string
	Streaming    bool
	// Summary is profile_export_aiperf.json's metrics: unit and statistics.
	Summary map[string]Stat
	// Values are the per-request values of the successful profiling
	// records of profile_export.jsonl, by metric tag, in file order; Units
	// their units as the records state them.
	Values map[string][]float64
	Units  map[string]string
	// Requests counts the records Values come from.
	Requests int
}

// Stat is one metric of the summary file: its unit and statistics.
type Stat = sdk.PlotStat

// ReadRun reads dir's profile_export_aiperf.json (metrics and input_config)
// and profile_export.jsonl. Records of a warmup phase and failed records
// are left out, as the summary's per-request statistics leave them out;
// list-valued metrics (inter_chunk_latency) are skipped.
func ReadRun(dir string) (*Run, error) {
	if err := artifacts.CheckRunDir(dir); err != nil {
		return nil, err
	}
	r := &Run{Dir: dir, Values: map[string][]float64{}, Units: map[string]string{}}
	summary, _, _, err := artifacts.ReadSummary(filepath.Join(dir, artifacts.SummaryFile))
	if err != nil {
		return nil, err
	}
	r.Summary = summary
	cfg, err := artifacts.ReadRunConfig(dir)
	if err != nil {
		return nil, err
	}
	if cfg.EndpointType == "" {
		return nil, fmt.Errorf("%s has no input_config endpoint type: it is needed to compare runs", filepath.Join(dir, artifacts.SummaryFile))
	}
	r.Model, r.EndpointType, r.Streaming = cfg.Model, cfg.EndpointType, cfg.Streaming
	if err := r.readRecords(filepath.Join(dir, artifacts.RecordsFile)); err != nil {
		return nil, err
	}
	return r, nil
}

type record struct {
	Metadata struct {
		BenchmarkPhase string `json:"benchmark_phase"`
		PhaseKind      string `json:"phase_kind"`
	} `json:"metadata"`
	Metrics map[string]struct {
		Value json.RawMessage `json:"value"`
		Unit  string          `json:"unit"`
	} `json:"metrics"`
	Error json.RawMessage `json:"error"`
}

func (r *Run) readRecords(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	return artifacts.ScanJSONL(f, path, func(line []byte) error {
		var rec record
		if err := json.Unmarshal(line, &rec); err != nil {
			return err
		}
		if rec.Metadata.BenchmarkPhase == "warmup" || rec.Metadata.PhaseKind == "warmup" {
			return nil
		}
		if len(rec.Error) > 0 && string(rec.Error) != "null" {
			return nil
		}
		r.Requests++
		for name, m := range rec.Metrics {
			var v float64
			if json.Unmarshal(m.Value, &v) != nil {
				continue // a list (inter_chunk_latency) or null
			}
			if u, seen := r.Units[name]; seen && u != m.Unit {
				return fmt.Errorf("metric %s in %q, earlier records in %q", name, m.Unit, u)
			}
			r.Units[name] = m.Unit
			r.Values[name] = append(r.Values[name], v)
		}
		return nil
	})
}
