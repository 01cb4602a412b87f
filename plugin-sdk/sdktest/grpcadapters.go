package sdktest

import (
	"context"
	"fmt"
	"io"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/grpcplugin"
	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
)

// Minimal adapters from the generated gRPC client to the sdk interfaces,
// so the in-process checks run unchanged against a plugin process. Unlike
// aiperf's own adapters (registry/grpcloader) they pass the plugin's
// answers through untouched (PerfNs included), since those answers are
// what is being checked.

func rpcContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), callTimeout)
}

type grpcEndpoint struct {
	rpc  pluginpb.PluginClient
	meta sdk.EndpointMetadata
}

var (
	_ sdk.Endpoint     = (*grpcEndpoint)(nil)
	_ sdk.RecordParser = (*grpcEndpoint)(nil)
)

func (e *grpcEndpoint) Metadata() sdk.EndpointMetadata { return e.meta }

func (e *grpcEndpoint) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	in, err := pluginpb.FromRequestInfo(req)
	if err != nil {
		return nil, fmt.Errorf("encoding request info: %w", err)
	}
	ctx, cancel := rpcContext()
	defer cancel()
	resp, err := e.rpc.FormatPayload(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("FormatPayload RPC: %w", err)
	}
	return resp.GetPayload(), nil
}

// ParseResponse is a ParseRecord RPC of one unit: the protocol has no
// per-unit call.
func (e *grpcEndpoint) ParseResponse(data []byte) (sdk.ParsedResponse, error) {
	out, err := e.ParseRecord([]sdk.Response{{Data: data}})
	if err != nil {
		return sdk.ParsedResponse{}, err
	}
	return out[0], nil
}

func (e *grpcEndpoint) ParseRecord(units []sdk.Response) ([]sdk.ParsedResponse, error) {
	req := &pluginpb.ParseRecordRequest{Units: make([]*pluginpb.ResponseUnit, len(units))}
	for i, u := range units {
		req.Units[i] = &pluginpb.ResponseUnit{PerfNs: u.PerfNs, Event: u.Event, Data: u.Data}
	}
	ctx, cancel := rpcContext()
	defer cancel()
	resp, err := e.rpc.ParseRecord(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("ParseRecord RPC: %w", err)
	}
	for i := range units {
		if msg, ok := resp.GetUnitErrors()[int32(i)]; ok {
			return nil, fmt.Errorf("ParseRecord RPC: unit %d: %s", i, msg)
		}
	}
	if len(resp.GetUnitErrors()) > 0 {
		return nil, fmt.Errorf("ParseRecord RPC: unit_errors name units outside the record: %v", resp.GetUnitErrors())
	}
	if len(resp.GetResponses()) != len(units) {
		return nil, fmt.Errorf("ParseRecord RPC returned %d responses for %d units", len(resp.GetResponses()), len(units))
	}
	out := make([]sdk.ParsedResponse, len(units))
	for i, r := range resp.GetResponses() {
		out[i] = pluginpb.ToParsedResponse(r)
	}
	return out, nil
}

// grpcProcessor declares the metrics Describe reports; a failing Describe
// is reported on t (Metrics has no error result).
type grpcProcessor struct {
	rpc pluginpb.PluginClient
	t   testing.TB
}

var (
	_ sdk.RecordProcessor = (*grpcProcessor)(nil)
	_ sdk.Initializer     = (*grpcProcessor)(nil)
)

// Metrics asks Describe again, as aiperf does after Init.
func (p *grpcProcessor) Metrics() []sdk.MetricSpec {
	ctx, cancel := rpcContext()
	defer cancel()
	desc, err := p.rpc.Describe(ctx, &pluginpb.DescribeRequest{})
	if err != nil {
		p.t.Errorf("sdktest: Describe RPC (for the declared metrics) failed: %v", err)
		return nil
	}
	return pluginpb.ToMetricSpecs(desc.GetMetrics())
}

// Init is the InitRecordProcessor RPC; it exists for every processor.
func (p *grpcProcessor) Init(ctx context.Context, info sdk.RunInfo) error {
	if _, err := p.rpc.InitRecordProcessor(ctx, pluginpb.FromRunInfo(info)); err != nil {
		return fmt.Errorf("InitRecordProcessor RPC: %w", err)
	}
	return nil
}

func (p *grpcProcessor) Process(rec *sdk.ParsedRecord) (*sdk.RecordMetrics, error) {
	ctx, cancel := rpcContext()
	defer cancel()
	resp, err := p.rpc.ProcessRecord(ctx, pluginpb.FromParsedRecord(rec))
	if err != nil {
		return nil, fmt.Errorf("ProcessRecord RPC: %w", err)
	}
	return &sdk.RecordMetrics{Record: rec.Record, Values: pluginpb.ToMetricValues(resp.GetValues())}, nil
}

// grpcLoader reports CanLoad transport errors on t: sdk.CanLoad has no
// error result.
type grpcLoader struct {
	rpc pluginpb.PluginClient
	t   testing.TB
}

var _ sdk.CustomDatasetLoader = (*grpcLoader)(nil)

func (l *grpcLoader) CanLoad(path string) bool {
	ctx, cancel := rpcContext()
	defer cancel()
	resp, err := l.rpc.CanLoad(ctx, &pluginpb.CanLoadRequest{Path: path})
	if err != nil {
		l.t.Errorf("sdktest: CanLoad(%s) RPC failed: %v", path, err)
		return false
	}
	return resp.GetOk()
}

