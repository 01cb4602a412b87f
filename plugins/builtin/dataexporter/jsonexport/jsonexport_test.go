package jsonexport

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/aiperf-go/aiperf/internal/jsontest"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func fp(v float64) *float64 { return &v }
func ip(v int64) *int64     { return &v }

func sampleResults() *sdk.Results {
	return &sdk.Results{
		Metrics: []sdk.MetricResult{
			{Tag: "request_latency", Header: "Request Latency", Unit: "ms", DisplayOrder: 300,
				Avg: fp(2620.71), Min: fp(2145.06), Max: fp(3411.1), P1: fp(2150), P5: fp(2200), P10: fp(2300),
				P25: fp(2400), P50: fp(2568.73), P75: fp(2700), P90: fp(3000), P95: fp(3200), P99: fp(3371.24),
				Std: fp(297.93), Count: ip(20), Sum: fp(52414.29)},
			{Tag: "output_sequence_length", Header: "Output Sequence Length", Unit: "tokens", DisplayOrder: 600, Integer: true,
				Avg: fp(42.5), Min: fp(24), Max: fp(65), P50: fp(47), Std: fp(7.21), Count: ip(4), Sum: fp(170)},
			{Tag: "request_throughput", Header: "Request Throughput", Unit: "requests/sec", DisplayOrder: 900, Avg: fp(1.45)},
			{Tag: "request_count", Header: "Request Count", Unit: "requests", DisplayOrder: 1100, Avg: fp(20)},
			{Tag: "min_request_timestamp", Unit: "ns", Flags: sdk.FlagInternal, Avg: fp(1)},
			{Tag: "stream_setup_latency", Unit: "ms", Flags: sdk.FlagExperimental, Avg: fp(1), Min: fp(1), P50: fp(1)},
			{Tag: "adj_request_latency", Header: "Adjusted", Unit: "ms",
				Avg: fp(math.Inf(1)), Max: fp(math.Inf(1)), P50: fp(2568.73), Std: fp(math.NaN()), Count: ip(21)},
			{Tag: "benchmark_duration", Header: "Benchmark Duration", Unit: "sec", Flags: sdk.FlagNoConsole, Avg: fp(13.8)},
		},
		StartTime: time.Date(2025, 10, 17, 20, 22, 8, 939332000, time.UTC),
		EndTime:   time.Date(2025, 10, 17, 20, 22, 24, 0, time.UTC),
	}
}

func sampleContext(dir string) *sdk.ExportContext {
	return &sdk.ExportContext{
		ArtifactDir:   dir,
		Files:         sdk.ArtifactFiles{SummaryJSON: "profile_export_aiperf.json"},
		Results:       sampleResults(),
		AIPerfVersion: "0.1.0-go",
		BenchmarkID:   "0123456789ab",
		CLICommand:    "aiperf profile --model 'm'",
		RandomSeed:    &seed42,
		InputConfig: map[string]any{
			"phases":   []any{map[string]any{"concurrency": 4, "type": "concurrency", "name": "profiling", "kind": "profiling"}},
			"endpoint": map[string]any{"urls": []any{"http://h<1>"}, "streaming": true, "type": "chat"},
			"models":   map[string]any{"items": []any{map[string]any{"name": "m"}}},
			"datasets": []any{map[string]any{"prompts": map[string]any{"isl": map[string]any{"mean": 64.0}},
				"entries": 8, "name": "main", "type": "synthetic"}},
			"otel":    map[string]any{},
			"zz_ours": 1,
		},
	}
}

var seed42 = int64(42)

