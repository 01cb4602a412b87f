package gputelemetry

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/jsonenc"
	"github.com/aiperf-go/aiperf/internal/pyfmt"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/internal/atomicfile"
	"github.com/aiperf-go/aiperf/plugins/builtin/gputelemetry/gpufields"
)

// Name is the plugin name of the JSONL exporter.
const Name = "gpu_telemetry_jsonl"

// DefaultFileName is AIPerf's per-sample GPU telemetry file.
const DefaultFileName = "gpu_telemetry_export.jsonl"

// Label is the console footer label of the written file.
const Label = "GPU Telemetry JSONL Export"

// Exporter writes gpu_telemetry_export.jsonl.
type Exporter struct{}

var _ sdk.DataExporter = (*Exporter)(nil)

// New returns the exporter.
func New() *Exporter { return &Exporter{} }

// FileName is AIPerf's name for the file: gpu_telemetry_export.jsonl, or
// <prefix>_gpu_telemetry.jsonl under --profile-export-prefix (recognised
// from a records file not named profile_export.jsonl).
func FileName(files sdk.ArtifactFiles) string {
	rec := files.RecordsJSONL
	if rec == "" || rec == "profile_export.jsonl" || !strings.HasSuffix(rec, ".jsonl") {
		return DefaultFileName
	}
	return strings.TrimSuffix(rec, ".jsonl") + "_gpu_telemetry.jsonl"
}

// Export writes one line per GPU per sample, every sample of the run
// (warmup included, as AIPerf streams them), in AIPerf's TelemetryRecord
// layout with absent values left out. Nothing is written when no GPU
// source gave a sample.
func (e *Exporter) Export(ctx context.Context, ec *sdk.ExportContext) ([]sdk.ExportedFile, error) {
	if ec == nil {
		return nil, errors.New("gpu_telemetry_jsonl: nil export context")
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("gpu_telemetry_jsonl: %w", err)
	}
	if !hasSamples(ec.GPUTelemetry) {
		return nil, nil // AIPerf writes no file when no source answered
	}
	path := filepath.Join(ec.ArtifactDir, FileName(ec.Files))
	if err := atomicfile.WriteFile(path, func(w io.Writer) error {
		return WriteJSONL(w, ec.GPUTelemetry)
	}); err != nil {
		return nil, fmt.Errorf("gpu_telemetry_jsonl: write %s: %w", path, err)
	}
	return []sdk.ExportedFile{{Label: Label, Path: path}}, nil
}

// WriteJSONL writes the lines of every series' samples.
func WriteJSONL(w io.Writer, series []sdk.GPUTelemetrySeries) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var b []byte
	for _, s := range series {
		for _, smp := range s.Samples {
			for i := range smp.GPUs {
				b = AppendLine(b[:0], s.Source, smp.TimestampNs, &smp.GPUs[i])
				if _, err := bw.Write(b); err != nil {
					return err
				}
			}
		}
	}
	return bw.Flush()
}

// AppendLine appends one TelemetryRecord line (orjson layout: no spaces,
// None fields omitted, floats as Python writes them).
func AppendLine(b []byte, source string, ts int64, r *sdk.GPUReading) []byte {
	b = append(b, `{"gpu_index":`...)
	b = strconv.AppendInt(b, int64(r.Index), 10)
	b = append(b, `,"gpu_uuid":`...)
	b = jsonenc.AppendString(b, r.UUID)
	str := func(k, v string) {
		if v != "" {
			b = append(b, `,"`+k+`":`...)
			b = jsonenc.AppendString(b, v)
		}
	}
	str("gpu_model_name", r.Name)
	str("pci_bus_id", r.PCIBusID)
	str("device", r.Device)
	str("hostname", r.Hostname)
	str("platform", gpufields.Platform(r.Metrics))
	b = append(b, `,"timestamp_ns":`...)
	b = strconv.AppendInt(b, ts, 10)
	b = append(b, `,"telemetry_source_url":`...)
	b = jsonenc.AppendString(b, source)
	b = append(b, `,"telemetry_data":{`...)
	first := true
	for _, f := range gpufields.Fields {
		v, ok := r.Metrics[f.Name]
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, f.Name...)
		b = append(b, `":`...)
		b = pyfmt.AppendFloat(b, v)
	}
	return append(b, "}}\n"...)
}

func hasSamples(series []sdk.GPUTelemetrySeries) bool {
	for _, s := range series {
		if len(s.Samples) > 0 {
			return true
		}
	}
	return false
}
