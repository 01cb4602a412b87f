package grpcloader

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func TestRecordProcessorAdapter(t *testing.T) {
	l, _ := newLoader(t, Options{})
	rp := mustLoad[*RecordProcessor](t, l, entry(sdk.CategoryRecordProcessor, "tp", testPluginBin))
	ctx := context.Background()
	err := rp.Init(ctx, sdk.RunInfo{})
	if err == nil || !strings.Contains(err.Error(), "plugin record_processor.tp: InitRecordProcessor: run info has no endpoint path") {
		t.Fatalf("Init(empty) err = %v", err)
	}
	// The extended run info crosses: a seed without models is refused.
	err = rp.Init(ctx, sdk.RunInfo{Endpoint: sdk.EndpointMetadata{EndpointPath: "/v1/x"}, Seed: 7})
	if err == nil || !strings.Contains(err.Error(), "seed 7 without models") {
		t.Fatalf("Init(seed, no models) err = %v", err)
	}
	if err := rp.Init(ctx, sdk.RunInfo{Endpoint: sdk.EndpointMetadata{EndpointPath: "/v1/x"}, Streaming: true,
		Models: []string{"m"}, Seed: 7, ArtifactDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	wantSpecs := []sdk.MetricSpec{
		{Tag: "text_chars", Header: "Text Characters", Unit: "characters", Integer: true},
		{Tag: "turn_index", Header: "Turn Index", Unit: "turns", Integer: true, DisplayOrder: -1},
		{Tag: "streaming_on", Header: "Streaming On", Unit: "flag", List: true, Flags: sdk.FlagNoConsole, Requires: []string{"text_chars"}},
	}
	specs := rp.Metrics()
	if !reflect.DeepEqual(specs, wantSpecs) {
		t.Fatalf("Metrics = %+v\nwant %+v", specs, wantSpecs)
	}
	specs[2].Requires[0] = "mutated" // the caller's copy
	if rp.Metrics()[2].Requires[0] != "text_chars" {
		t.Error("Metrics returned the adapter's own slices")
	}
	rec := &sdk.ParsedRecord{Record: &sdk.RequestRecord{TurnIndex: 3}, InputTokens: intp(11),
		Responses: []sdk.ParsedResponse{{Text: "abc"}, {Text: "defg"}}}
	got, err := rp.Process(rec)
	if err != nil {
		t.Fatal(err)
	}
	if got.Record != rec.Record || *got.InputTokens != 11 {
		t.Errorf("record/input tokens not carried: %+v", got)
	}
	if v := got.Values["text_chars"]; v.Scalar != 7 || v.IsList {
		t.Errorf("text_chars = %+v, want 7", v)
	}
	if v := got.Values["turn_index"]; v.Scalar != 3 {
		t.Errorf("turn_index = %+v, want 3", v)
	}
	if v := got.Values["streaming_on"]; !v.IsList || len(v.List) != 1 || v.List[0] != 1 {
		t.Errorf("streaming_on = %+v, want list [1]", v)
	}
}

func TestDatasetLoaderAdapter(t *testing.T) {
	l, _ := newLoader(t, Options{})
	dl := mustLoad[*DatasetLoader](t, l, entry(sdk.CategoryCustomDataset, "tp", testPluginBin))
	dir := t.TempDir()
	path := filepath.Join(dir, "prompts.tp")
	if err := os.WriteFile(path, []byte("first prompt\nsecond prompt\nthird prompt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !dl.CanLoad(path) || dl.CanLoad(filepath.Join(dir, "prompts.txt")) {
		t.Fatal("CanLoad should accept .tp files only")
	}
	convs, err := dl.Load(context.Background(), path, sdk.DatasetOptions{OutputTokensMean: 64})
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 3 || convs[2].SessionID != "s2" || convs[2].Turns[0].Texts[0] != "third prompt" || *convs[2].Turns[0].MaxTokens != 64 {
		t.Fatalf("conversations = %+v", convs)
	}
	_, err = dl.Load(context.Background(), filepath.Join(dir, "missing.tp"), sdk.DatasetOptions{})
	if err == nil || !strings.Contains(err.Error(), "plugin custom_dataset_loader.tp: LoadDataset:") || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("missing file: err = %v", err)
	}
}

func TestDataExporterAdapter(t *testing.T) {
	l, _ := newLoader(t, Options{})
	ex := mustLoad[*DataExporter](t, l, entry(sdk.CategoryDataExporter, "tp", testPluginBin))
	dir := t.TempDir()
	avg := 12.5
	ec := &sdk.ExportContext{ArtifactDir: dir, Results: &sdk.Results{
		StartTime: time.Unix(1700000000, 0),
		Metrics: []sdk.MetricResult{
			{Tag: "time_to_first_token", Header: "Time to First Token", Unit: "ms", Flags: sdk.FlagStreamingTokensOnly, DisplayOrder: 100, Avg: &avg},
			{Tag: "request_count", Header: "Request Count", Unit: "requests", DisplayOrder: 1000},
		}}}
	files, err := ex.Export(context.Background(), ec)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "testplugin_export.txt")
	if len(files) != 1 || files[0].Path != want || files[0].Label != "Testplugin Export" {
		t.Fatalf("files = %+v", files)
	}
	b, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != "time_to_first_token|Time to First Token|5|100\nrequest_count|Request Count|0|1000\n" {
		t.Errorf("export file = %q", got)
	}
	_, err = ex.Export(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "plugin data_exporter.tp: Export: export context is nil") {
		t.Errorf("nil context: err = %v", err)
	}
}

// The telemetry collectors cross the protocol: the source name (after
// Configure), GPU readings with their metrics, a scrape's body and type.
func TestTelemetryAdapters(t *testing.T) {
	l, _ := newLoader(t, Options{})
	gpu := mustLoad[*GPUCollector](t, l, entry(sdk.CategoryGPUTelemetry, "tp", testPluginBin))
	if err := gpu.Configure(context.Background(), []byte(`{"path": "/rack1"}`)); err != nil {
		t.Fatal(err)
	}
	if src := gpu.Source(); src != "test://gpus/rack1" {
		t.Errorf("Source = %q", src)
	}
	got, err := gpu.Sample(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []sdk.GPUReading{
		{Index: 0, UUID: "GPU-0", Name: "Test GPU", Device: "nvidia0", Metrics: map[string]float64{"nvidia_power_usage": 250.5, "nvidia_gpu_utilization": 87}},
		{Index: 1, UUID: "GPU-1", Name: "Test GPU", Device: "nvidia1", Metrics: map[string]float64{}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Sample = %+v\nwant %+v", got, want)
	}

	sm := mustLoad[*ServerMetricsCollector](t, l, entry(sdk.CategoryServerMetrics, "tp", testPluginBin))
	sc, err := sm.Scrape(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if string(sc.Body) != "# TYPE test_requests_total counter\ntest_requests_total 42\n" || sc.ContentType != "text/plain; version=0.0.4" {
		t.Errorf("Scrape = %q %q", sc.Body, sc.ContentType)
	}
}

// One process serves every source of a binary: each collector's calls run
// with its own settings, even when another source configured the process
// after it.
func TestTelemetrySourcesShareAProcess(t *testing.T) {
	l, _ := newLoader(t, Options{})
	a := mustLoad[*GPUCollector](t, l, entry(sdk.CategoryGPUTelemetry, "tp", testPluginBin))
	b := mustLoad[*GPUCollector](t, l, entry(sdk.CategoryGPUTelemetry, "tp", testPluginBin))
	ctx := context.Background()
	if err := a.Configure(ctx, []byte(`{"path": "/x", "url": "http://node-a:9400/metrics"}`)); err != nil {
		t.Fatal(err)
	}
	if err := b.Configure(ctx, []byte(`{"path": "/x", "url": "http://node-b:9400/metrics"}`)); err != nil {
		t.Fatal(err)
	}
	if a.PluginInfo().PID != b.PluginInfo().PID {
		t.Fatal("the two sources run in separate processes; the test needs one")
	}
	if sa, sb := a.Source(), b.Source(); sa != "http://node-a:9400/metrics" || sb != "http://node-b:9400/metrics" {
		t.Errorf("sources %q, %q", sa, sb)
	}
}
