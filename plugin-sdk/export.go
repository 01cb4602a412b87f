package sdk

import (
	"context"
	"io"
)

// ArtifactFiles are the file names (within ArtifactDir) a run writes.
type ArtifactFiles struct {
	SummaryJSON  string // profile_export_aiperf.json
	SummaryCSV   string // profile_export_aiperf.csv
	RecordsJSONL string // profile_export.jsonl
	Inputs       string // inputs.json
	Log          string // logs/aiperf.log
}

// InputEntry is one conversation's payloads as sent, for inputs.json.
type InputEntry struct {
	SessionID string
	// Payloads are the exact JSON bodies, one per turn.
	Payloads [][]byte
}

// ExportContext is everything exporters see at the end of a run.
type ExportContext struct {
	ArtifactDir   string
	Files         ArtifactFiles
	ExportLevel   string // summary | records | raw
	Results       *Results
	Endpoint      EndpointMetadata
	Streaming     bool
	AIPerfVersion string
	BenchmarkID   string
	CLICommand    string
	// InputConfig is the resolved configuration with secrets redacted.
	InputConfig map[string]any
	Inputs      []InputEntry
}

// ExportedFile is a file an exporter wrote, for the console footer.
type ExportedFile struct {
	Label string // e.g. "JSON Export"
	Path  string
}

// DataExporter writes result files at the end of a run (category data_exporter).
type DataExporter interface {
	Export(ctx context.Context, ec *ExportContext) ([]ExportedFile, error)
}

// RecordInfo is one line of the per-request export: metadata, metric values
// in display units, and the error.
type RecordInfo struct {
	Metadata RecordMetadata          `json:"metadata"`
	Metrics  map[string]RecordMetric `json:"metrics"`
	Error    *ErrorDetails           `json:"error"`
}

// RecordMetric is one metric value in its display unit.
type RecordMetric struct {
	Value any    `json:"value"`
	Unit  string `json:"unit"`
}

// RecordMetadata is the metadata block of a per-request export line.
// Optional fields are omitted when absent, never written as null.
type RecordMetadata struct {
	SessionNum         int    `json:"session_num"`
	XRequestID         string `json:"x_request_id"`
	XCorrelationID     string `json:"x_correlation_id"`
	ConversationID     string `json:"conversation_id"`
	TurnIndex          int    `json:"turn_index"`
	RequestStartNs     int64  `json:"request_start_ns"`
	RequestAckNs       *int64 `json:"request_ack_ns,omitempty"`
	RequestEndNs       int64  `json:"request_end_ns"`
	CreditIssuedNs     *int64 `json:"credit_issued_ns,omitempty"`
	WorkerID           string `json:"worker_id"`
	RecordProcessorID  string `json:"record_processor_id"`
	BenchmarkPhase     string `json:"benchmark_phase"`
	WasCancelled       bool   `json:"was_cancelled"`
	CancellationTimeNs *int64 `json:"cancellation_time_ns,omitempty"`
}

// RecordSink receives per-request records as they complete, so nothing
// measured is lost if the run ends abruptly. Data exporters that stream
// (jsonl) implement it in addition to DataExporter.
type RecordSink interface {
	Open(ec *ExportContext) error
	WriteRecord(rec *RecordInfo) error
	Close() error
}

// ConsoleExporter renders a section of the final console output (category
// console_exporter).
type ConsoleExporter interface {
	Render(ctx context.Context, w io.Writer, ec *ExportContext) error
}
