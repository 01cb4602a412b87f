package sdk

import (
	"context"
	"time"
)

// TransportRequest is one HTTP request to send.
type TransportRequest struct {
	URL       string
	Method    string // POST when empty
	Headers   map[string]string
	Body      []byte
	Streaming bool
	Timeout   time.Duration
}

// Transport sends requests and timestamps their responses (category
// transport; built-in only, since it sits inside the timed window). Send
// fills the timing, status, responses and error fields of rec.
type Transport interface {
	Send(ctx context.Context, req *TransportRequest, rec *RequestRecord)
	Close() error
}

// Credit is permission to send one request.
type Credit struct {
	// Index is the 0-based position of this credit within its phase.
	Index    int
	Phase    string
	IssuedNs int64
}

// CreditSender sends the request for a credit. Send blocks until that
// request completed (or failed), so a closed-loop strategy can pace on it.
type CreditSender interface {
	Send(ctx context.Context, c Credit)
}

// PhasePlan is what a timing strategy is told about the phase to run.
type PhasePlan struct {
	Phase string
	// RequestCount is the number of credits to issue; 0 means no count limit.
	RequestCount int
	// Concurrency is the number of requests in flight at most.
	Concurrency int
	RandomSeed  int64
}

// TimingStrategy decides when credits are issued (category timing_strategy).
// Run returns when the phase's stop condition is met or ctx is cancelled,
// after every request it started has completed.
type TimingStrategy interface {
	Run(ctx context.Context, plan PhasePlan, sender CreditSender) error
}

// RunInfo is what record processors and accumulators need to know about the
// run to decide which metrics apply.
type RunInfo struct {
	Endpoint  EndpointMetadata
	Streaming bool
	// Goodput maps a metric tag to its SLO threshold in the metric's display
	// unit (e.g. ms). Empty means no goodput metrics.
	Goodput map[string]float64
}

// RecordProcessor turns a parsed record into metric values (category
// record_processor). Process may be called from several goroutines.
type RecordProcessor interface {
	Init(info RunInfo) error
	Process(rec *ParsedRecord) (*RecordMetrics, error)
}

// Accumulator folds processed records into results (category accumulator).
// Add is called from one goroutine at a time.
type Accumulator interface {
	Init(info RunInfo) error
	Add(rec *RecordMetrics)
	Summarize() (*Results, error)
}

// ProgressSnapshot is a point-in-time view of a running phase.
type ProgressSnapshot struct {
	Phase     string
	Sent      int64
	Completed int64
	Errors    int64
	// Total is the phase's request count, 0 when unbounded.
	Total   int64
	Elapsed time.Duration
}

// ProgressSource is polled by UIs.
type ProgressSource interface {
	Snapshot() ProgressSnapshot
}

// UI shows progress while a run executes (category ui).
type UI interface {
	Start(ctx context.Context, src ProgressSource)
	Stop()
}
