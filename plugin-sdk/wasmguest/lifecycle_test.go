package wasmguest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
)

// tagProcessor has every lifecycle step: its metric's tag is a setting,
// Init keeps the run's models and Validate refuses an empty tag.
type tagProcessor struct {
	settings struct {
		Tag string `json:"tag"`
	}
	models    []string
	validated int
}

func newTagProcessor() *tagProcessor {
	p := &tagProcessor{}
	p.settings.Tag = "chars"
	return p
}

func (p *tagProcessor) PluginConfig() any { return &p.settings }

func (p *tagProcessor) Init(_ context.Context, info sdk.RunInfo) error {
	if len(info.Models) == 0 {
		return errors.New("no models")
	}
	p.models = info.Models
	return nil
}

func (p *tagProcessor) Validate() error {
	p.validated++
	if p.settings.Tag == "" {
		return errors.New("tag must not be empty")
	}
	return nil
}

func (p *tagProcessor) Metrics() []sdk.MetricSpec {
	return []sdk.MetricSpec{{Tag: p.settings.Tag, Header: "Characters", Unit: "characters", Integer: true}}
}

func (p *tagProcessor) Process(rec *sdk.ParsedRecord) (*sdk.RecordMetrics, error) {
	return &sdk.RecordMetrics{Values: map[string]sdk.MetricValue{p.settings.Tag: {Scalar: float64(len(rec.InputText))}}}, nil
}

func TestConfigureInitAndDescribe(t *testing.T) {
	p := newTagProcessor()
	s := newServer(p)
	if err := call(t, s, MethodConfigure, &pluginpb.ConfigureRequest{Category: "record_processor", Name: "t",
		ConfigJson: []byte(`{"tag": "prompt_bytes"}`)}, nil); err != nil {
		t.Fatal(err)
	}
	if p.settings.Tag != "prompt_bytes" || p.validated != 0 {
		t.Fatalf("settings %+v, validated %d: want the tag and no validation before Init", p.settings, p.validated)
	}
	var d pluginpb.DescribeResponse
	if err := call(t, s, MethodDescribe, &pluginpb.DescribeRequest{}, &d); err != nil {
		t.Fatal(err)
	}
	if got := pluginpb.ToMetricSpecs(d.Metrics); len(got) != 1 || got[0].Tag != "prompt_bytes" {
		t.Fatalf("Describe after Configure declares %+v", got)
	}
	if err := call(t, s, MethodInitRecordProcessor, pluginpb.FromRunInfo(sdk.RunInfo{}), nil); err == nil || err.Error() != "no models" {
		t.Fatalf("Init error = %v", err)
	}
	if err := call(t, s, MethodInitRecordProcessor, pluginpb.FromRunInfo(sdk.RunInfo{Models: []string{"a", "b"}}), nil); err != nil {
		t.Fatal(err)
	}
	if strings.Join(p.models, ",") != "a,b" || p.validated != 1 {
		t.Fatalf("models %v, validated %d", p.models, p.validated)
	}
	// An empty tag passes Configure (a processor validates after Init) and
	// fails the next Init.
	if err := call(t, s, MethodConfigure, &pluginpb.ConfigureRequest{Category: "record_processor", Name: "t",
		ConfigJson: []byte(`{"tag": ""}`)}, nil); err != nil {
		t.Fatal(err)
	}
	if err := call(t, s, MethodInitRecordProcessor, pluginpb.FromRunInfo(sdk.RunInfo{Models: []string{"a"}}), nil); err == nil ||
		err.Error() != "tag must not be empty" {
		t.Fatalf("Validate error = %v", err)
	}
}

// configuredEndpoint has settings and Validate but no Init in the protocol.
type configuredEndpoint struct {
	textEndpoint
	settings struct {
		Path string `json:"path"`
	}
}

func (e *configuredEndpoint) PluginConfig() any { return &e.settings }

func (e *configuredEndpoint) Validate() error {
	if !strings.HasPrefix(e.settings.Path, "/") {
		return fmt.Errorf("path %q must start with '/'", e.settings.Path)
	}
	return nil
}

func (e *configuredEndpoint) Metadata() sdk.EndpointMetadata {
	md := e.textEndpoint.Metadata()
	md.EndpointPath = e.settings.Path
	return md
}

func TestConfigureErrors(t *testing.T) {
	configure := func(category, name, settings string) *pluginpb.ConfigureRequest {
		return &pluginpb.ConfigureRequest{Category: category, Name: name, ConfigJson: []byte(settings)}
	}
	tests := []struct {
		name string
		impl any
		req  *pluginpb.ConfigureRequest
		want string
	}{
		{"unknown key", newTagProcessor(), configure("record_processor", "t", `{"tag": "x", "size": 1}`), `unknown setting "size"`},
		{"wrong type", newTagProcessor(), configure("record_processor", "t", `{"tag": 1}`), `setting "tag": number is not a string`},
		{"takes no settings", lengthProcessor{}, configure("record_processor", "len", `{"x": 1}`),
			`plugin record_processor.len takes no settings (got "x")`},
		{"category not served", lengthProcessor{}, configure("endpoint", "len", `{}`),
			`this plugin does not implement category "endpoint" (it implements: record_processor)`},
		{"validated without Init", &configuredEndpoint{}, configure("endpoint", "e", `{"path": "v1"}`), `path "v1" must start with '/'`},
		{"garbage request", lengthProcessor{}, nil, "decode ConfigureRequest"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.req == nil {
				err = resultError(t, serve(newServer(tc.impl), MethodConfigure, []byte{0x0a, 0x09, 'x'}))
			} else {
				err = call(t, newServer(tc.impl), MethodConfigure, tc.req, nil)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	// Empty settings are accepted by a plugin without any.
	for _, empty := range []string{"", "{}", " null "} {
		if err := call(t, newServer(lengthProcessor{}), MethodConfigure, configure("record_processor", "len", empty), nil); err != nil {
			t.Errorf("Configure(%q): %v", empty, err)
		}
	}
	// A valid endpoint setting shows in Describe.
	ep := &configuredEndpoint{}
	s := newServer(ep)
	if err := call(t, s, MethodConfigure, configure("endpoint", "e", `{"path": "/v2/generate"}`), nil); err != nil {
		t.Fatal(err)
	}
	var d pluginpb.DescribeResponse
	if err := call(t, s, MethodDescribe, &pluginpb.DescribeRequest{}, &d); err != nil || d.GetEndpoint().GetEndpointPath() != "/v2/generate" {
		t.Fatalf("Describe = %v, %v", d.GetEndpoint(), err)
	}
}

type panickingConfig struct{ lengthProcessor }

func (panickingConfig) PluginConfig() any { panic("no config today") }

func TestConfigurePanicIsRecovered(t *testing.T) {
	err := call(t, newServer(panickingConfig{}), MethodConfigure,
		&pluginpb.ConfigureRequest{Category: "record_processor", Name: "p", ConfigJson: []byte(`{"a":1}`)}, nil)
	if err == nil || err.Error() != "plugin panicked in Configure: no config today" {
		t.Fatalf("err = %v", err)
	}
}
