package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// PhaseManifestFile indexes the per-phase artifacts (AIPerf 0.13).
const PhaseManifestFile = "phase_manifest.json"

// PhasesDir holds one directory of artifacts per phase.
const PhasesDir = "phases"

// exportPhases asks every PhaseExporter for each phase's artifacts in
// phases/<name>/, then writes phase_manifest.json indexing them with each
// phase's bounds and counts. A phase whose export fails is still indexed
// (its counts are exact either way), as in AIPerf. It returns the plugins
// that failed. The console footer does not list these files (AIPerf's does
// not either).
func (r *Runner) exportPhases(ctx context.Context, ec *sdk.ExportContext) ([]string, error) {
	var failed []string
	var errs []error
	entries := make([]map[string]any, 0, len(r.phases))
	for _, ph := range r.phases {
		res := ec.Results
		if ph.Name == sdk.PhaseWarmup {
			res = ec.Warmup
		}
		if res == nil {
			res = &sdk.Results{}
		}
		entry := manifestEntry(ph, res)
		dir := filepath.Join(ec.ArtifactDir, PhasesDir, ph.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			errs = append(errs, fmt.Errorf("%s phase: %w", ph.Name, err))
			entries = append(entries, entry)
			continue
		}
		pec := *ec
		phase := ph
		pec.ArtifactDir, pec.Results, pec.Warmup, pec.Phase = dir, res, nil, &phase
		pec.ConsoleText, pec.Inputs = nil, nil
		for _, ex := range r.Outputs.Exporters {
			pe, ok := ex.Plugin.(sdk.PhaseExporter)
			if !ok {
				continue
			}
			written, err := pe.ExportPhase(ctx, &pec)
			if err != nil {
				errs = append(errs, fmt.Errorf("plugin %s: export %s phase: %w", ex.ID(), ph.Name, err))
				failed = append(failed, ex.ID()+":"+ph.Name)
				continue
			}
			for _, f := range written {
				if f.Key == "" {
					continue
				}
				if rel, err := filepath.Rel(ec.ArtifactDir, f.Path); err == nil {
					entry[f.Key] = filepath.ToSlash(rel)
				}
			}
		}
		entries = append(entries, entry)
	}
	if err := writePhaseManifest(filepath.Join(ec.ArtifactDir, PhaseManifestFile), entries); err != nil {
		errs = append(errs, err)
		failed = append(failed, PhaseManifestFile)
	}
	return failed, errors.Join(errs...)
}

// manifestEntry is one phase's entry in phase_manifest.json: AIPerf's
// fields, keys sorted when written.
func manifestEntry(ph sdk.PhaseInfo, res *sdk.Results) map[string]any {
	ok, failed := count(res, "request_count"), count(res, "error_request_count")
	var profilingIndex any // null for a warmup phase
	if ph.ProfilingIndex >= 0 {
		profilingIndex = ph.ProfilingIndex
	}
	// Through JSON and back, so the writer sorts the items' keys too.
	errs := []any{}
	if data, err := json.Marshal(res.ErrorSummary); err == nil && res.ErrorSummary != nil {
		_ = json.Unmarshal(data, &errs)
	}
	return map[string]any{
		"phase_index":              ph.Index,
		"profiling_index":          profilingIndex,
		"phase_name":               ph.Name,
		"phase_kind":               ph.Kind,
		"start_ns":                 ph.StartNs,
		"end_ns":                   ph.EndNs,
		"was_cancelled":            ph.WasCancelled,
		"successful_request_count": ok,
		"error_request_count":      failed,
		"total_request_count":      ok + failed,
		"error_summary":            errs,
	}
}

// count reads a count metric's value; 0 when absent.
func count(res *sdk.Results, tag string) int {
	m, ok := res.Metric(tag)
	if !ok || m.Avg == nil {
		return 0
	}
	return int(*m.Avg)
}

// writePhaseManifest writes {"phases": [...], "schema_version": 1} with
// sorted keys and 2-space indentation, as AIPerf's orjson does.
func writePhaseManifest(path string, entries []map[string]any) error {
	data, err := json.MarshalIndent(map[string]any{"schema_version": 1, "phases": entries}, "", "  ")
	if err != nil {
		return fmt.Errorf("write %s: %w", PhaseManifestFile, err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", PhaseManifestFile, err)
	}
	return nil
}
