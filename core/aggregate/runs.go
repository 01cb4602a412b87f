package aggregate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
)

// Artifact layout of a multi-run benchmark, AIPerf 0.13's
// FixedTrialsStrategy: <artifact dir>/profile_runs/run_0001/ ... hold each
// run's usual files, <artifact dir>/aggregate/ the aggregate.
const (
	RunsDir  = "profile_runs"
	Dir      = "aggregate"
	JSONFile = "profile_export_aiperf_aggregate.json"
	CSVFile  = "profile_export_aiperf_aggregate.csv"
)

// MaxRuns is AIPerf's upper bound on --num-profile-runs.
const MaxRuns = 10

// StatKeys are the statistics aggregated per metric, in AIPerf's STAT_KEYS
// order (count is not one of them).
var StatKeys = []string{"avg", "min", "max", "sum", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "std"}

// RunLabel is the label and folder name of the run at zero-based index i:
// run_0001, run_0002, ...
func RunLabel(i int) string { return fmt.Sprintf("run_%04d", i+1) }

// RunPath is the artifact folder of the run at zero-based index i.
func RunPath(base string, i int) string { return filepath.Join(base, RunsDir, RunLabel(i)) }

// Path is the aggregate folder of a multi-run benchmark rooted at base.
func Path(base string) string { return filepath.Join(base, Dir) }

// SummaryMetric is one metric of a run's summary export: its unit and the
// statistics it has (finite or not, as written).
type SummaryMetric struct {
	Name  string
	Unit  string
	Stats map[string]float64
}

// Summary is what the aggregate needs of one run's profile_export_aiperf.json:
// its metrics in file order and whether the run was cancelled.
type Summary struct {
	Metrics      []SummaryMetric
	WasCancelled bool
}

// Metric returns the metric named name, or nil.
func (s *Summary) Metric(name string) *SummaryMetric {
	for i := range s.Metrics {
		if s.Metrics[i].Name == name {
			return &s.Metrics[i]
		}
	}
	return nil
}

