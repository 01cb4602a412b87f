package sdk

import "time"

// Live views (issue 13): a UI reads them at its own refresh rate while the
// run executes. Building one never blocks the timed path: the core keeps
// them from the record pipeline and the telemetry sampler, off the senders'
// goroutines.

// LiveMetric is one metric's distribution over the current phase's completed
// requests so far. Percentiles come from a mergeable sketch with 1% relative
// error (the final export is exact); Count is 0 until a record carries it.
type LiveMetric struct {
	Tag    string // AIPerf tag, e.g. time_to_first_token
	Header string // display name, e.g. "Time to First Token"
	Unit   string // display unit, e.g. "ms"
	Count  int64
	Avg    float64
	Min    float64
	Max    float64
	P50    float64
	P90    float64
	P99    float64
}

// LiveGPU is the latest telemetry reading of one GPU; a value the collector
// does not report is NaN.
type LiveGPU struct {
	Source     string
	Index      int
	Name       string
	PowerW     float64
	UtilPct    float64
	MemUsedGB  float64
	MemUtilPct float64
	TempC      float64
}

// LiveView is the run as a live display shows it. Progress is the engine's
// counters; Metrics lists TTFT, ITL, request latency, output sequence length
// (those the run measures) in that order; the throughputs divide the
// current phase's completed requests and output tokens by its elapsed time.
type LiveView struct {
	Progress ProgressSnapshot
	// Finished are the phases that ended, with their final counts, in
	// order (a poll can miss a phase's last requests).
	Finished              []ProgressSnapshot
	Metrics               []LiveMetric
	RequestThroughput     float64
	OutputTokenThroughput float64
	// Errors counts failed requests of the current phase by error type.
	Errors []LiveErrorCount
	GPUs   []LiveGPU
	// Server names the server-metrics sources being scraped (their values
	// are in the export).
	Server []string
	// At is when the view was taken.
	At time.Time
}

// LiveErrorCount is one error type and how often it happened.
type LiveErrorCount struct {
	Type  string
	Count int64
}

// LiveSource is implemented by the ProgressSource the core hands to
// UI.Start when it can also give live metrics: a UI that shows more than
// progress type-asserts it.
type LiveSource interface {
	ProgressSource
	Live() LiveView
}

// TerminalUI is implemented by a UI that may take the whole terminal (the
// full-screen dashboard): while OwnsTerminal reports true after Start, the
// core holds its own stderr log lines and prints them after Stop (the run's
// log file gets them at once).
type TerminalUI interface {
	UI
	OwnsTerminal() bool
}
