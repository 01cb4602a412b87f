package wasmloader

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
	"github.com/aiperf-go/aiperf/plugin-sdk/wasmguest"
)

// endpoint adapts a WASM endpoint plugin. The core calls ParseRecord once
// per record, after the timed window.
type endpoint struct{ *plugin }

var (
	_ sdk.Endpoint       = (*endpoint)(nil)
	_ sdk.RecordParser   = (*endpoint)(nil)
	_ ExternalConfigurer = (*endpoint)(nil)
)

// Metadata is the latest Describe answer's (at load, then after Configure).
func (e *endpoint) Metadata() sdk.EndpointMetadata { return e.described.Load().md }

func (e *endpoint) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	msg, err := pluginpb.FromRequestInfo(req)
	if err != nil {
		return nil, fmt.Errorf("wasm plugin %s: FormatPayload: %w", e.name, err)
	}
	var resp pluginpb.FormatPayloadResponse
	if err := e.call(context.Background(), wasmguest.MethodFormatPayload, msg, &resp); err != nil {
		return nil, err
	}
	return resp.Payload, nil
}

// ParseResponse parses a single unit; it costs a whole plugin call, so the
// core uses ParseRecord instead.
func (e *endpoint) ParseResponse(data []byte) (sdk.ParsedResponse, error) {
	out, err := e.ParseRecord([]sdk.Response{{Data: data}})
	if err != nil {
		return sdk.ParsedResponse{}, err
	}
	return out[0], nil
}

func (e *endpoint) ParseRecord(units []sdk.Response) ([]sdk.ParsedResponse, error) {
	req := &pluginpb.ParseRecordRequest{Units: make([]*pluginpb.ResponseUnit, len(units))}
	pbUnits := make([]pluginpb.ResponseUnit, len(units))
	for i := range units {
		pbUnits[i] = pluginpb.ResponseUnit{PerfNs: units[i].PerfNs, Event: units[i].Event, Data: units[i].Data}
		req.Units[i] = &pbUnits[i]
	}
	var resp pluginpb.ParseRecordResponse
	if err := e.call(context.Background(), wasmguest.MethodParseRecord, req, &resp); err != nil {
		return nil, err
	}
	if len(resp.UnitErrors) > 0 {
		idx := make([]int32, 0, len(resp.UnitErrors))
		for i := range resp.UnitErrors {
			idx = append(idx, i)
		}
		first := slices.Min(idx)
		return nil, fmt.Errorf("wasm plugin %s: ParseRecord: unit %d: %s", e.name, first, resp.UnitErrors[first])
	}
	if len(resp.Responses) != len(units) {
		return nil, fmt.Errorf("wasm plugin %s: ParseRecord returned %d parsed responses for %d units", e.name, len(resp.Responses), len(units))
	}
	out := make([]sdk.ParsedResponse, len(units))
	for i, r := range resp.Responses {
		out[i] = pluginpb.ToParsedResponse(r)
		out[i].PerfNs = units[i].PerfNs
	}
	return out, nil
}

// recordProcessor adapts a WASM record processor; Process runs on several
// goroutines, each on its own pooled instance.
type recordProcessor struct{ *plugin }

var (
	_ sdk.RecordProcessor = (*recordProcessor)(nil)
	_ sdk.Initializer     = (*recordProcessor)(nil)
	_ ExternalConfigurer  = (*recordProcessor)(nil)
)

// Metrics are what the latest Describe answer declares (at load, then
// after Configure and Init); a copy.
func (r *recordProcessor) Metrics() []sdk.MetricSpec {
	specs := slices.Clone(r.described.Load().metrics)
	for i := range specs {
		specs[i].Requires = slices.Clone(specs[i].Requires)
	}
	return specs
}

// Init is the InitRecordProcessor method, replayed on every instance.
func (r *recordProcessor) Init(ctx context.Context, info sdk.RunInfo) error {
	return r.initRun(ctx, wasmguest.MethodInitRecordProcessor, pluginpb.FromRunInfo(info))
}

func (r *recordProcessor) Process(rec *sdk.ParsedRecord) (*sdk.RecordMetrics, error) {
	var resp pluginpb.ProcessRecordResponse
	if err := r.call(context.Background(), wasmguest.MethodProcessRecord, pluginpb.FromParsedRecord(rec), &resp); err != nil {
		return nil, err
	}
	return &sdk.RecordMetrics{Record: rec.Record, Values: pluginpb.ToMetricValues(resp.Values), InputTokens: rec.InputTokens}, nil
}

// datasetLoader adapts a WASM custom dataset loader. The module can only
// read files under the directories its manifest grants.
type datasetLoader struct {
	*plugin
	log *slog.Logger
}

var (
	_ sdk.CustomDatasetLoader = (*datasetLoader)(nil)
	_ ExternalConfigurer      = (*datasetLoader)(nil)
)

func (d *datasetLoader) CanLoad(path string) bool {
	var resp pluginpb.CanLoadResponse
	if err := d.call(context.Background(), wasmguest.MethodCanLoad, &pluginpb.CanLoadRequest{Path: path}, &resp); err != nil {
		d.log.Warn("dataset format detection failed", "plugin", d.name, "path", path, "err", err)
		return false
	}
	return resp.Ok
}

func (d *datasetLoader) Load(ctx context.Context, path string, opts sdk.DatasetOptions) ([]sdk.Conversation, error) {
	var resp pluginpb.LoadDatasetResponse
	req := &pluginpb.LoadDatasetRequest{Path: path, Options: pluginpb.FromDatasetOptions(opts)}
	if err := d.call(ctx, wasmguest.MethodLoadDataset, req, &resp); err != nil {
		return nil, err
	}
	convs, err := pluginpb.ToConversations(resp.Conversations)
	if err != nil {
		return nil, fmt.Errorf("wasm plugin %s: LoadDataset: %w", d.name, err)
	}
	return convs, nil
}
