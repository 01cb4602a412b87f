package pythongrpc_test

import (
	"context"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestConfigure checks the Configure call over the raw gRPC client: the
// record processor decodes its settings by the rule every plugin follows
// (sdk.DecodeConfig's), the endpoint takes none.
func TestConfigure(t *testing.T) {
	p := startPlugin(t)
	tests := []struct {
		name     string
		category string
		settings string
		want     string // the status message; "" means accepted
	}{
		{"processor setting", "record_processor", `{"count_reasoning": false}`, ""},
		{"processor empty object", "record_processor", `{}`, ""},
		{"processor no settings", "record_processor", ``, ""},
		{"processor null", "record_processor", `null`, ""},
		{"endpoint empty object", "endpoint", `{}`, ""},
		{"unknown key", "record_processor", `{"count_reasoning": true, "colour": "red"}`, `Configure: unknown setting "colour"`},
		{"wrong type", "record_processor", `{"count_reasoning": "yes"}`, `Configure: setting "count_reasoning": string is not a bool`},
		{"not an object", "record_processor", `[true]`, "Configure: settings are not a JSON object: got a JSON array"},
		{"broken JSON", "record_processor", `{"count_reasoning":`, "Configure: settings are not a JSON object"},
		{"endpoint takes none", "endpoint", `{"b": 1, "a": 2}`, `Configure: plugin endpoint.entry takes no settings (got "a", "b")`},
		{"category not served", "data_exporter", `{}`,
			`Configure: this plugin does not implement category "data_exporter" (it implements: endpoint, record_processor)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := p.rpc.Configure(callCtx(t), &pluginpb.ConfigureRequest{Category: tc.category, Name: "entry",
				ConfigJson: []byte(tc.settings)})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			st := status.Convert(err)
			if st.Code() != codes.InvalidArgument || len(st.Message()) < len(tc.want) || st.Message()[:len(tc.want)] != tc.want {
				t.Fatalf("err = %v, want InvalidArgument %q", err, tc.want)
			}
		})
	}
}

// TestConfigureChangesTheCount: count_reasoning adds the reasoning's words,
// and a refused Configure leaves the settings as they were.
func TestConfigureChangesTheCount(t *testing.T) {
	p := startPlugin(t)
	ctx := callCtx(t)
	if _, err := p.rpc.InitRecordProcessor(ctx, pluginpb.FromRunInfo(sdk.RunInfo{})); err != nil {
		t.Fatal(err)
	}
	rec := pluginpb.FromParsedRecord(&sdk.ParsedRecord{Record: &sdk.RequestRecord{EndPerfNs: 1},
		Responses: []sdk.ParsedResponse{{Reasoning: "let me think"}, {Text: "two words"}}})
	count := func() float64 {
		t.Helper()
		resp, err := p.rpc.ProcessRecord(ctx, rec)
		if err != nil {
			t.Fatal(err)
		}
		return resp.Values["answer_word_count"].GetScalar()
	}
	if got := count(); got != 2 {
		t.Fatalf("default count = %v, want 2", got)
	}
	configure := func(settings string) error {
		_, err := p.rpc.Configure(ctx, &pluginpb.ConfigureRequest{Category: "record_processor", Name: "answer_words",
			ConfigJson: []byte(settings)})
		return err
	}
	if err := configure(`{"count_reasoning": true}`); err != nil {
		t.Fatal(err)
	}
	if got := count(); got != 5 {
		t.Fatalf("count with reasoning = %v, want 5", got)
	}
	if err := configure(`{"count_reasoning": false, "typo": 1}`); err == nil {
		t.Fatal("unknown key accepted")
	}
	if got := count(); got != 5 {
		t.Errorf("a refused Configure changed the settings: count %v, want 5", got)
	}
}

// TestConfigureThroughTheLoader delivers settings the way the core does,
// through the grpc loader's adapter (registry.ConfigSink).
func TestConfigureThroughTheLoader(t *testing.T) {
	_, ep, rp := loadShippedManifest(t, &syncBuffer{})
	ctx := context.Background()
	if err := rp.Configure(ctx, []byte(`{"count_reasoning": true}`)); err != nil {
		t.Fatal(err)
	}
	err := rp.Configure(ctx, []byte(`{"count_reasonin": true}`))
	want := `plugin record_processor.answer_words: Configure: Configure: unknown setting "count_reasonin"`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
	err = ep.(interface {
		Configure(context.Context, []byte) error
	}).Configure(ctx, []byte(`{"path": "/x"}`))
	want = `plugin endpoint.textgen_py: Configure: Configure: plugin endpoint.textgen_py takes no settings (got "path")`
	if err == nil || err.Error() != want {
		t.Errorf("endpoint err = %v, want %q", err, want)
	}
}