func TestExportWritesFileInAIPerfShape(t *testing.T) {
	dir := t.TempDir()
	files, err := New().Export(context.Background(), sampleContext(dir))
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "profile_export_aiperf.json")
	if len(files) != 1 || files[0].Path != want || files[0].Label != "JSON Export" {
		t.Fatalf("files = %+v", files)
	}
	data, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(data) {
		t.Fatalf("invalid JSON:\n%s", data)
	}
	gotKeys := jsontest.ObjectKeys(t, data)
	// AIPerf 0.13's order: the metrics JsonExportData declares (in its
	// order), the run facts, then the other metrics in result order.
	wantKeys := []string{"schema_version", "aiperf_version", "benchmark_id",
		"request_throughput", "request_latency", "request_count", "output_sequence_length", "benchmark_duration",
		"telemetry_data", "input_config", "run_info", "was_cancelled", "is_complete", "error_summary",
		"start_time", "end_time", "adj_request_latency"}
	if strings.Join(gotKeys, ",") != strings.Join(wantKeys, ",") {
		t.Fatalf("keys\n got %v\nwant %v", gotKeys, wantKeys)
	}

	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		key  string
		want string
	}{
		{"schema_version", `"1.4"`},
		{"start_time", `"2025-10-17T20:22:08.939332"`},
		{"end_time", `"2025-10-17T20:22:24"`},
		{"was_cancelled", `false`},
		{"is_complete", `true`},
		{"error_summary", `[]`},
		{"run_info", `{"benchmark_id":"0123456789ab","random_seed":42,"trial":0,"cli_command":"aiperf profile --model 'm'"}`},
		{"telemetry_data", `{"summary":{"endpoints_configured":[],"endpoints_successful":[],` +
			`"start_time":"2025-10-17T20:22:08.939332","end_time":"2025-10-17T20:22:24"},"endpoints":{},"error_summary":[]}`},
		// AIPerf's section and field order, Python floats, unknown keys last.
		{"input_config", `{"models":{"items":[{"name":"m"}]},"endpoint":{"urls":["http://h<1>"],"type":"chat","streaming":true},` +
			`"datasets":[{"name":"main","type":"synthetic","entries":8,"prompts":{"isl":{"mean":64.0}}}],` +
			`"phases":[{"name":"profiling","kind":"profiling","type":"concurrency","concurrency":4}],"otel":{},"zz_ours":1}`},
	}
	for _, tc := range tests {
		var compact bytes.Buffer
		if err := json.Compact(&compact, doc[tc.key]); err != nil {
			t.Fatalf("%s: %v", tc.key, err)
		}
		if got := compact.String(); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.key, got, tc.want)
		}
	}
}

