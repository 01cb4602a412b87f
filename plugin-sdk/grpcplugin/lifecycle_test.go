package grpcplugin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// plainProcessor has no lifecycle at all: no settings, no Init.
type plainProcessor struct{}

func (plainProcessor) Metrics() []sdk.MetricSpec {
	return []sdk.MetricSpec{{Tag: "one", Header: "One", Unit: "count"}}
}

func (plainProcessor) Process(*sdk.ParsedRecord) (*sdk.RecordMetrics, error) {
	return &sdk.RecordMetrics{Values: map[string]sdk.MetricValue{"one": {Scalar: 1}}}, nil
}

type wordSettings struct {
	Tag      string `json:"tag"`
	MinWords int    `json:"min_words"`
}

// wordProcessor has every lifecycle step: its metric's tag is a setting,
// Init records the run's seed and Validate refuses a negative minimum.
type wordProcessor struct {
	settings wordSettings
	seed     int64
	inits    atomic.Int32
	validate atomic.Int32
}

func newWordProcessor() *wordProcessor { return &wordProcessor{settings: wordSettings{Tag: "words"}} }

func (p *wordProcessor) PluginConfig() any { return &p.settings }

func (p *wordProcessor) Init(_ context.Context, info sdk.RunInfo) error {
	p.inits.Add(1)
	p.seed = info.Seed
	if len(info.Models) == 0 {
		return errors.New("no models")
	}
	return nil
}

func (p *wordProcessor) Validate() error {
	p.validate.Add(1)
	if p.settings.MinWords < 0 {
		return fmt.Errorf("min_words %d: must not be negative", p.settings.MinWords)
	}
	return nil
}

func (p *wordProcessor) Metrics() []sdk.MetricSpec {
	return []sdk.MetricSpec{{Tag: p.settings.Tag, Header: "Words", Unit: "words", Integer: true}}
}

func (p *wordProcessor) Process(rec *sdk.ParsedRecord) (*sdk.RecordMetrics, error) {
	n := 0
	for _, r := range rec.Responses {
		n += len(strings.Fields(r.Text))
	}
	return &sdk.RecordMetrics{Values: map[string]sdk.MetricValue{p.settings.Tag: {Scalar: float64(n)}}}, nil
}

func configureReq(category, name, config string) *pluginpb.ConfigureRequest {
	return &pluginpb.ConfigureRequest{Category: category, Name: name, ConfigJson: []byte(config)}
}

