package wasmguest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
	"google.golang.org/protobuf/proto"
)

// textEndpoint parses {"text": "..."} bodies; "[DONE]" carries nothing.
type textEndpoint struct{}

func (textEndpoint) Metadata() sdk.EndpointMetadata {
	return sdk.EndpointMetadata{EndpointPath: "/v1/generate", ServiceKind: "custom", SupportsStreaming: true, ProducesTokens: true}
}

func (textEndpoint) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	return json.Marshal(map[string]any{"model": req.Model, "prompt": strings.Join(req.Turn.Texts, " ")})
}

func (textEndpoint) ParseResponse(data []byte) (sdk.ParsedResponse, error) {
	if string(data) == "[DONE]" {
		return sdk.ParsedResponse{}, nil
	}
	var body struct{ Text string }
	if err := json.Unmarshal(data, &body); err != nil {
		return sdk.ParsedResponse{}, fmt.Errorf("bad body %q: %w", data, err)
	}
	return sdk.ParsedResponse{Text: body.Text}, nil
}

// lengthProcessor reports the answer length; it panics on a "boom" prompt.
type lengthProcessor struct{ initErr error }

func (lengthProcessor) Metrics() []sdk.MetricSpec {
	return []sdk.MetricSpec{{Tag: "answer_len", Header: "Answer Length", Unit: "bytes", Integer: true}}
}

func (p lengthProcessor) Init(context.Context, sdk.RunInfo) error { return p.initErr }

func (lengthProcessor) Process(rec *sdk.ParsedRecord) (*sdk.RecordMetrics, error) {
	if rec.InputText == "boom" {
		panic("boom prompt")
	}
	n := 0
	for _, r := range rec.Responses {
		n += len(r.Text)
	}
	return &sdk.RecordMetrics{Values: map[string]sdk.MetricValue{"answer_len": {Scalar: float64(n)}}}, nil
}

// call serves one method and decodes the WasmResult with pluginpb.
func call(t *testing.T, s *server, m Method, req proto.Message, resp proto.Message) error {
	t.Helper()
	var in []byte
	if req != nil {
		in = marshal(t, req)
	}
	return decodeResult(t, serve(s, m, in), resp)
}

// decodeResult reads a WasmResult with pluginpb: the plugin's error, or the
// payload decoded into resp (nil to ignore it).
func decodeResult(t *testing.T, result []byte, resp proto.Message) error {
	t.Helper()
	var res pluginpb.WasmResult
	if err := proto.Unmarshal(result, &res); err != nil {
		t.Fatalf("result is not a WasmResult: %v", err)
	}
	if res.Error != "" {
		return errors.New(res.Error)
	}
	if resp != nil {
		if err := proto.Unmarshal(res.Payload, resp); err != nil {
			t.Fatalf("payload: %v", err)
		}
	}
	return nil
}

func resultError(t *testing.T, result []byte) error {
	t.Helper()
	return decodeResult(t, result, nil)
}

func TestDescribeReportsCategoriesAndMetadata(t *testing.T) {
	type both struct {
		textEndpoint
		lengthProcessor
	}
	s := newServer(both{}, Name("demo"), Version("1.2.3"), Description("a demo"))
	var got pluginpb.DescribeResponse
	if err := call(t, s, MethodDescribe, &pluginpb.DescribeRequest{}, &got); err != nil {
		t.Fatal(err)
	}
	want := &pluginpb.DescribeResponse{ApiVersion: sdk.APIVersion, Name: "demo", Version: "1.2.3", Description: "a demo",
		Categories: []string{"endpoint", "record_processor"},
		Endpoint:   pluginpb.FromEndpointMetadata(textEndpoint{}.Metadata()),
		Metrics:    pluginpb.FromMetricSpecs(lengthProcessor{}.Metrics())}
	if !proto.Equal(&got, want) {
		t.Fatalf("Describe = %v, want %v", &got, want)
	}
}

func TestParseRecordPerUnitErrorsAndPerfNs(t *testing.T) {
	s := newServer(textEndpoint{})
	req := &pluginpb.ParseRecordRequest{Units: []*pluginpb.ResponseUnit{
		{PerfNs: 1000, Data: []byte(`{"text":"Hel"}`)},
		{PerfNs: 2000, Data: []byte(`not json`)},
		{PerfNs: 3000, Data: []byte(`{"text":"lo"}`)},
		{PerfNs: 4000, Data: []byte(`[DONE]`)},
	}}
	var got pluginpb.ParseRecordResponse
	if err := call(t, s, MethodParseRecord, req, &got); err != nil {
		t.Fatal(err)
	}
	texts, perf := []string{}, []int64{}
	for _, r := range got.Responses {
		texts, perf = append(texts, r.Text), append(perf, r.PerfNs)
	}
	if !reflect.DeepEqual(texts, []string{"Hel", "", "lo", ""}) || !reflect.DeepEqual(perf, []int64{1000, 2000, 3000, 4000}) {
		t.Fatalf("texts %q perf %v", texts, perf)
	}
	if len(got.UnitErrors) != 1 || !strings.Contains(got.UnitErrors[1], `bad body "not json"`) {
		t.Fatalf("unit errors = %v, want one for unit 1", got.UnitErrors)
	}
}

