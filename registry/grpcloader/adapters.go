package grpcloader

import (
	"context"
	"fmt"
	"slices"
	"sync"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/grpcplugin"
	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
)

// newAdapter wraps c in the category's sdk interface.
func newAdapter(category string, c *conn) (any, error) {
	switch category {
	case sdk.CategoryEndpoint:
		return &Endpoint{conn: c}, nil
	case sdk.CategoryRecordProcessor:
		return &RecordProcessor{conn: c}, nil
	case sdk.CategoryCustomDataset:
		return &DatasetLoader{conn: c}, nil
	case sdk.CategoryDataExporter:
		return &DataExporter{conn: c}, nil
	case sdk.CategoryGPUTelemetry:
		return &GPUCollector{&telemetrySource{conn: c}}, nil
	case sdk.CategoryServerMetrics:
		return &ServerMetricsCollector{&telemetrySource{conn: c}}, nil
	case sdk.CategoryPlot:
		return newPlot(c), nil
	}
	return nil, fmt.Errorf("plugin %s: category %s is not available to grpc plugins (supported: %s)", c.label, category, supportedList())
}

// Endpoint is a gRPC endpoint plugin. ParseRecord makes one call per
// record; ParseResponse (one unit) exists for the interface but costs a
// whole round trip per call.
type Endpoint struct{ *conn }

var (
	_ sdk.Endpoint       = (*Endpoint)(nil)
	_ sdk.RecordParser   = (*Endpoint)(nil)
	_ Described          = (*Endpoint)(nil)
	_ ExternalConfigurer = (*Endpoint)(nil)
)

// Metadata implements sdk.Endpoint: the latest Describe answer (at load,
// then after Configure), no call.
func (a *Endpoint) Metadata() sdk.EndpointMetadata { return a.proc.current.Load().meta }

// FormatPayload implements sdk.Endpoint.
func (a *Endpoint) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	const method = "FormatPayload"
	if err := a.deadError(method); err != nil {
		return nil, err
	}
	in, err := pluginpb.FromRequestInfo(req)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %s: encoding request: %w", a.label, method, err)
	}
	ctx, cancel := a.callCtx(context.Background())
	defer cancel()
	resp, err := a.proc.rpc.FormatPayload(ctx, in)
	if err != nil {
		return nil, a.callError(method, err)
	}
	return resp.GetPayload(), nil
}

// ParseResponse implements sdk.Endpoint with a one-unit ParseRecord.
func (a *Endpoint) ParseResponse(data []byte) (sdk.ParsedResponse, error) {
	out, err := a.parse("ParseResponse", []sdk.Response{{Data: data}})
	if err != nil {
		return sdk.ParsedResponse{}, err
	}
	return out[0], nil
}

// ParseRecord implements sdk.RecordParser: one call for the whole record.
func (a *Endpoint) ParseRecord(units []sdk.Response) ([]sdk.ParsedResponse, error) {
	return a.parse("ParseRecord", units)
}

func (a *Endpoint) parse(method string, units []sdk.Response) ([]sdk.ParsedResponse, error) {
	if err := a.deadError(method); err != nil {
		return nil, err
	}
	// One backing array for the unit messages; Data is shared, not copied.
	msgs := make([]pluginpb.ResponseUnit, len(units))
	req := &pluginpb.ParseRecordRequest{Units: make([]*pluginpb.ResponseUnit, len(units))}
	for i := range units {
		m := &msgs[i]
		m.PerfNs, m.Event, m.Data = units[i].PerfNs, units[i].Event, units[i].Data
		req.Units[i] = m
	}
	ctx, cancel := a.callCtx(context.Background())
	defer cancel()
	resp, err := a.proc.rpc.ParseRecord(ctx, req)
	if err != nil {
		return nil, a.callError(method, err)
	}
	if len(resp.UnitErrors) > 0 {
		first := int32(len(units))
		for i := range resp.UnitErrors {
			first = min(first, i)
		}
		return nil, fmt.Errorf("plugin %s: %s: unit %d: %s", a.label, method, first, resp.UnitErrors[first])
	}
	if len(resp.Responses) != len(units) {
		return nil, fmt.Errorf("plugin %s: %s: returned %d parsed responses for %d units", a.label, method, len(resp.Responses), len(units))
	}
	out := make([]sdk.ParsedResponse, len(units))
	for i, r := range resp.Responses {
		out[i] = sdk.ParsedResponse{PerfNs: units[i].PerfNs, Text: r.GetText(), Reasoning: r.GetReasoning(),
			Usage: pluginpb.ToUsage(r.GetUsage())}
	}
	return out, nil
}

// RecordProcessor is a gRPC record processor plugin. Process is safe for
// concurrent use (calls are multiplexed on one connection).
type RecordProcessor struct{ *conn }

