package grpcloader

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/registry"
)

// The adapters deliver settings exactly as the core's registry.ConfigSink.
var (
	_ registry.ConfigSink = (*Endpoint)(nil)
	_ registry.ConfigSink = (*RecordProcessor)(nil)
	_ registry.ConfigSink = (*DatasetLoader)(nil)
	_ registry.ConfigSink = (*DataExporter)(nil)
)

func tags(specs []sdk.MetricSpec) string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Tag)
	}
	return strings.Join(out, ",")
}

// Settings reach the shared process per entry, and what Describe reports
// (endpoint metadata, declared metrics) follows them.
func TestConfigureDeliversSettingsAndRedescribes(t *testing.T) {
	l, _ := newLoader(t, Options{})
	ep := mustLoad[*Endpoint](t, l, entry(sdk.CategoryEndpoint, "tp", testPluginBin))
	rp := mustLoad[*RecordProcessor](t, l, entry(sdk.CategoryRecordProcessor, "tp_metrics", testPluginBin))
	ctx := context.Background()
	if ep.Metadata().EndpointPath != "/v1/test" || tags(rp.Metrics()) != "text_chars,turn_index,streaming_on" {
		t.Fatalf("at load: path %q, metrics %s", ep.Metadata().EndpointPath, tags(rp.Metrics()))
	}
	if err := ep.Configure(ctx, []byte(`{"path": "/v2/test"}`)); err != nil {
		t.Fatal(err)
	}
	if got := ep.Metadata().EndpointPath; got != "/v2/test" {
		t.Errorf("Metadata after Configure: path %q, want /v2/test", got)
	}
	if err := rp.Configure(ctx, []byte(`{"metric_prefix": "tp_"}`)); err != nil {
		t.Fatal(err)
	}
	if got := tags(rp.Metrics()); got != "tp_text_chars,tp_turn_index,tp_streaming_on" {
		t.Errorf("Metrics after Configure = %s", got)
	}
	if err := rp.Init(ctx, sdk.RunInfo{Endpoint: ep.Metadata()}); err != nil {
		t.Fatal(err)
	}
	rm, err := rp.Process(&sdk.ParsedRecord{Record: &sdk.RequestRecord{}, Responses: []sdk.ParsedResponse{{Text: "abc"}}})
	if err != nil || rm.Values["tp_text_chars"].Scalar != 3 {
		t.Fatalf("Process after Configure = %+v, %v", rm, err)
	}
	// The endpoint entry's adapter sees the shared process's latest answer.
	if got := ep.Metadata().EndpointPath; got != "/v2/test" {
		t.Errorf("endpoint path after the processor's Init: %q", got)
	}
}