func (l *grpcLoader) Load(ctx context.Context, path string, opts sdk.DatasetOptions) ([]sdk.Conversation, error) {
	resp, err := l.rpc.LoadDataset(ctx, &pluginpb.LoadDatasetRequest{Path: path, Options: pluginpb.FromDatasetOptions(opts)})
	if err != nil {
		return nil, fmt.Errorf("LoadDataset RPC: %w", err)
	}
	convs, err := pluginpb.ToConversations(resp.GetConversations())
	if err != nil {
		return nil, fmt.Errorf("LoadDataset RPC: decoding conversations: %w", err)
	}
	return convs, nil
}

type grpcExporter struct{ rpc pluginpb.PluginClient }

var _ sdk.DataExporter = (*grpcExporter)(nil)

func (e *grpcExporter) Export(ctx context.Context, ec *sdk.ExportContext) ([]sdk.ExportedFile, error) {
	doc, err := grpcplugin.MarshalExportContext(ec)
	if err != nil {
		return nil, err
	}
	resp, err := e.rpc.Export(ctx, &pluginpb.ExportRequest{ExportContextJson: doc})
	if err != nil {
		return nil, fmt.Errorf("Export RPC: %w", err)
	}
	files := make([]sdk.ExportedFile, len(resp.GetFiles()))
	for i, f := range resp.GetFiles() {
		files[i] = sdk.ExportedFile{Label: f.GetLabel(), Path: f.GetPath()}
	}
	return files, nil
}

// grpcTelemetry serves both telemetry interfaces over the protocol.
type grpcTelemetry struct{ rpc pluginpb.PluginClient }

var (
	_ sdk.GPUTelemetryCollector  = (*grpcTelemetry)(nil)
	_ sdk.ServerMetricsCollector = (*grpcTelemetry)(nil)
)

func (g *grpcTelemetry) Source() string {
	ctx, cancel := rpcContext()
	defer cancel()
	resp, err := g.rpc.TelemetrySource(ctx, &pluginpb.Empty{})
	if err != nil {
		return ""
	}
	return resp.GetSource()
}

func (g *grpcTelemetry) Sample(ctx context.Context) ([]sdk.GPUReading, error) {
	resp, err := g.rpc.SampleGPU(ctx, &pluginpb.Empty{})
	if err != nil {
		return nil, fmt.Errorf("SampleGPU RPC: %w", err)
	}
	return pluginpb.ToGPUReadings(resp.GetGpus()), nil
}

func (g *grpcTelemetry) Scrape(ctx context.Context) (sdk.ServerMetricsScrape, error) {
	resp, err := g.rpc.ScrapeServerMetrics(ctx, &pluginpb.Empty{})
	if err != nil {
		return sdk.ServerMetricsScrape{}, fmt.Errorf("ScrapeServerMetrics RPC: %w", err)
	}
	return sdk.ServerMetricsScrape{Body: resp.GetBody(), ContentType: resp.GetContentType()}, nil
}

// grpcPlot streams each call as aiperf does (pluginpb.MarshalPlotCall,
// grpcplugin.CallPlotApplies and CallRenderPlot); a failed Applies call is
// reported on t (Applies has no error result).
type grpcPlot struct {
	rpc pluginpb.PluginClient
	t   testing.TB
}

// grpcComparisonPlot is a plot whose Describe reports comparison_plot.
type grpcComparisonPlot struct{ *grpcPlot }

var (
	_ sdk.Plot           = (*grpcPlot)(nil)
	_ sdk.ComparisonPlot = grpcComparisonPlot{}
)

func (p *grpcPlot) applies(runs []*sdk.PlotRun, comparison bool) bool {
	call, err := pluginpb.MarshalPlotCall(runs, comparison, sdk.PlotOptions{})
	if err != nil {
		p.t.Errorf("sdktest: %v", err)
		return false
	}
	ctx, cancel := rpcContext()
	defer cancel()
	ok, err := grpcplugin.CallPlotApplies(ctx, p.rpc, call)
	if err != nil {
		p.t.Errorf("sdktest: PlotApplies RPC (comparison %v) failed: %v", comparison, err)
	}
	return ok
}

func (p *grpcPlot) render(runs []*sdk.PlotRun, comparison bool, opts sdk.PlotOptions, w io.Writer) error {
	call, err := pluginpb.MarshalPlotCall(runs, comparison, opts)
	if err != nil {
		return err
	}
	ctx, cancel := rpcContext()
	defer cancel()
	if err := grpcplugin.CallRenderPlot(ctx, p.rpc, call, w); err != nil {
		return fmt.Errorf("RenderPlot RPC: %w", err)
	}
	return nil
}

func (p *grpcPlot) Applies(run *sdk.PlotRun) bool { return p.applies([]*sdk.PlotRun{run}, false) }

func (p *grpcPlot) Render(run *sdk.PlotRun, opts sdk.PlotOptions, w io.Writer) error {
	return p.render([]*sdk.PlotRun{run}, false, opts, w)
}

func (p grpcComparisonPlot) AppliesToRuns(runs []*sdk.PlotRun) bool { return p.applies(runs, true) }

func (p grpcComparisonPlot) RenderRuns(runs []*sdk.PlotRun, opts sdk.PlotOptions, w io.Writer) error {
	return p.render(runs, true, opts, w)
}