var (
	_ sdk.RecordProcessor = (*RecordProcessor)(nil)
	_ sdk.Initializer     = (*RecordProcessor)(nil)
	_ Described           = (*RecordProcessor)(nil)
	_ ExternalConfigurer  = (*RecordProcessor)(nil)
)

// Metrics implements sdk.RecordProcessor: the metrics the latest Describe
// answer declares (at load, then after Configure and Init), no call.
func (a *RecordProcessor) Metrics() []sdk.MetricSpec {
	specs := slices.Clone(a.proc.current.Load().metrics)
	for i := range specs {
		specs[i].Requires = slices.Clone(specs[i].Requires)
	}
	return specs
}

// Init implements sdk.Initializer with the InitRecordProcessor call, then
// describes the plugin again (its metrics may follow the run).
func (a *RecordProcessor) Init(ctx context.Context, info sdk.RunInfo) error {
	const method = "InitRecordProcessor"
	if err := a.deadError(method); err != nil {
		return err
	}
	cctx, cancel := a.callCtx(ctx)
	defer cancel()
	if _, err := a.proc.rpc.InitRecordProcessor(cctx, pluginpb.FromRunInfo(info)); err != nil {
		return a.callError(method, err)
	}
	return a.redescribe(ctx)
}

// Process implements sdk.RecordProcessor.
func (a *RecordProcessor) Process(rec *sdk.ParsedRecord) (*sdk.RecordMetrics, error) {
	const method = "ProcessRecord"
	if err := a.deadError(method); err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, fmt.Errorf("plugin %s: %s: nil record", a.label, method)
	}
	ctx, cancel := a.callCtx(context.Background())
	defer cancel()
	resp, err := a.proc.rpc.ProcessRecord(ctx, pluginpb.FromParsedRecord(rec))
	if err != nil {
		return nil, a.callError(method, err)
	}
	return &sdk.RecordMetrics{Record: rec.Record, Values: pluginpb.ToMetricValues(resp.GetValues()), InputTokens: rec.InputTokens}, nil
}

// DatasetLoader is a gRPC custom dataset loader plugin.
type DatasetLoader struct{ *conn }

var (
	_ sdk.CustomDatasetLoader = (*DatasetLoader)(nil)
	_ Described               = (*DatasetLoader)(nil)
	_ ExternalConfigurer      = (*DatasetLoader)(nil)
)

// CanLoad implements sdk.CustomDatasetLoader. The interface has no error
// result, so a failed call is logged and answers false.
func (a *DatasetLoader) CanLoad(path string) bool {
	const method = "CanLoad"
	err := a.deadError(method)
	if err == nil {
		ctx, cancel := a.callCtx(context.Background())
		defer cancel()
		var resp *pluginpb.CanLoadResponse
		if resp, err = a.proc.rpc.CanLoad(ctx, &pluginpb.CanLoadRequest{Path: path}); err == nil {
			return resp.GetOk()
		}
		err = a.callError(method, err)
	}
	a.logger.Warn("dataset format detection failed", "plugin", a.label, "error", err)
	return false
}

// Load implements sdk.CustomDatasetLoader.
func (a *DatasetLoader) Load(ctx context.Context, path string, opts sdk.DatasetOptions) ([]sdk.Conversation, error) {
	const method = "LoadDataset"
	if err := a.deadError(method); err != nil {
		return nil, err
	}
	cctx, cancel := a.callCtx(ctx)
	defer cancel()
	resp, err := a.proc.rpc.LoadDataset(cctx, &pluginpb.LoadDatasetRequest{Path: path, Options: pluginpb.FromDatasetOptions(opts)})
	if err != nil {
		return nil, a.callError(method, err)
	}
	convs, err := pluginpb.ToConversations(resp.GetConversations())
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %s: decoding conversations: %w", a.label, method, err)
	}
	return convs, nil
}

// DataExporter is a gRPC data exporter plugin.
type DataExporter struct{ *conn }

var (
	_ sdk.DataExporter   = (*DataExporter)(nil)
	_ Described          = (*DataExporter)(nil)
	_ ExternalConfigurer = (*DataExporter)(nil)
)

// Export implements sdk.DataExporter; ec crosses as JSON (grpcplugin's
// wire form, which keeps the metric fields sdk hides from JSON).
func (a *DataExporter) Export(ctx context.Context, ec *sdk.ExportContext) ([]sdk.ExportedFile, error) {
	const method = "Export"
	if err := a.deadError(method); err != nil {
		return nil, err
	}
	doc, err := grpcplugin.MarshalExportContext(ec)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %s: %w", a.label, method, err)
	}
	cctx, cancel := a.callCtx(ctx)
	defer cancel()
	resp, err := a.proc.rpc.Export(cctx, &pluginpb.ExportRequest{ExportContextJson: doc})
	if err != nil {
		return nil, a.callError(method, err)
	}
	files := make([]sdk.ExportedFile, len(resp.GetFiles()))
	for i, f := range resp.GetFiles() {
		files[i] = sdk.ExportedFile{Label: f.GetLabel(), Path: f.GetPath()}
	}
	return files, nil
}