func TestFormatPayloadAndProcessRecord(t *testing.T) {
	type both struct {
		textEndpoint
		lengthProcessor
	}
	s := newServer(both{})
	ri, _ := pluginpb.FromRequestInfo(sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"a", "b"}}})
	var fp pluginpb.FormatPayloadResponse
	if err := call(t, s, MethodFormatPayload, ri, &fp); err != nil {
		t.Fatal(err)
	}
	if string(fp.Payload) != `{"model":"m","prompt":"a b"}` {
		t.Fatalf("payload %s", fp.Payload)
	}
	rec := pluginpb.FromParsedRecord(&sdk.ParsedRecord{Record: &sdk.RequestRecord{}, Responses: []sdk.ParsedResponse{{Text: "four"}, {Text: "56"}}})
	var pr pluginpb.ProcessRecordResponse
	if err := call(t, s, MethodProcessRecord, rec, &pr); err != nil {
		t.Fatal(err)
	}
	if v := pr.Values["answer_len"]; v == nil || v.Scalar != 6 {
		t.Fatalf("answer_len = %v, want 6", v)
	}
}

func TestCallErrors(t *testing.T) {
	tests := []struct {
		name   string
		impl   any
		method Method
		req    []byte
		want   string
	}{
		{"unimplemented", textEndpoint{}, MethodProcessRecord, nil, "method ProcessRecord not implemented by plugin"},
		{"unknown method", textEndpoint{}, Method(99), nil, "unknown method 99"},
		{"panic recovered", lengthProcessor{}, MethodProcessRecord, mustMarshal(&pluginpb.ParsedRecord{InputText: "boom"}), "plugin panicked in ProcessRecord: boom prompt"},
		{"init error", lengthProcessor{initErr: errors.New("needs streaming")}, MethodInitRecordProcessor, nil, "needs streaming"},
		{"garbage request", textEndpoint{}, MethodFormatPayload, []byte{0x0a, 0x09, 'x'}, "decode RequestInfo"},
		{"no loader", textEndpoint{}, MethodLoadDataset, nil, "method LoadDataset not implemented by plugin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var res pluginpb.WasmResult
			if err := proto.Unmarshal(serve(newServer(tt.impl), tt.method, tt.req), &res); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(res.Error, tt.want) {
				t.Fatalf("error %q, want it to contain %q", res.Error, tt.want)
			}
		})
	}
	var res pluginpb.WasmResult
	if err := proto.Unmarshal(serve(nil, MethodDescribe, nil), &res); err != nil || !strings.Contains(res.Error, "no plugin registered") {
		t.Fatalf("unregistered: %q %v", res.Error, err)
	}
}

// csvLoader is a dataset loader over "session,text" lines.
type csvLoader struct{}

func (csvLoader) CanLoad(path string) bool { return strings.HasSuffix(path, ".csv") }

func (csvLoader) Load(_ context.Context, path string, opts sdk.DatasetOptions) ([]sdk.Conversation, error) {
	return []sdk.Conversation{{SessionID: "s-" + path, Turns: []sdk.Turn{{Texts: []string{opts.Models[0]}, MaxTokens: ip(opts.OutputTokensMean),
		Extra: map[string]any{"n": 1.0}}}}}, nil
}

func TestDatasetLoaderMethods(t *testing.T) {
	s := newServer(csvLoader{})
	var ok pluginpb.CanLoadResponse
	if err := call(t, s, MethodCanLoad, &pluginpb.CanLoadRequest{Path: "a.csv"}, &ok); err != nil || !ok.Ok {
		t.Fatalf("CanLoad(a.csv) = %v, %v", ok.Ok, err)
	}
	var resp pluginpb.LoadDatasetResponse
	req := &pluginpb.LoadDatasetRequest{Path: "a.csv", Options: pluginpb.FromDatasetOptions(sdk.DatasetOptions{Models: []string{"m1"}, OutputTokensMean: 32})}
	if err := call(t, s, MethodLoadDataset, req, &resp); err != nil {
		t.Fatal(err)
	}
	convs, err := pluginpb.ToConversations(resp.Conversations)
	want := []sdk.Conversation{{SessionID: "s-a.csv", Turns: []sdk.Turn{{Texts: []string{"m1"}, MaxTokens: ip(32), Extra: map[string]any{"n": 1.0}}}}}
	if err != nil || !reflect.DeepEqual(convs, want) {
		t.Fatalf("LoadDataset = %+v, %v", convs, err)
	}
}

func mustMarshal(m proto.Message) []byte {
	b, err := proto.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

func BenchmarkServeProcessRecord(b *testing.B) {
	s := newServer(lengthProcessor{})
	req := mustMarshal(pluginpb.FromParsedRecord(&sdk.ParsedRecord{Record: &sdk.RequestRecord{XRequestID: "r"},
		Responses: []sdk.ParsedResponse{{Text: strings.Repeat("tok ", 64)}}, InputTokens: ip(100), OutputTokens: ip(64)}))
	b.ReportAllocs()
	for b.Loop() {
		serve(s, MethodProcessRecord, req)
	}
}