func TestMetricBlocks(t *testing.T) {
	data, err := Render(sampleContext(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tag      string
		wantKeys string
		// wantText are exact compacted blocks: they pin int-vs-float literals.
		// Every stat is a float, integer metrics' min/max/sum included
		// (AIPerf's 64.0); count is an int.
		wantText string
	}{
		{"request_latency", "unit,avg,p1,p5,p10,p25,p50,p75,p90,p95,p99,min,max,std,count,sum",
			`{"unit":"ms","avg":2620.71,"p1":2150.0,"p5":2200.0,"p10":2300.0,"p25":2400.0,"p50":2568.73,"p75":2700.0,"p90":3000.0,"p95":3200.0,"p99":3371.24,"min":2145.06,"max":3411.1,"std":297.93,"count":20,"sum":52414.29}`},
		{"output_sequence_length", "unit,avg,p50,min,max,std,count,sum",
			`{"unit":"tokens","avg":42.5,"p50":47.0,"min":24.0,"max":65.0,"std":7.21,"count":4,"sum":170.0}`},
		{"request_throughput", "unit,avg", `{"unit":"requests/sec","avg":1.45}`},
		{"request_count", "unit,avg", `{"unit":"requests","avg":20.0}`},
		// Non-finite stats vanish instead of producing invalid JSON.
		{"adj_request_latency", "unit,p50,count", `{"unit":"ms","p50":2568.73,"count":21}`},
	}
	for _, tc := range tests {
		t.Run(tc.tag, func(t *testing.T) {
			raw, ok := doc[tc.tag]
			if !ok {
				t.Fatalf("missing %s", tc.tag)
			}
			if got := strings.Join(jsontest.ObjectKeys(t, raw), ","); got != tc.wantKeys {
				t.Errorf("keys %s, want %s", got, tc.wantKeys)
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, raw); err != nil {
				t.Fatal(err)
			}
			if compact.String() != tc.wantText {
				t.Errorf("block\n got %s\nwant %s", compact.String(), tc.wantText)
			}
		})
	}
	for _, hidden := range []string{"min_request_timestamp", "stream_setup_latency"} {
		if _, ok := doc[hidden]; ok {
			t.Errorf("%s must be excluded (INTERNAL/EXPERIMENTAL)", hidden)
		}
	}
}

func TestLayoutIsIndentedAndUnescaped(t *testing.T) {
	data, err := Render(sampleContext(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, want := range []string{
		"{\n  \"schema_version\": \"1.4\",\n  \"aiperf_version\": \"0.1.0-go\",\n",
		"  \"request_throughput\": {\n    \"unit\": \"requests/sec\",\n    \"avg\": 1.45\n  },\n",
		"  \"input_config\": {\n    \"models\": {\n      \"items\": [\n        {\n          \"name\": \"m\"\n        }\n      ]\n    },\n" +
			"    \"endpoint\": {\n      \"urls\": [\n        \"http://h<1>\"\n      ],\n",
		"    \"otel\": {},\n",
		"  \"error_summary\": [],\n",
		"  \"end_time\": \"2025-10-17T20:22:24\",\n  \"adj_request_latency\": {\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in\n%s", want, text)
		}
	}
}

func TestErrorSummaryAndCancelled(t *testing.T) {
	ec := sampleContext(t.TempDir())
	ec.Results.WasCancelled = true
	ec.Results.ErrorSummary = []sdk.ErrorCount{
		{ErrorDetails: sdk.ErrorDetails{Code: 499, Type: "RequestCancellationError", Message: "Request was cancelled after 0.000 seconds"}, Count: 81},
		{ErrorDetails: sdk.ErrorDetails{Type: "ClientConnectorError", Message: "connection refused"}, Count: 3},
	}
	data, err := Render(ec)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		WasCancelled     bool              `json:"was_cancelled"`
		IsComplete       *bool             `json:"is_complete"`
		IncompleteReason string            `json:"incomplete_reason"`
		ErrorSummary     []json.RawMessage `json:"error_summary"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if !doc.WasCancelled {
		t.Error("was_cancelled should be true")
	}
	if doc.IsComplete == nil || *doc.IsComplete || doc.IncompleteReason != IncompleteReason {
		t.Errorf("a cancelled run: is_complete %v, incomplete_reason %q", doc.IsComplete, doc.IncompleteReason)
	}
	want := []string{
		`{"error_details":{"code":499,"type":"RequestCancellationError","message":"Request was cancelled after 0.000 seconds"},"count":81}`,
		// Code 0 (no HTTP status) is omitted, like AIPerf's None.
		`{"error_details":{"type":"ClientConnectorError","message":"connection refused"},"count":3}`,
	}
	if len(doc.ErrorSummary) != len(want) {
		t.Fatalf("got %d errors", len(doc.ErrorSummary))
	}
	for i, raw := range doc.ErrorSummary {
		var c bytes.Buffer
		_ = json.Compact(&c, raw)
		if c.String() != want[i] {
			t.Errorf("error %d\n got %s\nwant %s", i, c.String(), want[i])
		}
	}
}

func TestNilResultsAndDefaults(t *testing.T) {
	dir := t.TempDir()
	ec := &sdk.ExportContext{ArtifactDir: filepath.Join(dir, "nested", "run")}
	files, err := New().Export(context.Background(), ec)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(files[0].Path) != DefaultFileName {
		t.Fatalf("path %s", files[0].Path)
	}
	data, _ := os.ReadFile(files[0].Path)
	got := strings.Join(jsontest.ObjectKeys(t, data), ",")
	if got != "schema_version,telemetry_data,run_info,was_cancelled,is_complete,error_summary" {
		t.Fatalf("keys %s", got)
	}
	entries, _ := os.ReadDir(filepath.Dir(files[0].Path))
	if len(entries) != 1 {
		t.Fatalf("temporary file left behind: %v", entries)
	}
}

func TestBadInput(t *testing.T) {
	tests := []struct {
		name string
		ec   *sdk.ExportContext
		want string
	}{
		{"nil context", nil, "nil export context"},
		{"empty tag", &sdk.ExportContext{Results: &sdk.Results{Metrics: []sdk.MetricResult{{Header: "X", Unit: "ms"}}}}, `metric #0 ("X") has an empty tag`},
		{"unencodable config", &sdk.ExportContext{InputConfig: map[string]any{"x": func() {}}}, "input_config"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.ec != nil {
				tc.ec.ArtifactDir = t.TempDir()
			}
			_, err := New().Export(context.Background(), tc.ec)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want containing %q", err, tc.want)
			}
		})
	}
}

