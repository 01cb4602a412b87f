package wasmloader

import (
	"context"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/registry"
)

// The adapters deliver settings exactly as the core's registry.ConfigSink.
var (
	_ registry.ConfigSink = (*endpoint)(nil)
	_ registry.ConfigSink = (*recordProcessor)(nil)
	_ registry.ConfigSink = (*datasetLoader)(nil)
)

func tags(specs []sdk.MetricSpec) string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Tag)
	}
	return strings.Join(out, ",")
}

func TestMetricExampleDeclaresItsMetrics(t *testing.T) {
	p := loadProcessor(t, newLoader(t, Options{PoolSize: 1}), entry(sdk.CategoryRecordProcessor, "go_wasm_metric", metricWasm))
	want := []sdk.MetricSpec{
		{Tag: "answer_characters", Header: "Answer Characters", Unit: "characters", Integer: true},
		{Tag: "characters_per_token", Header: "Characters Per Token", Unit: "characters/token"},
	}
	if got := p.Metrics(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Metrics = %+v\nwant %+v", got, want)
	}
	// It has no settings: the guest refuses any, naming the entry.
	err := p.Configure(context.Background(), []byte(`{"x": 1}`))
	want2 := `wasm plugin record_processor.go_wasm_metric: Configure: plugin record_processor.go_wasm_metric takes no settings (got "x")`
	if err == nil || !strings.Contains(err.Error(), want2) {
		t.Fatalf("Configure err = %v, want %q", err, want2)
	}
	if err := p.Configure(context.Background(), []byte(`{}`)); err != nil {
		t.Fatalf("empty settings: %v", err)
	}
}

// Settings are per instance, like the run info: the loader replays
// Configure and Init on every instance of the pool.
func TestConfigureAndInitReplayOnEveryInstance(t *testing.T) {
	p := loadProcessor(t, newLoader(t, Options{PoolSize: 4}), entry(sdk.CategoryRecordProcessor, "misbehave", misbehaveWasm))
	ctx := context.Background()
	if got := tags(p.Metrics()); got != "answer_bytes,streaming_seen,request_id_len,file_bytes" {
		t.Fatalf("metrics at load: %s", got)
	}
	if err := p.Configure(ctx, []byte(`{"prefix": "mb_"}`)); err != nil {
		t.Fatal(err)
	}
	if got := tags(p.Metrics()); got != "mb_answer_bytes,mb_streaming_seen,mb_request_id_len,mb_file_bytes" {
		t.Errorf("metrics after Configure: %s", got)
	}
	if err := p.Init(ctx, sdk.RunInfo{Streaming: true, Models: []string{"m"}, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	const workers, perWorker = 8, 25
	var wg sync.WaitGroup
	errs := make(chan string, workers*perWorker)
	for range workers {
		wg.Go(func() {
			for range perWorker {
				rm, err := p.Process(&sdk.ParsedRecord{Record: &sdk.RequestRecord{}, Responses: []sdk.ParsedResponse{{Text: "abcd"}}})
				switch {
				case err != nil:
					errs <- err.Error()
				case rm.Values["mb_answer_bytes"].Scalar != 4:
					errs <- "an instance never saw Configure"
				case rm.Values["mb_streaming_seen"].Scalar != 1:
					errs <- "an instance never saw Init"
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

func TestLifecycleErrors(t *testing.T) {
	ctx := context.Background()
	p := loadProcessor(t, newLoader(t, Options{PoolSize: 1}), entry(sdk.CategoryRecordProcessor, "misbehave", misbehaveWasm))
	// A failed Configure may have decoded part of its settings ("prefix"
	// comes before the unknown key): that instance is discarded and the
	// call forgotten, so later instances start from the defaults.
	err := p.Configure(ctx, []byte(`{"prefix": "bad_", "nope": 1}`))
	if err == nil || !strings.Contains(err.Error(), `wasm plugin record_processor.misbehave: Configure: unknown setting "nope"`) {
		t.Fatalf("unknown key: err = %v", err)
	}
	rm, err := p.Process(&sdk.ParsedRecord{Record: &sdk.RequestRecord{}, Responses: []sdk.ParsedResponse{{Text: "ab"}}})
	if err != nil || rm.Values["answer_bytes"].Scalar != 2 {
		t.Fatalf("after a failed Configure: %+v, %v; want the default tags", rm, err)
	}
	if got := tags(p.Metrics()); got != "answer_bytes,streaming_seen,request_id_len,file_bytes" {
		t.Errorf("metrics after a failed Configure: %s", got)
	}
	// The extended run info crosses.
	err = p.Init(ctx, sdk.RunInfo{Seed: 7})
	if err == nil || !strings.Contains(err.Error(), "wasm plugin record_processor.misbehave: InitRecordProcessor: seed 7 without models") {
		t.Fatalf("Init(seed, no models): err = %v", err)
	}
	// A record processor validates after Init: a bad path passes Configure
	// and fails Init.
	if err := p.Configure(ctx, []byte(`{"path": "v2/generate"}`)); err != nil {
		t.Fatal(err)
	}
	err = p.Init(ctx, sdk.RunInfo{})
	if err == nil || !strings.Contains(err.Error(), `wasm plugin record_processor.misbehave: InitRecordProcessor: path "v2/generate" must start with '/'`) {
		t.Fatalf("Validate after Init: err = %v", err)
	}
	if err := p.Configure(ctx, []byte(`{"path": "/v2/generate"}`)); err != nil {
		t.Fatal(err)
	}
	if err := p.Init(ctx, sdk.RunInfo{Streaming: true}); err != nil {
		t.Fatal(err)
	}
	if rm, err := p.Process(&sdk.ParsedRecord{Record: &sdk.RequestRecord{}}); err != nil || rm.Values["streaming_seen"].Scalar != 1 {
		t.Fatalf("after the lifecycle: %+v, %v", rm, err)
	}
}

func TestEndpointMetadataFollowsConfigure(t *testing.T) {
	v, err := newLoader(t, Options{PoolSize: 2}).Load(context.Background(), entry(sdk.CategoryEndpoint, "misbehave", misbehaveWasm))
	if err != nil {
		t.Fatal(err)
	}
	ep := v.(*endpoint)
	if err := ep.Configure(context.Background(), []byte(`{"path": "/v9/generate"}`)); err != nil {
		t.Fatal(err)
	}
	if got := ep.Metadata().EndpointPath; got != "/v9/generate" {
		t.Fatalf("Metadata after Configure: path %q", got)
	}
}

func TestConfigureOfALegacyGuest(t *testing.T) {
	var logs syncBuffer
	l := newLoader(t, Options{PoolSize: 1, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	p := loadProcessor(t, l, entry(sdk.CategoryRecordProcessor, "old", rawLegacyWasm))
	err := p.Configure(context.Background(), []byte(`{"x": 1}`))
	want := "wasm plugin record_processor.old: Configure: the plugin takes no settings: it does not answer Configure (built against an older plugin SDK)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if !strings.Contains(logs.String(), "record processor plugin declares no metrics") {
		t.Errorf("no warning about the missing metrics:\n%s", logs.String())
	}
}