func TestConfigureDecodesSettingsAndDescribeFollowsThem(t *testing.T) {
	p := newWordProcessor()
	c := serve(t, p)
	ctx := context.Background()
	if _, err := c.Configure(ctx, configureReq("record_processor", "words", `{"tag": "answer_words", "min_words": 2}`)); err != nil {
		t.Fatal(err)
	}
	if p.settings != (wordSettings{Tag: "answer_words", MinWords: 2}) {
		t.Fatalf("settings = %+v", p.settings)
	}
	// A processor is validated after Init, not after Configure.
	if n := p.validate.Load(); n != 0 {
		t.Errorf("Validate ran %d times before Init", n)
	}
	d, err := c.Describe(ctx, &pluginpb.DescribeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got := pluginpb.ToMetricSpecs(d.Metrics); len(got) != 1 || got[0].Tag != "answer_words" {
		t.Errorf("Describe after Configure declares %+v, want the configured tag", got)
	}
	// Empty settings leave the defaults alone.
	for _, empty := range []string{"", "  ", "{}", "null"} {
		if _, err := c.Configure(ctx, configureReq("record_processor", "words", empty)); err != nil {
			t.Errorf("Configure(%q): %v", empty, err)
		}
	}
	if p.settings.Tag != "answer_words" {
		t.Errorf("empty settings changed them: %+v", p.settings)
	}
}

func TestConfigureRefusals(t *testing.T) {
	type both struct {
		echoEndpoint
		plainProcessor
	}
	ctx := context.Background()
	tests := []struct {
		name string
		impl any
		req  *pluginpb.ConfigureRequest
		want string
	}{
		{"unknown key", newWordProcessor(), configureReq("record_processor", "w", `{"tag": "x", "colour": "red"}`),
			`unknown setting "colour"`},
		{"wrong type", newWordProcessor(), configureReq("record_processor", "w", `{"min_words": "two"}`),
			`setting "min_words": string is not a int`},
		{"not an object", newWordProcessor(), configureReq("record_processor", "w", `[1, 2]`), "not"},
		{"no settings taken", plainProcessor{}, configureReq("record_processor", "plain", `{"b": 1, "a": 2}`),
			`plugin record_processor.plain takes no settings (got "a", "b")`},
		{"no settings, not an object", plainProcessor{}, configureReq("record_processor", "plain", `7`),
			"settings are not a JSON object"},
		{"category not served", both{}, configureReq("data_exporter", "x", `{}`),
			`this plugin does not implement category "data_exporter" (it implements: endpoint, record_processor)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := serve(t, tc.impl).Configure(ctx, tc.req)
			if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want InvalidArgument containing %q", err, tc.want)
			}
		})
	}
}

// validatedEndpoint has settings and Validate but no Init in the protocol:
// it is validated at the end of Configure.
type validatedEndpoint struct {
	echoEndpoint
	settings struct {
		Path string `json:"path"`
	}
}

func (e *validatedEndpoint) PluginConfig() any { return &e.settings }

func (e *validatedEndpoint) Validate() error {
	if !strings.HasPrefix(e.settings.Path, "/") {
		return fmt.Errorf("path %q must start with '/'", e.settings.Path)
	}
	return nil
}

func (e *validatedEndpoint) Metadata() sdk.EndpointMetadata {
	md := e.echoEndpoint.Metadata()
	md.EndpointPath = e.settings.Path
	return md
}

func TestConfigureValidatesPluginsWithoutInit(t *testing.T) {
	ep := &validatedEndpoint{}
	ep.settings.Path = "/v1/echo"
	c := serve(t, ep)
	ctx := context.Background()
	_, err := c.Configure(ctx, configureReq("endpoint", "echo", `{"path": "v2/echo"}`))
	if status.Code(err) != codes.Unknown || !strings.Contains(err.Error(), `path "v2/echo" must start with '/'`) {
		t.Fatalf("err = %v, want the Validate error", err)
	}
	if _, err := c.Configure(ctx, configureReq("endpoint", "echo", `{"path": "/v2/echo"}`)); err != nil {
		t.Fatal(err)
	}
	d, err := c.Describe(ctx, &pluginpb.DescribeRequest{})
	if err != nil || d.GetEndpoint().GetEndpointPath() != "/v2/echo" {
		t.Fatalf("Describe after Configure: %v, %v; want the configured path", d.GetEndpoint(), err)
	}
}

// Two entries of one implementation share its PluginConfig target.
func TestConfigurePerEntryIntoOneTarget(t *testing.T) {
	type multi struct {
		echoEndpoint
		*wordProcessor
	}
	p := newWordProcessor()
	c := serve(t, multi{wordProcessor: p})
	ctx := context.Background()
	if _, err := c.Configure(ctx, configureReq("endpoint", "e", `{"min_words": 3}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Configure(ctx, configureReq("record_processor", "p", `{"tag": "t"}`)); err != nil {
		t.Fatal(err)
	}
	if p.settings != (wordSettings{Tag: "t", MinWords: 3}) {
		t.Fatalf("settings = %+v, want both entries' keys", p.settings)
	}
}

func TestInitRecordProcessorRunsInitThenValidate(t *testing.T) {
	p := newWordProcessor()
	c := serve(t, p)
	ctx := context.Background()
	info := pluginpb.FromRunInfo(sdk.RunInfo{Models: []string{"m"}, Seed: 99})
	if _, err := c.InitRecordProcessor(ctx, pluginpb.FromRunInfo(sdk.RunInfo{})); err == nil || !strings.Contains(err.Error(), "no models") {
		t.Fatalf("Init error = %v", err)
	}
	if n := p.validate.Load(); n != 0 {
		t.Errorf("Validate ran after a failed Init")
	}
	if _, err := c.InitRecordProcessor(ctx, info); err != nil {
		t.Fatal(err)
	}
	if p.seed != 99 || p.inits.Load() != 2 || p.validate.Load() != 1 {
		t.Errorf("seed %d, inits %d, validations %d; want 99, 2, 1", p.seed, p.inits.Load(), p.validate.Load())
	}
	if _, err := c.Configure(ctx, configureReq("record_processor", "w", `{"min_words": -1}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.InitRecordProcessor(ctx, info); err == nil || !strings.Contains(err.Error(), "min_words -1: must not be negative") {
		t.Fatalf("Validate error = %v", err)
	}
	// A processor without Init accepts the call.
	if _, err := serve(t, plainProcessor{}).InitRecordProcessor(ctx, info); err != nil {
		t.Fatalf("processor without Init: %v", err)
	}
}

// panicky panics in every lifecycle method.
type panicky struct{ plainProcessor }

func (panicky) PluginConfig() any                       { panic("config exploded") }
func (panicky) Init(context.Context, sdk.RunInfo) error { panic("init exploded") }
func (panicky) Metrics() []sdk.MetricSpec               { panic("metrics exploded") }

func TestLifecyclePanicsAreRecovered(t *testing.T) {
	c := serve(t, panicky{})
	ctx := context.Background()
	calls := map[string]func() error{
		"Configure": func() error {
			_, err := c.Configure(ctx, configureReq("record_processor", "p", `{"a": 1}`))
			return err
		},
		"InitRecordProcessor": func() error { _, err := c.InitRecordProcessor(ctx, &pluginpb.RunInfo{}); return err },
		"Describe":            func() error { _, err := c.Describe(ctx, &pluginpb.DescribeRequest{}); return err },
	}
	for name, call := range calls {
		if err := call(); status.Code(err) != codes.Internal || !strings.Contains(err.Error(), "panic in "+name) {
			t.Errorf("%s: err = %v, want Internal naming the method", name, err)
		}
	}
	if _, err := c.ProcessRecord(ctx, &pluginpb.ParsedRecord{}); err != nil {
		t.Errorf("still serving: %v", err)
	}
}

type closer struct {
	err   error
	delay time.Duration
	panic bool
}

func (c closer) Close() error {
	time.Sleep(c.delay)
	if c.panic {
		panic("close exploded")
	}
	return c.err
}

func TestCloseImpl(t *testing.T) {
	tests := []struct {
		name string
		impl any
		want string
	}{
		{"not a closer", plainProcessor{}, ""},
		{"closes", closer{}, ""},
		{"fails", closer{err: errors.New("flush failed")}, "closing the plugin: flush failed"},
		{"panics", closer{panic: true}, "closing the plugin: panic in Close: close exploded"},
		{"hangs", closer{delay: time.Second}, "Close did not return within 50ms"},
	}
	for _, tc := range tests {
		err := closeImpl(tc.impl, 50*time.Millisecond)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}