func TestConfigureErrorsNameThePlugin(t *testing.T) {
	l, _ := newLoader(t, Options{})
	rp := mustLoad[*RecordProcessor](t, l, entry(sdk.CategoryRecordProcessor, "tp", testPluginBin))
	ex := mustLoad[*DataExporter](t, l, entry(sdk.CategoryDataExporter, "tp_export", testPluginBin))
	ctx := context.Background()
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"unknown key", func() error { return rp.Configure(ctx, []byte(`{"metric_prefix": "x", "nope": 1}`)) },
			`plugin record_processor.tp: Configure: unknown setting "nope"`},
		{"wrong type", func() error { return ex.Configure(ctx, []byte(`{"path": 3}`)) },
			`plugin data_exporter.tp_export: Configure: setting "path": number is not a string`},
		{"not an object", func() error { return ex.Configure(ctx, []byte(`"path"`)) },
			"plugin data_exporter.tp_export: Configure: "},
		// Validate runs after Init for a record processor: the bad path is
		// accepted by Configure and refused by Init.
		{"validated at Init", func() error {
			if err := rp.Configure(ctx, []byte(`{"path": "relative"}`)); err != nil {
				return err
			}
			return rp.Init(ctx, sdk.RunInfo{Endpoint: sdk.EndpointMetadata{EndpointPath: "/v1/x"}})
		}, `plugin record_processor.tp: InitRecordProcessor: path "relative" must start with '/'`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestConfigureOfAPluginWithoutSettings(t *testing.T) {
	t.Setenv("AIPERF_PLUGIN_ENV_AIPERF_TESTPLUGIN_NO_SETTINGS", "1")
	l, _ := newLoader(t, Options{})
	rp := mustLoad[*RecordProcessor](t, l, entry(sdk.CategoryRecordProcessor, "bare", testPluginBin))
	ctx := context.Background()
	err := rp.Configure(ctx, []byte(`{"metric_prefix": "x"}`))
	if err == nil || !strings.Contains(err.Error(), `plugin record_processor.bare: Configure: plugin record_processor.bare takes no settings (got "metric_prefix")`) {
		t.Fatalf("err = %v", err)
	}
	if err := rp.Configure(ctx, []byte(`{}`)); err != nil {
		t.Fatalf("empty settings: %v", err)
	}
	// Without Init the call is a no-op, and the metrics stay declared.
	if err := rp.Init(ctx, sdk.RunInfo{}); err != nil {
		t.Fatalf("Init of a processor without Init: %v", err)
	}
	if got := tags(rp.Metrics()); got != "text_chars,turn_index,streaming_on" {
		t.Errorf("metrics = %s", got)
	}
}

func TestConfigureOfALegacyPlugin(t *testing.T) {
	t.Setenv("AIPERF_PLUGIN_ENV_AIPERF_TESTPLUGIN_LEGACY", "1")
	l, _ := newLoader(t, Options{})
	ep := mustLoad[*Endpoint](t, l, entry(sdk.CategoryEndpoint, "old", testPluginBin))
	err := ep.Configure(context.Background(), []byte(`{"path": "/x"}`))
	want := "plugin endpoint.old: Configure: the plugin takes no settings: it does not answer Configure (built against an older plugin SDK)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want %q", err, want)
	}
}

func TestLifecycleCallsOnADeadProcess(t *testing.T) {
	l, _ := newLoader(t, Options{})
	rp := mustLoad[*RecordProcessor](t, l, entry(sdk.CategoryRecordProcessor, "tp", testPluginBin))
	before := rp.Metrics()
	if err := rp.proc.kill(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for name, err := range map[string]error{
		"Configure":           rp.Configure(ctx, []byte(`{"metric_prefix": "x"}`)),
		"InitRecordProcessor": rp.Init(ctx, sdk.RunInfo{}),
	} {
		if err == nil || !strings.Contains(err.Error(), "plugin record_processor.tp: "+name+": the plugin process") ||
			!strings.Contains(err.Error(), "has exited") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	if tags(rp.Metrics()) != tags(before) {
		t.Errorf("metrics changed after the process died: %s", tags(rp.Metrics()))
	}
}

// A processor that declares no metrics still loads, with a warning.
func TestLoadWarnsAboutAProcessorWithoutMetrics(t *testing.T) {
	t.Setenv("AIPERF_PLUGIN_ENV_AIPERF_TESTPLUGIN_NO_METRICS", "1")
	l, logs := newLoader(t, Options{})
	rp := mustLoad[*RecordProcessor](t, l, entry(sdk.CategoryRecordProcessor, "quiet", testPluginBin))
	if len(rp.Metrics()) != 0 {
		t.Fatalf("metrics = %+v", rp.Metrics())
	}
	logs.waitFor(t, "record processor plugin declares no metrics", "plugin=record_processor.quiet")
}

// grpcplugin.Serve closes an io.Closer plugin when the loader stops it.
func TestCloseStopsThePluginGracefully(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "closed")
	t.Setenv("AIPERF_PLUGIN_ENV_AIPERF_TESTPLUGIN_CLOSE_MARK", mark)
	l := New(Options{})
	mustLoad[*Endpoint](t, l, entry(sdk.CategoryEndpoint, "tp", testPluginBin))
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(mark); err != nil || string(b) != "closed\n" {
		t.Fatalf("the plugin's Close did not run: %q, %v", b, err)
	}
}
