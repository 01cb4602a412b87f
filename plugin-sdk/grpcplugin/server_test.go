package grpcplugin

import (
	"context"
	"errors"
	"fmt"
	"net"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// serve runs impl behind a real gRPC server on loopback and returns a client.
func serve(t *testing.T, impl any, opts ...ServeOption) pluginpb.PluginClient {
	t.Helper()
	srv, err := NewServer(impl, opts...)
	if err != nil {
		t.Fatalf("NewServer: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := NewGRPCServer(nil)
	pluginpb.RegisterPluginServer(gs, srv)
	go func() { _ = gs.Serve(ln) }()
	t.Cleanup(gs.Stop)
	conn, err := grpc.NewClient(ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return pluginpb.NewPluginClient(conn)
}

// echoEndpoint parses "text" units as text, "usage:N" as completion usage,
// "bad" as an error and "panic" by panicking.
type echoEndpoint struct{}

func (echoEndpoint) Metadata() sdk.EndpointMetadata {
	return sdk.EndpointMetadata{EndpointPath: "/v1/echo", ServiceKind: "echo", SupportsStreaming: true, ProducesTokens: true}
}

func (echoEndpoint) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	switch req.Model {
	case "fail":
		return nil, errors.New("model fail is not supported")
	case "panic":
		panic("format exploded")
	}
	return []byte(fmt.Sprintf(`{"m":%q,"t":%q}`, req.Model, strings.Join(req.Turn.Texts, "|"))), nil
}

func (echoEndpoint) ParseResponse(data []byte) (sdk.ParsedResponse, error) {
	s := string(data)
	switch {
	case s == "bad":
		return sdk.ParsedResponse{}, errors.New("unit is bad")
	case s == "panic":
		panic("parse exploded")
	case strings.HasPrefix(s, "usage:"):
		var n int
		fmt.Sscanf(s, "usage:%d", &n)
		return sdk.ParsedResponse{Usage: &sdk.Usage{CompletionTokens: &n}}, nil
	}
	return sdk.ParsedResponse{Text: s, PerfNs: -1}, nil
}

// batchEndpoint adds ParseRecord; "short" makes it return one result too few.
type batchEndpoint struct{ echoEndpoint }

func (b batchEndpoint) ParseRecord(units []sdk.Response) ([]sdk.ParsedResponse, error) {
	out := make([]sdk.ParsedResponse, 0, len(units))
	for _, u := range units {
		if string(u.Data) == "short" {
			return out, nil
		}
		p, err := b.ParseResponse(u.Data)
		if err != nil {
			return nil, err
		}
		p.Text = strings.ToUpper(p.Text)
		out = append(out, p)
	}
	return out, nil
}

type processor struct{}

var processorMetrics = []sdk.MetricSpec{{Tag: "chars", Header: "Characters", Unit: "characters", Integer: true}}

func (processor) Metrics() []sdk.MetricSpec { return processorMetrics }

func (processor) Init(_ context.Context, info sdk.RunInfo) error {
	if !info.Streaming {
		return errors.New("needs streaming")
	}
	return nil
}

func (processor) Process(rec *sdk.ParsedRecord) (*sdk.RecordMetrics, error) {
	return &sdk.RecordMetrics{Values: map[string]sdk.MetricValue{"chars": {Scalar: float64(len(rec.Responses[0].Text))}}}, nil
}

func units(data ...string) *pluginpb.ParseRecordRequest {
	req := &pluginpb.ParseRecordRequest{}
	for i, d := range data {
		req.Units = append(req.Units, &pluginpb.ResponseUnit{PerfNs: int64(100 * (i + 1)), Data: []byte(d)})
	}
	return req
}

func TestNewServerRejectsNonPlugin(t *testing.T) {
	_, err := NewServer(struct{}{})
	if err == nil || !strings.Contains(err.Error(), "implements no plugin category") {
		t.Fatalf("err = %v, want 'implements no plugin category'", err)
	}
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		name       string
		impl       any
		opts       []ServeOption
		categories string
		api        uint32
		path       string
	}{
		{"endpoint", echoEndpoint{}, []ServeOption{WithName("echo"), WithVersion("1.2.3"), WithDescription("echoes")},
			"endpoint", 1, "/v1/echo"},
		{"processor", processor{}, nil, "record_processor", 1, ""},
		{"processor without Init", plainProcessor{}, nil, "record_processor", 1, ""},
		{"both with api override", struct {
			echoEndpoint
			processor
		}{}, []ServeOption{WithAPIVersion(7)}, "endpoint,record_processor", 7, "/v1/echo"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := serve(t, tc.impl, tc.opts...)
			d, err := c.Describe(context.Background(), &pluginpb.DescribeRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(d.Categories, ","); got != tc.categories {
				t.Errorf("categories = %q, want %q", got, tc.categories)
			}
			if d.ApiVersion != tc.api {
				t.Errorf("api_version = %d, want %d", d.ApiVersion, tc.api)
			}
			if got := d.GetEndpoint().GetEndpointPath(); got != tc.path {
				t.Errorf("endpoint path = %q, want %q", got, tc.path)
			}
			var want []sdk.MetricSpec
			if p, ok := tc.impl.(sdk.RecordProcessor); ok {
				want = p.Metrics()
			}
			if got := pluginpb.ToMetricSpecs(d.GetMetrics()); !reflect.DeepEqual(got, want) {
				t.Errorf("metrics = %+v, want %+v", got, want)
			}
		})
	}
	d, _ := serve(t, echoEndpoint{}, WithName("echo"), WithVersion("1.2.3"), WithDescription("echoes")).
		Describe(context.Background(), &pluginpb.DescribeRequest{})
	if d.Name != "echo" || d.Version != "1.2.3" || d.Description != "echoes" {
		t.Errorf("identity = %q %q %q", d.Name, d.Version, d.Description)
	}
}

func TestUnimplementedCategories(t *testing.T) {
	c := serve(t, processor{})
	ctx := context.Background()
	calls := map[string]func() error{
		"FormatPayload": func() error { _, err := c.FormatPayload(ctx, &pluginpb.RequestInfo{}); return err },
		"ParseRecord":   func() error { _, err := c.ParseRecord(ctx, units("x")); return err },
		"CanLoad":       func() error { _, err := c.CanLoad(ctx, &pluginpb.CanLoadRequest{}); return err },
		"LoadDataset":   func() error { _, err := c.LoadDataset(ctx, &pluginpb.LoadDatasetRequest{}); return err },
		"Export":        func() error { _, err := c.Export(ctx, &pluginpb.ExportRequest{}); return err },
	}
	for name, call := range calls {
		err := call()
		if status.Code(err) != codes.Unimplemented || !strings.Contains(err.Error(), "does not implement category") {
			t.Errorf("%s: err = %v, want Unimplemented", name, err)
		}
	}
}

func TestFormatPayloadErrorsAndPanics(t *testing.T) {
	c := serve(t, echoEndpoint{})
	ctx := context.Background()
	tests := []struct {
		model    string
		code     codes.Code
		contains string
		payload  string
	}{
		{"m1", codes.OK, "", `{"m":"m1","t":"a|b"}`},
		{"fail", codes.Unknown, "model fail is not supported", ""},
		{"panic", codes.Internal, "panic in FormatPayload: format exploded", ""},
		{"m2", codes.OK, "", `{"m":"m2","t":"a|b"}`}, // still serving after the panic
	}
	for _, tc := range tests {
		resp, err := c.FormatPayload(ctx, &pluginpb.RequestInfo{Model: tc.model, Turn: &pluginpb.Turn{Texts: []string{"a", "b"}}})
		if status.Code(err) != tc.code || (tc.contains != "" && !strings.Contains(err.Error(), tc.contains)) {
			t.Fatalf("model %s: err = %v, want code %v containing %q", tc.model, err, tc.code, tc.contains)
		}
		if err == nil && string(resp.Payload) != tc.payload {
			t.Errorf("model %s: payload = %s, want %s", tc.model, resp.Payload, tc.payload)
		}
	}
}

func TestParseRecordFallbackPerUnit(t *testing.T) {
	c := serve(t, echoEndpoint{})
	resp, err := c.ParseRecord(context.Background(), units("hello", "bad", "usage:42", " world"))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Responses) != 4 {
		t.Fatalf("%d responses, want 4", len(resp.Responses))
	}
	wantText := []string{"hello", "", "", " world"}
	for i, r := range resp.Responses {
		if r.Text != wantText[i] || r.PerfNs != int64(100*(i+1)) {
			t.Errorf("unit %d: text %q perf %d, want %q %d", i, r.Text, r.PerfNs, wantText[i], 100*(i+1))
		}
	}
	if got := resp.Responses[2].GetUsage().GetCompletionTokens(); got != 42 {
		t.Errorf("usage completion = %d, want 42", got)
	}
	if len(resp.UnitErrors) != 1 || resp.UnitErrors[1] != "unit is bad" {
		t.Errorf("unit errors = %v, want {1: unit is bad}", resp.UnitErrors)
	}
	_, err = c.ParseRecord(context.Background(), units("ok", "panic"))
	if status.Code(err) != codes.Internal || !strings.Contains(err.Error(), "panic in ParseResponse") {
		t.Errorf("panic: err = %v, want Internal naming ParseResponse", err)
	}
}

func TestParseRecordBatch(t *testing.T) {
	c := serve(t, batchEndpoint{})
	resp, err := c.ParseRecord(context.Background(), units("ab", "cd"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Responses[0].Text != "AB" || resp.Responses[1].Text != "CD" || resp.Responses[1].PerfNs != 200 {
		t.Errorf("responses = %v", resp.Responses)
	}
	_, err = c.ParseRecord(context.Background(), units("ab", "short"))
	if status.Code(err) != codes.Internal || !strings.Contains(err.Error(), "returned 1 parsed responses for 2 units") {
		t.Errorf("short: err = %v", err)
	}
	_, err = c.ParseRecord(context.Background(), units("bad"))
	if status.Code(err) != codes.Unknown || !strings.Contains(err.Error(), "unit is bad") {
		t.Errorf("bad: err = %v", err)
	}
}

func TestRecordProcessor(t *testing.T) {
	c := serve(t, processor{})
	ctx := context.Background()
	if _, err := c.InitRecordProcessor(ctx, &pluginpb.RunInfo{Streaming: false}); err == nil || !strings.Contains(err.Error(), "needs streaming") {
		t.Errorf("Init(non-streaming) err = %v", err)
	}
	if _, err := c.InitRecordProcessor(ctx, &pluginpb.RunInfo{Streaming: true}); err != nil {
		t.Fatal(err)
	}
	resp, err := c.ProcessRecord(ctx, &pluginpb.ParsedRecord{Responses: []*pluginpb.ParsedResponse{{Text: "12345"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Values["chars"].GetScalar(); got != 5 {
		t.Errorf("chars = %v, want 5", got)
	}
	// An empty record makes Process index out of range: recovered, named.
	_, err = c.ProcessRecord(ctx, &pluginpb.ParsedRecord{})
	if status.Code(err) != codes.Internal || !strings.Contains(err.Error(), "panic in ProcessRecord") {
		t.Errorf("panic: err = %v", err)
	}
}
