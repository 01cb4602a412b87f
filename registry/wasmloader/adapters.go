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
type endpoint struct {
	*plugin
	md sdk.EndpointMetadata
}

var (
	_ sdk.Endpoint     = (*endpoint)(nil)
	_ sdk.RecordParser = (*endpoint)(nil)
)

func (e *endpoint) Metadata() sdk.EndpointMetadata { return e.md }

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

var _ sdk.RecordProcessor = (*recordProcessor)(nil)

func (r *recordProcessor) Init(info sdk.RunInfo) error {
	return r.setInit(context.Background(), wasmguest.MethodInitRecordProcessor, pluginpb.FromRunInfo(info))
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

var _ sdk.CustomDatasetLoader = (*datasetLoader)(nil)

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
