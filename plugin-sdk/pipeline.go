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
	// OnEvent, when set, is called with each SSE event's data as it arrives
	// until it returns true (the engine uses it to release a prefill slot at
	// the first token). It runs on the timed path: keep it cheap.
	OnEvent func(data []byte) (done bool)
	// CancelAfterSent cancels the request this long after its body was fully
	// written (--request-cancellation-delay); 0 means never.
	CancelAfterSent time.Duration
	// CancelAtSend cancels the request as soon as its body was written; it is
	// how a zero cancellation delay is expressed.
	CancelAtSend bool
	// CloseConnection closes the connection after this request instead of
	// returning it to the pool (--connection-reuse-strategy never, or the
	// last turn of a sticky session).
	CloseConnection bool
	// ConnectionKey pins requests with the same non-empty key to their own
	// connection (sticky user sessions).
	ConnectionKey string
	// FormData sends Body, a JSON object, as multipart/form-data: one field
	// per key in order (AIPerf's _build_form_data), instead of JSON.
	FormData bool
	// Poll makes the request an asynchronous job (EndpointMetadata.
	// RequiresPolling): nil for an ordinary request.
	Poll *PollSpec
}

// PollSpec is how the transport follows an asynchronous job, as AIPerf's
// video generation does: POST the body; the JSON answer carries "id"; GET
// <URL>/<id> every Interval until "status" is "completed" (or "failed",
// an error); with DownloadContent, GET the result's "url" (or
// <URL>/<id>/content) as bytes. The record's responses are the submit
// answer and the final poll answer; the download is not timed into them.
// The whole job is bounded by the request timeout.
type PollSpec struct {
	Interval        time.Duration
	DownloadContent bool
}

// Transport sends requests and timestamps their responses (category
// transport; built-in only, since it sits inside the timed window). Send
// fills the timing, status, responses and error fields of rec. A transport
// sizes its connection pool in Init (RunInfo.MaxConcurrency) and releases
// it in Close.
type Transport interface {
	Send(ctx context.Context, req *TransportRequest, rec *RequestRecord)
}

// Credit is permission to start one session (a single-turn conversation is
// one request).
type Credit struct {
	// Index is the 0-based position of this credit within its phase.
	Index int
	Phase string
	// ScheduledNs is when the strategy meant the credit to go out (perf
	// clock); 0 for closed-loop credits, which have no schedule.
	ScheduledNs int64
	IssuedNs    int64
	// User is the virtual user of user-centric mode (0 otherwise).
	User int
	// OnFirstToken, when set, is called once when the first generated token
	// arrives (or the request ends without one): prefill concurrency slots
	// are released here.
	OnFirstToken func()
}

// CreditSender sends the request for a credit. Send blocks until that
// request completed (or failed), so a closed-loop strategy can pace on it.
type CreditSender interface {
	Send(ctx context.Context, c Credit)
}

// PhasePlan is what a timing strategy is told about the phase to run: the
// stop conditions and ceilings every strategy honours. What only one
// strategy needs (a request rate, a number of users) is that strategy's own
// configuration (sdk.Configurable).
type PhasePlan struct {
	Phase string
	// RequestCount is the number of credits to issue; 0 means no count limit.
	RequestCount int
	// Duration stops issuing after this long; 0 means no duration limit.
	// The first stop condition reached wins.
	Duration time.Duration
	// GracePeriod is how long in-flight requests may finish after Duration;
	// negative means forever. Requests still running then are cancelled with
	// cause ErrGraceExpired.
	GracePeriod time.Duration
	// Concurrency caps requests in flight; 0 means no cap (open loop only).
	Concurrency int
	// PrefillConcurrency caps requests waiting for their first token; 0 = no cap.
	PrefillConcurrency int
	// Ramp durations of the two ceilings (0 = no ramp) and the ramp shape
	// every ramp of the phase uses (--ramp-type; nil = linear).
	ConcurrencyRamp        time.Duration
	PrefillConcurrencyRamp time.Duration
	Ramp                   Ramp
	// Arrival generates the gaps of rate-driven strategies (built, seeded
	// and configured for this phase).
	Arrival ArrivalPattern
	// Schedule holds the send offsets of a trace replay, in order: data from
	// the dataset, not configuration.
	Schedule []time.Duration
}

// TimingStrategy decides when credits are issued (category timing_strategy).
// Run returns when the phase's stop condition is met or ctx is cancelled,
// after every request it started has completed.
type TimingStrategy interface {
	Run(ctx context.Context, plan PhasePlan, sender CreditSender) error
}

// RecordProcessor turns a parsed record into metric values (category
// record_processor). It declares every metric it produces, so the core can
// apply, aggregate, export and show them exactly like AIPerf's own; values
// for a metric that does not apply to the run (its flags or requirements)
// are dropped by the core. Process may be called from several goroutines.
type RecordProcessor interface {
	Metrics() []MetricSpec
	Process(rec *ParsedRecord) (*RecordMetrics, error)
}

// RecordRecycler is implemented by record processors that reuse what
// Process returns: once every accumulator, hook and sink has seen a record
// (none may keep Values or the RecordMetrics past its call), the core hands
// it back. Pooling the per-record map keeps the garbage collector idle
// during a run, which is what keeps sends on schedule.
type RecordRecycler interface {
	Recycle(rm *RecordMetrics)
}

// Accumulator folds processed records into results (category accumulator).
// Add is called from one goroutine at a time; the record and its Values are
// the accumulator's only during the call (they are recycled). Init (sdk.Initializer) tells
// it the run; SetMetrics (sdk.MetricsAware) the declared metrics it may see.
type Accumulator interface {
	Add(rec *RecordMetrics)
	Summarize() (*Results, error)
}

// PhaseObserver is implemented by accumulators that need the wall-clock
// bounds of the phase whose records they fold (the built-in one measures
// the throughputs over its phase, as AIPerf does). Each accumulator
// instance serves one phase: the core builds one set for the profiling
// phase and, when a warmup phase runs, a second set whose Init sees
// RunInfo.Phase "warmup" and which is fed only warmup records. The core
// calls PhaseStarted just before the phase's timing strategy issues its
// first credit and PhaseEnded once every request the phase started has
// finished, with epoch nanoseconds on the clock of RequestRecord.TimestampNs,
// for the instance's own phase only. Both are called from another goroutine
// than Add's, so an implementation must be safe for that.
type PhaseObserver interface {
	PhaseStarted(phase string, wallNs int64)
	PhaseEnded(phase string, wallNs int64)
}

// MetricsAware is implemented by plugins (accumulators, data and console
// exporters) that need the metrics every record processor of the run
// declared. The core calls it
// after Init, before the first record.
type MetricsAware interface {
	SetMetrics(specs []MetricSpec) error
}

// ProgressSnapshot is a point-in-time view of a running phase.
type ProgressSnapshot struct {
	Phase     string
	Sent      int64
	Completed int64
	Errors    int64
	// Total is the phase's request count, 0 when unbounded.
	Total int64
	// Duration is the phase's time limit (--benchmark-duration), 0 when
	// none.
	Duration time.Duration
	Elapsed  time.Duration
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
