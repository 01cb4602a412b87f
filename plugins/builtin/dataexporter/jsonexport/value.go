package jsonexport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/jsonenc"
	"github.com/aiperf-go/aiperf/internal/pyfmt"
)

// keyOrder is the member order of the objects AIPerf 0.13 writes below the
// top level, by the name of the member (or list) holding them: the field
// declaration order of its pydantic models (BenchmarkConfig and its
// sections, TelemetryExportData, RunInfo), which is the order orjson writes
// them in. Keys a list does not name follow in sorted order.
var keyOrder = map[string][]string{
	"input_config": {"models", "endpoint", "datasets", "phases", "artifacts", "slos", "tokenizer",
		"gpu_telemetry", "server_metrics", "network_latency", "otel", "mlflow", "wandb", "runtime",
		"logging"},
	"telemetry_data": {"summary", "endpoints", "error_summary"},
	"summary":        {"endpoints_configured", "endpoints_successful", "start_time", "end_time"},
	"run_info": {"benchmark_id", "sweep_id", "random_seed", "trial", "run_label", "variation_label",
		"variation_index", "variation_values", "cli_command"},
	"models": {"strategy", "items"},
	"items":  {"name", "weight", "lora", "modalities", "tokenizer"},
	"endpoint": {"urls", "url_strategy", "type", "path", "api_key", "timeout", "streaming", "transport",
		"connection_reuse", "use_legacy_max_tokens", "use_server_token_count", "per_chunk_usage",
		"template", "headers", "extra", "download_video_content", "request_content_type"},
	// SyntheticDataset; FileDataset is "datasets/file".
	"datasets": {"name", "type", "entries", "random_seed", "sampling", "prompts", "isl", "osl",
		"prefix_prompts", "turns", "turn_delay", "turn_delay_ratio", "images", "audio", "video", "rankings"},
	"datasets/file": {"name", "type", "path", "records", "format", "sampling", "synthesis", "entries",
		"random_seed", "osl", "block_size", "prompt_batch_size", "image_batch_size", "audio_batch_size",
		"video_batch_size", "prompts"},
	// A public dataset's (--public-dataset) PublicDataset fields.
	"datasets/public": {"name", "type", "dataset", "entries", "random_seed", "sampling", "hf_subset", "osl"},
	// A file dataset's SynthesisConfig (the --synthesis-* flags).
	"synthesis": {"speedup_ratio", "prefix_len_multiplier", "prefix_root_multiplier", "prompt_len_multiplier",
		"output_len_multiplier", "max_isl", "max_osl", "allow_dataset_wrap"},
	"prompts":    {"isl", "osl", "block_size", "batch_size", "cache_bust", "corpus", "sequence_distribution"},
	"isl":        {"mean", "stddev"},
	"osl":        {"mean", "stddev"},
	"turns":      {"mean", "stddev"},
	"turn_delay": {"mean", "stddev"},
	// The media and rankings sections of a synthetic dataset (ImageConfig,
	// AudioConfig, VideoConfig and its audio track, RankingsConfig).
	"images":         {"batch_size", "width", "height", "format", "source", "source_sampling"},
	"audio":          {"batch_size", "length", "format", "sample_rates", "depths", "sample_rate", "channels", "codec", "depth"},
	"video":          {"batch_size", "duration", "fps", "width", "height", "format", "codec", "synth_type", "audio"},
	"rankings":       {"passages", "passage_tokens", "query_tokens"},
	"width":          {"mean", "stddev"},
	"height":         {"mean", "stddev"},
	"length":         {"mean", "stddev"},
	"passages":       {"mean", "stddev"},
	"passage_tokens": {"mean", "stddev"},
	"query_tokens":   {"mean", "stddev"},
	"phases": {"name", "kind", "type", "exclude_from_results", "requests", "duration", "sessions",
		"concurrency", "concurrency_ramp", "prefill_concurrency", "prefill_ramp", "grace_period",
		"cancellation", "rate", "rate_ramp", "rate_series", "smoothness", "users", "auto_offset",
		"start_offset", "end_offset"},
	"cancellation": {"rate", "delay"},
	"artifacts": {"dir", "prefix", "summary", "records", "raw", "trace", "slice_duration",
		"show_trace_timing", "user_files", "auto_plot", "plot_required", "export_outputs_json"},
	"tokenizer":      {"name", "revision", "trust_remote_code", "apply_chat_template"},
	"server_metrics": {"enabled", "urls", "formats"},
	"gpu_telemetry":  {"enabled", "urls", "collector", "mode", "metrics_file"},
	"runtime":        {"ui", "workers", "record_processors"},
}