// Non-finite floats in the configuration become null, as AIPerf scrubs them.
func TestNonFiniteConfigIsNull(t *testing.T) {
	ec := &sdk.ExportContext{InputConfig: map[string]any{"phases": []any{map[string]any{"grace_period": math.Inf(1)}}}}
	data, err := Render(ec)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(data) || !strings.Contains(string(data), `"grace_period": null`) {
		t.Fatalf("got\n%s", data)
	}
}

func TestWarmupMetricsAndPhaseFiles(t *testing.T) {
	dir := t.TempDir()
	ec := sampleContext(dir)
	warm := sampleResults()
	warm.Metrics[0].Avg = fp(99.5) // request_latency
	ec.Warmup = warm
	data, err := Render(ec)
	if err != nil {
		t.Fatal(err)
	}
	keys := jsontest.ObjectKeys(t, data)
	at := func(k string) int {
		for i, key := range keys {
			if key == k {
				return i
			}
		}
		t.Fatalf("no %s in %v", k, keys)
		return -1
	}
	if at("warmup_metrics") != at("end_time")+1 {
		t.Errorf("warmup_metrics must follow end_time (AIPerf's order): %v", keys)
	}
	var doc map[string]map[string]map[string]any
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, data)
	}
	if err := json.Unmarshal([]byte(`{"w":`+string(raw["warmup_metrics"])+`}`), &doc); err != nil {
		t.Fatalf("warmup_metrics is not an object of metric blocks: %v", err)
	}
	w := doc["w"]
	if w["request_latency"]["avg"] != 99.5 || w["request_latency"]["unit"] != "ms" {
		t.Errorf("warmup request_latency = %v, want the warmup phase's block", w["request_latency"])
	}
	if _, hidden := w["min_request_timestamp"]; hidden {
		t.Error("warmup_metrics carries an INTERNAL metric")
	}
	// Nested blocks are indented one level deeper than top-level ones.
	if !strings.Contains(string(data), "\n  \"warmup_metrics\": {\n    \"request_latency\": {\n      \"unit\": \"ms\",") {
		t.Errorf("warmup_metrics layout:\n%s", data)
	}

	// A phase's own file: no telemetry_data, no warmup_metrics, same name.
	phaseDir := filepath.Join(dir, "phases", "warmup")
	if err := os.MkdirAll(phaseDir, 0o755); err != nil {
		t.Fatal(err)
	}
	pec := *ec
	pec.ArtifactDir, pec.Results, pec.Warmup = phaseDir, warm, nil
	pec.Phase = &sdk.PhaseInfo{Name: "warmup", Kind: "warmup", ProfilingIndex: -1}
	files, err := New().ExportPhase(context.Background(), &pec)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Key != ManifestKey || files[0].Path != filepath.Join(phaseDir, "profile_export_aiperf.json") {
		t.Fatalf("ExportPhase wrote %+v", files)
	}
	pdata, err := os.ReadFile(files[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range jsontest.ObjectKeys(t, pdata) {
		if k == "telemetry_data" || k == "warmup_metrics" {
			t.Errorf("a phase file carries %s", k)
		}
	}
	if !strings.Contains(string(pdata), `"avg": 99.5`) {
		t.Error("the phase file does not carry the phase's results")
	}
}
