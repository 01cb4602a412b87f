package sdk

import "time"

// ErrorCount is one row of the error summary.
type ErrorCount struct {
	ErrorDetails ErrorDetails `json:"error_details"`
	Count        int          `json:"count"`
}

// Results are the aggregated outcome of a profiling phase.
type Results struct {
	// Metrics are ordered by display order, then tag.
	Metrics      []MetricResult
	ErrorSummary []ErrorCount
	StartTime    time.Time
	EndTime      time.Time
	WasCancelled bool
	// BenchmarkDurationS is benchmark_duration in seconds (0 when unknown).
	BenchmarkDurationS float64
	// CompletedRecords counts every record that reached the accumulator.
	CompletedRecords int
}

// Metric returns the result with the given tag.
func (r *Results) Metric(tag string) (MetricResult, bool) {
	for _, m := range r.Metrics {
		if m.Tag == tag {
			return m, true
		}
	}
	return MetricResult{}, false
}
