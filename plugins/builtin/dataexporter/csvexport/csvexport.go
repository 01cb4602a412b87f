// Package csvexport is the "csv" data exporter: it writes the run summary
// profile_export_aiperf.csv in AIPerf's two-section layout.
package csvexport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/gputelemetry"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/internal/atomicfile"
)

// Name is the plugin name of this exporter.
const Name = "csv"

// DefaultFileName is AIPerf's summary CSV name, used when the context names none.
const DefaultFileName = "profile_export_aiperf.csv"

// Label is the console footer label of the written file.
const Label = "CSV Export"

// Exporter writes the summary CSV file.
type Exporter struct{}

var (
	_ sdk.DataExporter  = (*Exporter)(nil)
	_ sdk.PhaseExporter = (*Exporter)(nil)
)

// ManifestKey names a phase's summary CSV in phase_manifest.json.
const ManifestKey = "metrics_csv"

// New returns the csv exporter.
func New() *Exporter { return &Exporter{} }

// Export writes the CSV unconditionally (AIPerf does too): a run without
// results yields a file holding only the GPU telemetry header.
func (e *Exporter) Export(ctx context.Context, ec *sdk.ExportContext) ([]sdk.ExportedFile, error) {
	if ec == nil {
		return nil, errors.New("csvexport: nil export context")
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("csvexport: %w", err)
	}
	var metrics []sdk.MetricResult
	if ec.Results != nil {
		metrics = ec.Results.Metrics
	}
	if ec.Phase == nil {
		// AIPerf's GPU energy-efficiency results join the scalar metrics.
		if em := gputelemetry.EnergyMetrics(ec); len(em) > 0 {
			metrics = append(slices.Clone(metrics), em...)
		}
	}
	var buf bytes.Buffer
	// A phase's own file has no GPU telemetry section (AIPerf exports
	// phases without telemetry results).
	if err := write(&buf, metrics, ec.Phase == nil, gputelemetry.Summarize(ec)); err != nil {
		return nil, err
	}
	name := ec.Files.SummaryCSV
	if name == "" {
		name = DefaultFileName
	}
	path := filepath.Join(ec.ArtifactDir, name)
	if err := atomicfile.WriteFile(path, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	}); err != nil {
		return nil, fmt.Errorf("csvexport: write %s: %w", path, err)
	}
	return []sdk.ExportedFile{{Label: Label, Path: path, Key: ManifestKey}}, nil
}

// ExportPhase writes one phase's summary CSV under the same file name in
// the phase's directory.
func (e *Exporter) ExportPhase(ctx context.Context, ec *sdk.ExportContext) ([]sdk.ExportedFile, error) {
	return e.Export(ctx, ec)
}
