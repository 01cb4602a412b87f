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
	// BenchmarkID identifies the run: 12 lowercase hex characters, as
	// AIPerf's uuid4().hex[:12], the same wherever it is written.
	BenchmarkID string
	CLICommand  string
	// RandomSeed is the seed the run used (run_info.random_seed); nil when
	// unknown.
	RandomSeed *int64
	// InputConfig is the resolved configuration with secrets redacted, in
	// AIPerf 0.13's nested layout (models, endpoint, datasets, phases, ...):
	// nested objects are map[string]any, lists []any, whole numbers int and
	// AIPerf's float fields float64.
	InputConfig map[string]any
	Inputs      []InputEntry
	// GPUTelemetry holds the samples of every GPU telemetry source, whole run
	// (warmup included: exporters pick the phase windows from Results and
	// Warmup); nil when GPU telemetry was off.
	GPUTelemetry []GPUTelemetrySeries
	// ServerMetrics holds the server metrics computed from every
	// server_metrics_collector source; nil when collection was off.
	ServerMetrics *ServerMetricsResults
	// SkipInputs says the run writes no inputs.json: AIPerf 0.13 skips it
	// for trace datasets (mooncake, bailian, BurstGPT), whose payloads are
	// verbatim or synthesized and would be huge. Inputs is then nil.
	SkipInputs bool
	// ConsoleText is what the run's console exporters print, rendered
	// without colour before the data exporters run, so a data exporter can
	// save it (profile_export_console.txt). Nil when there are none.
	ConsoleText []byte
	// Warmup holds the warmup phase's results (AIPerf's warmup_metrics);
	// nil when the run had no warmup phase.
	Warmup *Results
	// Phase is set when the core asks a PhaseExporter for one phase's
	// artifacts: Results are then that phase's, ArtifactDir is the phase's
	// own directory (phases/<name>) and Warmup is nil. Nil for the run's
	// main export.
	Phase *PhaseInfo
	// Sharding says how a sharded run's shards were merged into Results;
	// nil for any other run (the summary then has no sharding block).
	Sharding *ShardingInfo
}

// ShardingInfo is the "sharding" block of a merged sharded run's summary.
type ShardingInfo struct {
	Shards    int            `json:"shards"`
	Completed int            `json:"completed"`
	Failed    []ShardFailure `json:"failed"`
	// Partial: some shard failed, so the results hold the others' only.
	Partial bool `json:"partial"`
	// Percentiles is PercentilesExact or PercentilesDDSketch.
	Percentiles      string  `json:"percentiles"`
	RelativeAccuracy float64 `json:"relative_accuracy,omitempty"`
}

// How a sharded run's percentiles were merged: recomputed from every
// record, or read from the merged sketches, within RelativeAccuracy of the
// exact values.
const (
	PercentilesExact    = "exact"
	PercentilesDDSketch = "ddsketch"
)

// ShardFailure is a shard that did not complete, and why.
type ShardFailure struct {
	Shard  int    `json:"shard"`
	Reason string `json:"reason"`
}

// PhaseInfo describes one phase of a run as AIPerf 0.13 numbers it in
// phase_manifest.json and the per-record export.
type PhaseInfo struct {
	Name string // "warmup" or "profiling"
	Kind string // "warmup" or "profiling"
	// Index is the phase's position in the run (phase_index).
	Index int
	// ProfilingIndex is the position among profiling phases; -1 for a
	// warmup phase (AIPerf's null).
	ProfilingIndex int
	// StartNs and EndNs bound the phase (epoch ns): its first credit to the
	// moment its last request finished.
	StartNs, EndNs int64
	WasCancelled   bool
}

// ExportedFile is a file an exporter wrote, for the console footer.
type ExportedFile struct {
	Label string // e.g. "JSON Export"
	Path  string
	// Key names the file in phase_manifest.json (metrics_json,
	// metrics_csv) when a PhaseExporter wrote it; empty otherwise.
	Key string
}

// DataExporter writes result files at the end of a run (category data_exporter).
type DataExporter interface {
	Export(ctx context.Context, ec *ExportContext) ([]ExportedFile, error)
}

