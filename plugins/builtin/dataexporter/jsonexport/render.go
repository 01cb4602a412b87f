package jsonexport

import (
	"bytes"
	"fmt"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// hiddenFlags are the metric flags AIPerf keeps out of every summary export.
const hiddenFlags = sdk.FlagInternal | sdk.FlagExperimental

// IncompleteReason is AIPerf 0.13's incomplete_reason of a cancelled run.
const IncompleteReason = "Run cancelled before all records were processed."

// leadingMetrics are the metric fields AIPerf 0.13's JsonExportData declares,
// in declaration order: pydantic writes them first (when present), before
// the run facts, and every other metric after end_time in result order.
var leadingMetrics = []string{
	"request_throughput", "request_latency", "request_count", "time_to_first_token",
	"time_to_second_token", "inter_token_latency", "output_token_throughput",
	"output_token_throughput_per_user", "output_sequence_length", "input_sequence_length",
	"goodput", "good_request_count", "output_token_count", "reasoning_token_count",
	"min_request_timestamp", "max_response_timestamp", "inter_chunk_latency",
	"total_output_tokens", "total_reasoning_tokens", "benchmark_duration", "total_isl",
	"total_osl", "error_request_count", "error_isl", "total_error_isl",
}

// Render returns the summary document in AIPerf 0.13's key order:
// provenance, the metrics JsonExportData declares, telemetry_data,
// input_config, run_info, was_cancelled, is_complete (and incomplete_reason),
// error_summary, start_time, end_time, warmup_metrics (after a warmup
// phase), then every other metric in result order. A phase's own file
// (ec.Phase set) has neither telemetry_data nor warmup_metrics. Keys are written in that fixed order rather than through a map, so
// the file is byte-for-byte reproducible.
func Render(ec *sdk.ExportContext) ([]byte, error) {
	res := ec.Results
	if res == nil {
		res = &sdk.Results{}
	}
	metrics, err := exportedMetrics(res.Metrics)
	if err != nil {
		return nil, err
	}
	w := objectWriter{buf: bytes.NewBuffer(make([]byte, 0, 8192))}
	w.buf.WriteByte('{')

	w.key("schema_version")
	w.str(SchemaVersion)
	if ec.AIPerfVersion != "" {
		w.key("aiperf_version")
		w.str(ec.AIPerfVersion)
	}
	if ec.BenchmarkID != "" {
		w.key("benchmark_id")
		w.str(ec.BenchmarkID)
	}

	leading := make(map[string]bool, len(leadingMetrics))
	for _, tag := range leadingMetrics {
		leading[tag] = true
		if m := metrics[tag]; m != nil {
			w.key(tag)
			w.metric(m)
		}
	}

	start, end := "", ""
	if !res.StartTime.IsZero() {
		start = isoTime(res.StartTime)
	}
	if !res.EndTime.IsZero() {
		end = isoTime(res.EndTime)
	}
	// A phase's own file has no telemetry block (AIPerf exports phases
	// without telemetry results).
	if ec.Phase == nil {
		w.key("telemetry_data")
		if gs := telemetrySummary(ec); gs != nil {
			w.buf.Write(appendTelemetry(w.buf.AvailableBuffer(), gs, 1))
		} else if err := w.value("telemetry_data", telemetryData(start, end)); err != nil {
			return nil, fmt.Errorf("jsonexport: encode telemetry_data: %w", err)
		}
	}
	if ec.InputConfig != nil {
		w.key("input_config")
		if err := w.value("input_config", ec.InputConfig); err != nil {
			return nil, fmt.Errorf("jsonexport: encode input_config: %w", err)
		}
	}
	w.key("run_info")
	if err := w.value("run_info", runInfo(ec)); err != nil {
		return nil, fmt.Errorf("jsonexport: encode run_info: %w", err)
	}
	w.key("was_cancelled")
	w.boolean(res.WasCancelled)
	// AIPerf: complete unless the run was cancelled (or its record-stall
	// watchdog fired, which has no counterpart here).
	w.key("is_complete")
	w.boolean(!res.WasCancelled)
	if res.WasCancelled {
		w.key("incomplete_reason")
		w.str(IncompleteReason)
	}
	w.key("error_summary")
	errs := res.ErrorSummary
	if errs == nil {
		errs = []sdk.ErrorCount{} // AIPerf writes an empty list, not null
	}
	if err := w.value("error_summary", errs); err != nil {
		return nil, fmt.Errorf("jsonexport: encode error_summary: %w", err)
	}
	// A merged sharded run says how it was merged (not an AIPerf key:
	// absent from every other run's file).
	if ec.Sharding != nil && ec.Phase == nil {
		sh := *ec.Sharding
		if sh.Failed == nil {
			sh.Failed = []sdk.ShardFailure{}
		}
		w.key("sharding")
		if err := w.value("sharding", sh); err != nil {
			return nil, fmt.Errorf("jsonexport: encode sharding: %w", err)
		}
	}
	if start != "" {
		w.key("start_time")
		w.str(start)
	}
	if end != "" {
		w.key("end_time")
		w.str(end)
	}

	if ec.Warmup != nil && ec.Phase == nil {
		// Every exported metric of the warmup phase, in result order.
		warm, err := exportedMetrics(ec.Warmup.Metrics)
		if err != nil {
			return nil, fmt.Errorf("jsonexport: warmup_metrics: %w", err)
		}
		var blocks []*sdk.MetricResult
		for i := range ec.Warmup.Metrics {
			if m := &ec.Warmup.Metrics[i]; warm[m.Tag] == m {
				blocks = append(blocks, m)
			}
		}
		w.key("warmup_metrics")
		w.metrics(blocks)
	}

	for i := range res.Metrics {
		m := &res.Metrics[i]
		if leading[m.Tag] || metrics[m.Tag] != m {
			continue // written above, hidden, or a duplicate
		}
		w.key(m.Tag)
		w.metric(m)
	}
	if ec.Phase == nil {
		// AIPerf appends its GPU energy-efficiency results last.
		for _, m := range telemetryEnergy(ec) {
			if metrics[m.Tag] == nil {
				w.key(m.Tag)
				w.metric(&m)
			}
		}
	}

	w.buf.WriteString("\n}\n")
	return w.buf.Bytes(), nil
}

// exportedMetrics indexes the metrics the file carries: INTERNAL and
// EXPERIMENTAL ones are left out, and of a repeated tag only the first is
// kept (a duplicate key would make the document ambiguous).
func exportedMetrics(all []sdk.MetricResult) (map[string]*sdk.MetricResult, error) {
	out := make(map[string]*sdk.MetricResult, len(all))
	for i := range all {
		m := &all[i]
		if m.Tag == "" {
			return nil, fmt.Errorf("jsonexport: metric #%d (%q) has an empty tag", i, m.Header)
		}
		if m.Flags.HasAny(hiddenFlags) {
			continue
		}
		if _, dup := out[m.Tag]; !dup {
			out[m.Tag] = m
		}
	}
	return out, nil
}

// telemetryData is AIPerf's telemetry_data block of a run without GPU
// telemetry: no endpoints, no errors, and the profiling phase's bounds.
func telemetryData(start, end string) map[string]any {
	summary := map[string]any{"endpoints_configured": []any{}, "endpoints_successful": []any{}}
	if start != "" {
		summary["start_time"] = start
	}
	if end != "" {
		summary["end_time"] = end
	}
	return map[string]any{"summary": summary, "endpoints": map[string]any{}, "error_summary": []any{}}
}

// runInfo is AIPerf's run_info block of a single (non-sweep) run.
func runInfo(ec *sdk.ExportContext) map[string]any {
	ri := map[string]any{"trial": 0}
	if ec.BenchmarkID != "" {
		ri["benchmark_id"] = ec.BenchmarkID
	}
	if ec.RandomSeed != nil {
		ri["random_seed"] = *ec.RandomSeed
	}
	if ec.CLICommand != "" {
		ri["cli_command"] = ec.CLICommand
	}
	return ri
}

// isoTime formats t like Python's naive datetime.isoformat(), which is what
// AIPerf writes: microseconds only when non-zero, no zone suffix.
func isoTime(t time.Time) string {
	if t.Nanosecond()/1000 == 0 {
		return t.Format("2006-01-02T15:04:05")
	}
	return t.Format("2006-01-02T15:04:05.000000")
}