// telemetrySource is what both telemetry adapters share. The core builds
// one collector per source, each with its own settings ({"url": ...}), but
// one process serves every entry and source of a binary: before each call
// the adapter re-applies its own settings when another source's are in
// place, under a per-process lock (calls come 3 times a second per
// source, so serializing them costs nothing).
type telemetrySource struct {
	*conn
	config []byte // this source's settings, as configured
	once   sync.Once
	source string
}

// Configure records this source's settings, then applies them.
func (a *telemetrySource) Configure(ctx context.Context, configJSON []byte) error {
	a.config = append([]byte(nil), configJSON...)
	a.proc.telemetryMu.Lock()
	defer a.proc.telemetryMu.Unlock()
	if err := a.conn.Configure(ctx, configJSON); err != nil {
		return err
	}
	a.proc.telemetryOwner = a
	return nil
}

// withSettings runs call with this source's settings in place.
func (a *telemetrySource) withSettings(ctx context.Context, call func() error) error {
	a.proc.telemetryMu.Lock()
	defer a.proc.telemetryMu.Unlock()
	if a.config != nil && a.proc.telemetryOwner != a {
		cctx, cancel := a.callCtx(ctx)
		_, err := a.proc.rpc.Configure(cctx, &pluginpb.ConfigureRequest{Category: a.category, Name: a.name, ConfigJson: a.config})
		cancel()
		if err != nil {
			return a.callError("Configure", err)
		}
		a.proc.telemetryOwner = a
	}
	return call()
}

// Source implements the collectors' Source. A failed call names the
// plugin instead, so the sampler's warnings still say whose source failed.
func (a *telemetrySource) Source() string {
	a.once.Do(func() {
		const method = "TelemetrySource"
		err := a.deadError(method)
		if err == nil {
			err = a.withSettings(context.Background(), func() error {
				ctx, cancel := a.callCtx(context.Background())
				defer cancel()
				resp, err := a.proc.rpc.TelemetrySource(ctx, &pluginpb.Empty{})
				if err != nil {
					return a.callError(method, err)
				}
				a.source = resp.GetSource()
				return nil
			})
		}
		if err != nil {
			a.logger.Warn("telemetry source name unavailable", "plugin", a.label, "error", err)
		}
		if a.source == "" {
			a.source = "plugin:" + a.label
		}
	})
	return a.source
}

// GPUCollector is a gRPC GPU telemetry collector plugin.
type GPUCollector struct{ *telemetrySource }

var (
	_ sdk.GPUTelemetryCollector = (*GPUCollector)(nil)
	_ Described                 = (*GPUCollector)(nil)
	_ ExternalConfigurer        = (*GPUCollector)(nil)
)

// Sample implements sdk.GPUTelemetryCollector.
func (a *GPUCollector) Sample(ctx context.Context) ([]sdk.GPUReading, error) {
	const method = "SampleGPU"
	if err := a.deadError(method); err != nil {
		return nil, err
	}
	var out []sdk.GPUReading
	err := a.withSettings(ctx, func() error {
		cctx, cancel := a.callCtx(ctx)
		defer cancel()
		resp, err := a.proc.rpc.SampleGPU(cctx, &pluginpb.Empty{})
		if err != nil {
			return a.callError(method, err)
		}
		out = pluginpb.ToGPUReadings(resp.GetGpus())
		return nil
	})
	return out, err
}

// ServerMetricsCollector is a gRPC server metrics collector plugin.
type ServerMetricsCollector struct{ *telemetrySource }

var (
	_ sdk.ServerMetricsCollector = (*ServerMetricsCollector)(nil)
	_ Described                  = (*ServerMetricsCollector)(nil)
	_ ExternalConfigurer         = (*ServerMetricsCollector)(nil)
)

// Scrape implements sdk.ServerMetricsCollector.
func (a *ServerMetricsCollector) Scrape(ctx context.Context) (sdk.ServerMetricsScrape, error) {
	const method = "ScrapeServerMetrics"
	if err := a.deadError(method); err != nil {
		return sdk.ServerMetricsScrape{}, err
	}
	var out sdk.ServerMetricsScrape
	err := a.withSettings(ctx, func() error {
		cctx, cancel := a.callCtx(ctx)
		defer cancel()
		resp, err := a.proc.rpc.ScrapeServerMetrics(cctx, &pluginpb.Empty{})
		if err != nil {
			return a.callError(method, err)
		}
		out = sdk.ServerMetricsScrape{Body: resp.GetBody(), ContentType: resp.GetContentType()}
		return nil
	})
	return out, err
}
