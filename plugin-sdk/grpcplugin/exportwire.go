package grpcplugin

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// The export context crosses the process boundary as JSON (ExportRequest).
// sdk.MetricResult hides Tag, Header, Flags, DisplayOrder and Integer from
// JSON (its tags serve the summary file format), so the wire form carries
// them explicitly; plugin authors get back the same sdk.ExportContext.
// Field names are snake_case so non-Go plugins can read the document.

// WireExportContext is the JSON document of ExportRequest.export_context_json.
type WireExportContext struct {
	ArtifactDir   string               `json:"artifact_dir"`
	Files         WireArtifactFiles    `json:"files"`
	ExportLevel   string               `json:"export_level"`
	Results       *WireResults         `json:"results,omitempty"`
	Endpoint      sdk.EndpointMetadata `json:"endpoint"`
	Streaming     bool                 `json:"streaming"`
	AIPerfVersion string               `json:"aiperf_version"`
	BenchmarkID   string               `json:"benchmark_id"`
	CLICommand    string               `json:"cli_command"`
	InputConfig   map[string]any       `json:"input_config,omitempty"`
	Inputs        []WireInputEntry     `json:"inputs,omitempty"`
}

// WireArtifactFiles mirrors sdk.ArtifactFiles.
type WireArtifactFiles struct {
	SummaryJSON  string `json:"summary_json"`
	SummaryCSV   string `json:"summary_csv"`
	RecordsJSONL string `json:"records_jsonl"`
	Inputs       string `json:"inputs"`
	Log          string `json:"log"`
}

// WireInputEntry mirrors sdk.InputEntry; payloads are base64 (JSON []byte)
// so a body that is not valid JSON still crosses intact.
type WireInputEntry struct {
	SessionID string   `json:"session_id"`
	Payloads  [][]byte `json:"payloads"`
}

// WireResults mirrors sdk.Results.
type WireResults struct {
	Metrics            []WireMetricResult `json:"metrics"`
	ErrorSummary       []sdk.ErrorCount   `json:"error_summary"`
	StartTime          time.Time          `json:"start_time"`
	EndTime            time.Time          `json:"end_time"`
	WasCancelled       bool               `json:"was_cancelled"`
	BenchmarkDurationS float64            `json:"benchmark_duration_s"`
	CompletedRecords   int                `json:"completed_records"`
}

// WireMetricResult is sdk.MetricResult with its hidden fields made visible;
// the embedded result contributes unit and the statistics.
type WireMetricResult struct {
	Tag          string          `json:"tag"`
	Header       string          `json:"header"`
	Flags        sdk.MetricFlags `json:"flags"`
	DisplayOrder int             `json:"display_order"`
	Integer      bool            `json:"integer"`
	sdk.MetricResult
}

// MarshalExportContext encodes ec for an ExportRequest. Non-finite
// statistics (NaN, ±Inf) cannot be JSON and are sent as absent.
func MarshalExportContext(ec *sdk.ExportContext) ([]byte, error) {
	if ec == nil {
		return nil, fmt.Errorf("export context is nil")
	}
	w := WireExportContext{ArtifactDir: ec.ArtifactDir, Files: WireArtifactFiles(ec.Files), ExportLevel: ec.ExportLevel,
		Endpoint: ec.Endpoint, Streaming: ec.Streaming, AIPerfVersion: ec.AIPerfVersion, BenchmarkID: ec.BenchmarkID,
		CLICommand: ec.CLICommand, InputConfig: ec.InputConfig}
	for _, in := range ec.Inputs {
		w.Inputs = append(w.Inputs, WireInputEntry(in))
	}
	if r := ec.Results; r != nil {
		w.Results = &WireResults{ErrorSummary: r.ErrorSummary, StartTime: r.StartTime, EndTime: r.EndTime,
			WasCancelled: r.WasCancelled, BenchmarkDurationS: finiteOrZero(r.BenchmarkDurationS), CompletedRecords: r.CompletedRecords,
			Metrics: make([]WireMetricResult, len(r.Metrics))}
		for i, m := range r.Metrics {
			dropNonFinite(&m)
			w.Results.Metrics[i] = WireMetricResult{Tag: m.Tag, Header: m.Header, Flags: m.Flags,
				DisplayOrder: m.DisplayOrder, Integer: m.Integer, MetricResult: m}
		}
	}
	b, err := json.Marshal(&w)
	if err != nil {
		return nil, fmt.Errorf("encoding export context: %w", err)
	}
	return b, nil
}

// UnmarshalExportContext decodes an ExportRequest document.
func UnmarshalExportContext(b []byte) (*sdk.ExportContext, error) {
	var w WireExportContext
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("decoding export context: %w", err)
	}
	ec := &sdk.ExportContext{ArtifactDir: w.ArtifactDir, Files: sdk.ArtifactFiles(w.Files), ExportLevel: w.ExportLevel,
		Endpoint: w.Endpoint, Streaming: w.Streaming, AIPerfVersion: w.AIPerfVersion, BenchmarkID: w.BenchmarkID,
		CLICommand: w.CLICommand, InputConfig: w.InputConfig}
	for _, in := range w.Inputs {
		ec.Inputs = append(ec.Inputs, sdk.InputEntry(in))
	}
	if r := w.Results; r != nil {
		ec.Results = &sdk.Results{ErrorSummary: r.ErrorSummary, StartTime: r.StartTime, EndTime: r.EndTime,
			WasCancelled: r.WasCancelled, BenchmarkDurationS: r.BenchmarkDurationS, CompletedRecords: r.CompletedRecords,
			Metrics: make([]sdk.MetricResult, len(r.Metrics))}
		for i, m := range r.Metrics {
			mr := m.MetricResult
			mr.Tag, mr.Header, mr.Flags, mr.DisplayOrder, mr.Integer = m.Tag, m.Header, m.Flags, m.DisplayOrder, m.Integer
			ec.Results.Metrics[i] = mr
		}
	}
	return ec, nil
}

func finiteOrZero(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

func dropNonFinite(m *sdk.MetricResult) {
	for _, p := range []**float64{&m.Avg, &m.Min, &m.Max, &m.P1, &m.P5, &m.P10, &m.P25, &m.P50, &m.P75,
		&m.P90, &m.P95, &m.P99, &m.Std, &m.Sum} {
		if *p != nil && (math.IsNaN(**p) || math.IsInf(**p, 0)) {
			*p = nil
		}
	}
}
