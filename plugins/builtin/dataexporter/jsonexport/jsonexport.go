// Package jsonexport is the "json" data exporter: it writes the run summary
// profile_export_aiperf.json in AIPerf's shape, which users' scripts and
// `aiperf plot` read.
package jsonexport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/internal/atomicfile"
)

// Name is the plugin name of this exporter.
const Name = "json"

// SchemaVersion is the profile_export_aiperf.json schema we emit: AIPerf
// 0.13's (JsonExportData.SCHEMA_VERSION), whose layout the file follows:
// run_info, is_complete, telemetry_data and, after a warmup phase,
// warmup_metrics (docs/METRICS.md §6).
const SchemaVersion = "1.4"

// DefaultFileName is AIPerf's summary file name, used when the context names none.
const DefaultFileName = "profile_export_aiperf.json"

// Label is the console footer label of the written file.
const Label = "JSON Export"

// Exporter writes the summary JSON file.
type Exporter struct{}

var (
	_ sdk.DataExporter  = (*Exporter)(nil)
	_ sdk.PhaseExporter = (*Exporter)(nil)
)

// New returns the json exporter.
func New() *Exporter { return &Exporter{} }

// Export renders the summary and writes it atomically, so a crash mid-write
// never leaves a truncated file under the final name.
func (e *Exporter) Export(ctx context.Context, ec *sdk.ExportContext) ([]sdk.ExportedFile, error) {
	if ec == nil {
		return nil, errors.New("jsonexport: nil export context")
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("jsonexport: %w", err)
	}
	data, err := Render(ec)
	if err != nil {
		return nil, err
	}
	name := ec.Files.SummaryJSON
	if name == "" {
		name = DefaultFileName
	}
	path := filepath.Join(ec.ArtifactDir, name)
	if err := atomicfile.WriteFile(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}); err != nil {
		return nil, fmt.Errorf("jsonexport: write %s: %w", path, err)
	}
	return []sdk.ExportedFile{{Label: Label, Path: path, Key: ManifestKey}}, nil
}

// ManifestKey names a phase's summary JSON in phase_manifest.json.
const ManifestKey = "metrics_json"

// ExportPhase writes one phase's summary under the same file name in the
// phase's directory: the main file's layout without telemetry_data and
// warmup_metrics, as AIPerf 0.13's phases/<name>/ files.
func (e *Exporter) ExportPhase(ctx context.Context, ec *sdk.ExportContext) ([]sdk.ExportedFile, error) {
	return e.Export(ctx, ec)
}