// ReadSummary reads a run's summary export file. As AIPerf's
// LocalSubprocessExecutor, every top-level object with a "unit" member is
// a metric; the other members are ignored.
func ReadSummary(path string) (*Summary, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := ParseSummary(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// ParseSummary parses the bytes of a summary export (see ReadSummary),
// keeping the file's metric order.
func ParseSummary(b []byte) (*Summary, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	s := &Summary{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("member %q: %w", key, err)
		}
		if key == "was_cancelled" {
			_ = json.Unmarshal(raw, &s.WasCancelled)
			continue
		}
		m, ok, err := parseMetric(key, raw)
		if err != nil {
			return nil, fmt.Errorf("metric %q: %w", key, err)
		}
		if ok {
			s.Metrics = append(s.Metrics, m)
		}
	}
	return s, nil
}

// parseMetric decodes a member that is an object with a "unit"; ok is false
// for any other member.
func parseMetric(name string, raw json.RawMessage) (SummaryMetric, bool, error) {
	if len(raw) == 0 || raw[0] != '{' {
		return SummaryMetric{}, false, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return SummaryMetric{}, false, err
	}
	unitRaw, ok := obj["unit"]
	if !ok {
		return SummaryMetric{}, false, nil
	}
	m := SummaryMetric{Name: name, Stats: map[string]float64{}}
	if err := json.Unmarshal(unitRaw, &m.Unit); err != nil {
		return SummaryMetric{}, false, fmt.Errorf("unit: %w", err)
	}
	for _, k := range StatKeys {
		v, ok := obj[k]
		if !ok || string(v) == "null" {
			continue
		}
		var f float64
		if err := json.Unmarshal(v, &f); err != nil {
			return SummaryMetric{}, false, fmt.Errorf("%s: %w", k, err)
		}
		m.Stats[k] = f
	}
	return m, true, nil
}

// Run is one profile run of a multi-run benchmark (AIPerf's RunResult).
type Run struct {
	// Label is run_0001, run_0002, ...
	Label string
	// Summary is the run's summary export; nil when the run failed.
	Summary *Summary
	// Error says why the run failed, in AIPerf's words (failed_runs of the
	// aggregate); "" for a successful run.
	Error string
}

// Success reports whether the run counts towards the aggregate.
func (r Run) Success() bool { return r.Error == "" && r.Summary != nil }

// Classify decides whether a finished run succeeded, as AIPerf's
// LocalSubprocessExecutor: it needs metrics and at least one request
// completed.
func Classify(label string, s *Summary) Run {
	if s == nil || len(s.Metrics) == 0 {
		return Run{Label: label, Error: "No metrics found in artifacts - run may have failed to complete"}
	}
	if rc := s.Metric("request_count"); rc == nil || rc.Stats["avg"] == 0 {
		if ec := s.Metric("error_request_count"); ec != nil && ec.Stats["avg"] > 0 {
			return Run{Label: label, Error: fmt.Sprintf("All %d requests failed", int(ec.Stats["avg"]))}
		}
		return Run{Label: label, Error: "No requests completed"}
	}
	return Run{Label: label, Summary: s}
}

// FailedRun is a run left out of the aggregate and why.
type FailedRun struct {
	Label string
	Error string
}

// NamedMetric is one aggregated statistic, named <metric>_<stat>
// (time_to_first_token_avg, request_latency_p99, ...).
type NamedMetric struct {
	Name string
	Metric
}

// Result is a confidence aggregate (AIPerf's AggregateResult of type
// "confidence" with its metadata).
type Result struct {
	// NumRuns counts the runs started; NumSuccessfulRuns those aggregated.
	NumRuns           int
	NumSuccessfulRuns int
	FailedRuns        []FailedRun
	ConfidenceLevel   float64
	// RunLabels are the labels of the successful runs.
	RunLabels []string
	// SingleRun is set when only one run succeeded: point estimates, no
	// interval (AIPerf's degraded path).
	SingleRun       bool
	CooldownSeconds float64
	// WasCancelled marks an aggregate of a benchmark stopped early (Ctrl-C):
	// it holds only the runs that finished.
	WasCancelled bool
	// Metrics in a stable order: the first successful run's metrics in
	// file order, each with its statistics in StatKeys order, then any
	// metric only later runs have.
	Metrics []NamedMetric
}

// AggregationType is the only aggregation this package computes.
const AggregationType = "confidence"

// Metric returns the aggregated statistic named name (e.g.
// "time_to_first_token_avg"), or nil.
func (r *Result) Metric(name string) *Metric {
	for i := range r.Metrics {
		if r.Metrics[i].Name == name {
			return &r.Metrics[i].Metric
		}
	}
	return nil
}

// Aggregate computes the confidence aggregate of runs at level, as AIPerf's
// ConfidenceAggregation.aggregate. It fails when no run succeeded.
func Aggregate(runs []Run, level float64) (*Result, error) {
	if err := CheckLevel(level); err != nil {
		return nil, err
	}
	res := &Result{NumRuns: len(runs), ConfidenceLevel: level, FailedRuns: []FailedRun{}, RunLabels: []string{}}
	var ok []Run
	for _, r := range runs {
		if r.Success() {
			ok = append(ok, r)
			res.RunLabels = append(res.RunLabels, r.Label)
			continue
		}
		msg := r.Error
		if msg == "" {
			msg = "no summary export"
		}
		res.FailedRuns = append(res.FailedRuns, FailedRun{Label: r.Label, Error: msg})
	}
	res.NumSuccessfulRuns = len(ok)
	switch len(ok) {
	case 0:
		return nil, fmt.Errorf("all runs failed - cannot compute confidence statistics (total runs: %d, failed runs: %d)", len(runs), len(res.FailedRuns))
	case 1:
		res.SingleRun = true
		for _, m := range ok[0].Summary.Metrics {
			for _, k := range StatKeys {
				if v, has := m.Stats[k]; has {
					res.Metrics = append(res.Metrics, NamedMetric{Name: m.Name + "_" + k, Metric: single(v, m.Unit)})
				}
			}
		}
		return res, nil
	}
	type pair struct{ metric, stat string }
	seen := map[pair]bool{}
	var pairs []pair
	for _, r := range ok {
		for _, m := range r.Summary.Metrics {
			for _, k := range StatKeys {
				p := pair{m.Name, k}
				if _, has := m.Stats[k]; has && !seen[p] {
					seen[p] = true
					pairs = append(pairs, p)
				}
			}
		}
	}
	for _, p := range pairs {
		var values []float64
		unit := ""
		for _, r := range ok {
			m := r.Summary.Metric(p.metric)
			if m == nil {
				continue
			}
			v, has := m.Stats[p.stat]
			if !has || math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			values = append(values, v)
			if unit == "" {
				unit = m.Unit
			}
		}
		if len(values) == 0 {
			continue
		}
		cm, err := Confidence(values, level, unit)
		if err != nil {
			return nil, fmt.Errorf("%s_%s: %w", p.metric, p.stat, err)
		}
		res.Metrics = append(res.Metrics, NamedMetric{Name: p.metric + "_" + p.stat, Metric: cm})
	}
	return res, nil
}
