// Package metrics is the metrics engine, generic over the metrics a run's
// record processors declare (sdk.MetricSpec). A Catalog holds those
// declarations and the core's own run-level metrics (counts, timestamps,
// duration, totals, throughputs, goodput, the usage and OSL mismatch
// counters, the derived latencies of every record, the time-weighted sweep
// metrics) and resolves once which of them apply to the run. On top of it: unit conversion, exact statistics, goodput
// SLOs, the accumulator that folds records into results (the phase's and,
// with a slice duration, each timeslice's), and the
// per-record export form.
//
// Semantics follow NVIDIA AIPerf exactly (docs/METRICS.md §1–§2): values are produced in
// their declared unit (ns for latencies) and converted to display units (ms,
// sec) only when reported; a metric that cannot be computed for a record is
// absent, never zero; a value of a metric that does not apply to the run is
// dropped.
package metrics