// PhaseExporter is implemented by data exporters that also write one
// phase's artifacts. When a run has more than one phase (a warmup phase
// before profiling) the core calls ExportPhase once per phase, after the
// main export, with a phase-scoped context (ExportContext.Phase set,
// ArtifactDir = <artifact dir>/phases/<name>, created), and indexes the
// returned files by Key in phase_manifest.json, as AIPerf 0.13 does.
type PhaseExporter interface {
	DataExporter
	ExportPhase(ctx context.Context, ec *ExportContext) ([]ExportedFile, error)
}

// RecordInfo is one line of the per-request export: metadata, metric values
// in display units, and the error (absent on successful requests, as in
// AIPerf).
type RecordInfo struct {
	Metadata RecordMetadata          `json:"metadata"`
	Metrics  map[string]RecordMetric `json:"metrics"`
	Error    *ErrorDetails           `json:"error,omitempty"`

	// Request is the record the line was built from, for sinks that export
	// the raw exchange (the raw exporter, --export-level raw): its start
	// time, the headers and body sent (RequestRecord.RequestHeaders holds
	// credentials unredacted: redact before writing), the status, every
	// response unit as received and the error. Set by the record pipeline
	// for every sink (a pointer, so free when unused); nil when the caller
	// has none. Read-only; never serialized.
	Request *RequestRecord `json:"-"`
}

// RecordMetric is one metric value in its display unit.
type RecordMetric struct {
	Value any    `json:"value"`
	Unit  string `json:"unit"`
}

// RecordMetadata is the metadata block of a per-request export line, in
// AIPerf 0.13's field order (MetricRecordMetadata). Optional fields are
// omitted when absent, never written as null.
type RecordMetadata struct {
	SessionNum        int    `json:"session_num"`
	XRequestID        string `json:"x_request_id"`
	XCorrelationID    string `json:"x_correlation_id"`
	ConversationID    string `json:"conversation_id"`
	TurnIndex         int    `json:"turn_index"`
	CreditIssuedNs    *int64 `json:"credit_issued_ns,omitempty"`
	RequestStartNs    int64  `json:"request_start_ns"`
	RequestAckNs      *int64 `json:"request_ack_ns,omitempty"`
	RequestEndNs      int64  `json:"request_end_ns"`
	WorkerID          string `json:"worker_id"`
	RecordProcessorID string `json:"record_processor_id"`
	BenchmarkPhase    string `json:"benchmark_phase"`
	// PhaseIndex is the phase's position in the run's ordered phase list
	// (warmup 0 and profiling 1 when there is a warmup phase).
	PhaseIndex int `json:"phase_index"`
	// ProfilingIndex is the position among profiling phases; nil (absent)
	// on warmup records.
	ProfilingIndex *int `json:"profiling_index,omitempty"`
	// PhaseName and PhaseKind are "warmup" or "profiling" for a CLI run.
	PhaseName          string `json:"phase_name"`
	PhaseKind          string `json:"phase_kind"`
	WasCancelled       bool   `json:"was_cancelled"`
	CancellationTimeNs *int64 `json:"cancellation_time_ns,omitempty"`
	// ContextOverflowSkip is AIPerf's agentic-replay flag: always false here.
	ContextOverflowSkip bool `json:"context_overflow_skip"`
	// AgentDepth is the DAG depth of the session (0: a root session).
	AgentDepth int `json:"agent_depth"`
	// RootCorrelationID is the x_correlation_id of the session tree's root:
	// the record's own x_correlation_id for a root session.
	RootCorrelationID string `json:"root_correlation_id"`
}

// RecordSink receives per-request records as they complete, so nothing
// measured is lost if the run ends abruptly. Data exporters that stream
// (jsonl) implement it in addition to DataExporter. A sink receives the
// warmup phase's records too (Metadata.BenchmarkPhase "warmup"), as
// AIPerf's per-record export carries them; a sink that reports on the
// profiling phase only must skip them. rec and what it points to are the
// sink's only during WriteRecord: the core reuses them for the next record.
type RecordSink interface {
	Open(ec *ExportContext) error
	WriteRecord(rec *RecordInfo) error
	Close() error
}

// ConsoleExporter renders a section of the final console output (category
// console_exporter). The core calls Render twice per run: into a plain-text
// buffer (ExportContext.ConsoleText, saved as profile_export_console.txt)
// and then to stdout, so Render must do nothing but write to w, and should
// decide on colour from w itself.
type ConsoleExporter interface {
	Render(ctx context.Context, w io.Writer, ec *ExportContext) error
}
