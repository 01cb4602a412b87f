// Package metrics is the metrics engine: one registry of metric definitions
// (tags, headers, units, flags, display order), the per-record formulas that
// turn a parsed request into metric values, exact statistics over those
// values, goodput SLOs, and the accumulator that folds records into results.
//
// Semantics follow NVIDIA AIPerf exactly (facts §1): values are computed in
// base units (ns for latencies) and converted to display units (ms, sec) only
// when reported; a metric that cannot be computed for a record is absent,
// never zero; an invalid value (a negative latency) drops that metric for that
// record instead of failing the run.
package metrics
