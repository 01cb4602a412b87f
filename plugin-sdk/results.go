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
	// Timeslices are the phase's results per --slice-duration window, in
	// time order (AIPerf 0.13's ProfileResults.timeslices); nil without a
	// slice duration. Windows without a record are left out, so a slice's
	// position is its index among the non-empty ones.
	Timeslices []TimesliceResult
}

// TimesliceResult is one window of the slice grid and the results of the
// records that started in it (AIPerf 0.13's TimesliceResult).
type TimesliceResult struct {
	// StartNs and EndNs bound the window (epoch ns).
	StartNs, EndNs int64
	// Partial is set on the last slice when the run ended before its full
	// duration, so EndNs is the last request's end (AIPerf writes
	// is_complete: false); rates over it are not comparable with the other
	// slices'.
	Partial bool
	// Metrics are the slice's results, ordered as Results.Metrics and
	// carrying their flags, so exporters filter them as they filter the
	// phase's.
	Metrics []MetricResult
}

// Metric returns the result with the given tag.
func (r *Results) Metric(tag string) (MetricResult, bool) {
	return findMetric(r.Metrics, tag)
}

// Metric returns the slice's result with the given tag.
func (s *TimesliceResult) Metric(tag string) (MetricResult, bool) {
	return findMetric(s.Metrics, tag)
}

func findMetric(ms []MetricResult, tag string) (MetricResult, bool) {
	for _, m := range ms {
		if m.Tag == tag {
			return m, true
		}
	}
	return MetricResult{}, false
}
