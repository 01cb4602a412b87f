package compare

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/aiperf-go/aiperf/core/artifacts"
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

// Stat is one metric of the summary file.
type Stat struct {
	Unit  string
	Stats map[string]float64
}

// maxLine bounds one JSONL record, as core/artifacts does.
const maxLine = 64 << 20

// ReadRun reads dir's profile_export_aiperf.json (metrics and input_config)
// and profile_export.jsonl. Records of a warmup phase and failed records
// are left out, as the summary's per-request statistics leave them out;
// list-valued metrics (inter_chunk_latency) are skipped.
func ReadRun(dir string) (*Run, error) {
	if st, err := os.Stat(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("run directory %s does not exist: expected %s and %s in it", dir, artifacts.SummaryFile, artifacts.RecordsFile)
		}
		return nil, fmt.Errorf("run directory %s: %w", dir, err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("run directory %s is not a directory", dir)
	}
	var missing []string
	for _, f := range []string{artifacts.SummaryFile, artifacts.RecordsFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, f)
		} else if err != nil {
			return nil, fmt.Errorf("run directory %s: %w", dir, err)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("run directory %s lacks %s: expected %s and %s (written by `aiperf profile` under default export names)",
			dir, strings.Join(missing, " and "), artifacts.SummaryFile, artifacts.RecordsFile)
	}
	r := &Run{Dir: dir, Values: map[string][]float64{}, Units: map[string]string{}}
	if err := r.readSummary(filepath.Join(dir, artifacts.SummaryFile)); err != nil {
		return nil, err
	}
	if err := r.readRecords(filepath.Join(dir, artifacts.RecordsFile)); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *Run) readSummary(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return fmt.Errorf("parse %s: %w", path, err)
	}
	var ic struct {
		Models struct {
			Items []struct {
				Name string `json:"name"`
			} `json:"items"`
		} `json:"models"`
		Endpoint struct {
			Type      string `json:"type"`
			Streaming bool   `json:"streaming"`
		} `json:"endpoint"`
	}
	raw, ok := top["input_config"]
	if !ok {
		return fmt.Errorf("%s has no input_config: its endpoint type and streaming setting are needed to compare runs", path)
	}
	if err := json.Unmarshal(raw, &ic); err != nil {
		return fmt.Errorf("parse input_config of %s: %w", path, err)
	}
	var models []string
	for _, m := range ic.Models.Items {
		models = append(models, m.Name)
	}
	r.Model, r.EndpointType, r.Streaming = strings.Join(models, ","), ic.Endpoint.Type, ic.Endpoint.Streaming
	r.Summary = map[string]Stat{}
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
		st := Stat{Unit: unit, Stats: map[string]float64{}}
		for k, v := range m {
			if f, ok := v.(float64); ok {
				st.Stats[k] = f
			}
		}
		r.Summary[name] = st
	}
	return nil
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
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var rec record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if rec.Metadata.BenchmarkPhase == "warmup" || rec.Metadata.PhaseKind == "warmup" {
			continue
		}
		if len(rec.Error) > 0 && string(rec.Error) != "null" {
			continue
		}
		r.Requests++
		for name, m := range rec.Metrics {
			var v float64
			if json.Unmarshal(m.Value, &v) != nil {
				continue // a list (inter_chunk_latency) or null
			}
			if u, seen := r.Units[name]; seen && u != m.Unit {
				return fmt.Errorf("%s:%d: metric %s in %q, earlier records in %q", path, line, name, m.Unit, u)
			}
			r.Units[name] = m.Unit
			r.Values[name] = append(r.Values[name], v)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}