// orderedKeys lists an object's keys: those keyOrder names for its holder,
// in that order, then the rest sorted.
func orderedKeys(m map[string]any, holder string) []string {
	if holder == "datasets" && m["type"] == "file" {
		holder = "datasets/file"
	}
	if holder == "datasets" && m["type"] == "public" {
		holder = "datasets/public"
	}
	keys := make([]string, 0, len(m))
	for _, k := range keyOrder[holder] {
		if _, ok := m[k]; ok {
			keys = append(keys, k)
		}
	}
	if len(keys) == len(m) {
		return keys
	}
	known := len(keys)
	for k := range m {
		if !slices.Contains(keys[:known], k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys[known:])
	return keys
}

// appendValue appends v as indented JSON whose first line continues a line
// at nesting depth, the layout orjson's OPT_INDENT_2 gives AIPerf's file:
// two spaces per level, one member or element per line, empty objects and
// lists as {} and []. holder names the member holding v (for the key order
// of objects). Floats are written as Python writes them (64.0), ints as
// ints, non-finite floats as null (AIPerf scrubs them); values of other
// types go through encoding/json.
func appendValue(b []byte, v any, depth int, holder string) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case string:
		return jsonenc.AppendString(b, x), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int32:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case uint64:
		return strconv.AppendUint(b, x, 10), nil
	case float64:
		return appendFloat(b, x), nil
	case float32:
		return appendFloat(b, float64(x)), nil
	case json.Number:
		return append(b, x...), nil
	case map[string]any:
		return appendObject(b, x, depth, holder)
	case map[string]string:
		m := make(map[string]any, len(x))
		for k, s := range x {
			m[k] = s
		}
		return appendObject(b, m, depth, holder)
	case []any:
		return appendList(b, len(x), depth, func(b []byte, i int) ([]byte, error) {
			return appendValue(b, x[i], depth+1, holder)
		})
	case []string:
		return appendList(b, len(x), depth, func(b []byte, i int) ([]byte, error) {
			return jsonenc.AppendString(b, x[i]), nil
		})
	case []map[string]any:
		return appendList(b, len(x), depth, func(b []byte, i int) ([]byte, error) {
			return appendObject(b, x[i], depth+1, holder)
		})
	}
	return appendEncoded(b, v, depth)
}

func appendFloat(b []byte, f float64) []byte {
	if !finite(f) {
		return append(b, "null"...)
	}
	return pyfmt.AppendFloat(b, f)
}

func appendObject(b []byte, m map[string]any, depth int, holder string) ([]byte, error) {
	if len(m) == 0 {
		return append(b, "{}"...), nil
	}
	inner := "\n" + strings.Repeat(indent, depth+1)
	b = append(b, '{')
	for i, k := range orderedKeys(m, holder) {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, inner...)
		b = jsonenc.AppendString(b, k)
		b = append(b, ": "...)
		var err error
		if b, err = appendValue(b, m[k], depth+1, k); err != nil {
			return b, fmt.Errorf("%s: %w", k, err)
		}
	}
	b = append(b, '\n')
	b = append(b, strings.Repeat(indent, depth)...)
	return append(b, '}'), nil
}

func appendList(b []byte, n, depth int, elem func([]byte, int) ([]byte, error)) ([]byte, error) {
	if n == 0 {
		return append(b, "[]"...), nil
	}
	inner := "\n" + strings.Repeat(indent, depth+1)
	b = append(b, '[')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, inner...)
		var err error
		if b, err = elem(b, i); err != nil {
			return b, err
		}
	}
	b = append(b, '\n')
	b = append(b, strings.Repeat(indent, depth)...)
	return append(b, ']'), nil
}

// appendEncoded writes a value of any other type (error summaries, plugin
// structs) through encoding/json, re-indented to depth, HTML unescaped.
func appendEncoded(b []byte, v any, depth int) ([]byte, error) {
	var raw bytes.Buffer
	enc := json.NewEncoder(&raw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return b, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, bytes.TrimRight(raw.Bytes(), "\n"), strings.Repeat(indent, depth), indent); err != nil {
		return b, err
	}
	return append(b, out.Bytes()...), nil
}

// AppendValue appends v as the value of a member depth levels deep in the
// summary file's layout (2-space indentation, AIPerf's key order and float
// formatting), for exporters that embed the same blocks (input_config).
func AppendValue(b []byte, v any, depth int, holder string) ([]byte, error) {
	return appendValue(b, v, depth, holder)
}
