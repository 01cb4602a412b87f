package pluginpb

// Conversions between the sdk value types and the protocol messages, used
// by both sides of both transports (gRPC and WASM).

import (
	"encoding/json"
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func i64p(p *int) *int64 {
	if p == nil {
		return nil
	}
	v := int64(*p)
	return &v
}

func intp(p *int64) *int {
	if p == nil {
		return nil
	}
	v := int(*p)
	return &v
}

func jsonObject(m map[string]any) ([]byte, error) {
	if len(m) == 0 {
		return nil, nil
	}
	return json.Marshal(m)
}

func fromJSONObject(b []byte) (map[string]any, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("extra inputs: %w", err)
	}
	return m, nil
}

// rawJSON keeps an absent verbatim field nil (proto3 bytes decode as empty).
func rawJSON(b []byte) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	return json.RawMessage(b)
}

// FromEndpointMetadata converts sdk endpoint metadata.
func FromEndpointMetadata(m sdk.EndpointMetadata) *EndpointMetadata {
	return &EndpointMetadata{EndpointPath: m.EndpointPath, StreamingPath: m.StreamingPath, ServiceKind: m.ServiceKind,
		SupportsStreaming: m.SupportsStreaming, ProducesTokens: m.ProducesTokens, TokenizesInput: m.TokenizesInput,
		MetricsTitle: m.MetricsTitle, SupportsImages: m.SupportsImages, SupportsAudio: m.SupportsAudio,
		SupportsVideos: m.SupportsVideos, ProducesImages: m.ProducesImages, ProducesVideos: m.ProducesVideos,
		RequiresPolling: m.RequiresPolling, RequiresFormData: m.RequiresFormData,
		ConsumesSystemMessage: m.ConsumesSystemMessage, SendsRawMessages: m.SendsRawMessages}
}

// ToEndpointMetadata converts protocol endpoint metadata.
func ToEndpointMetadata(m *EndpointMetadata) sdk.EndpointMetadata {
	if m == nil {
		return sdk.EndpointMetadata{}
	}
	return sdk.EndpointMetadata{EndpointPath: m.EndpointPath, StreamingPath: m.StreamingPath, ServiceKind: m.ServiceKind,
		SupportsStreaming: m.SupportsStreaming, ProducesTokens: m.ProducesTokens, TokenizesInput: m.TokenizesInput,
		MetricsTitle: m.MetricsTitle, SupportsImages: m.SupportsImages, SupportsAudio: m.SupportsAudio,
		SupportsVideos: m.SupportsVideos, ProducesImages: m.ProducesImages, ProducesVideos: m.ProducesVideos,
		RequiresPolling: m.RequiresPolling, RequiresFormData: m.RequiresFormData,
		ConsumesSystemMessage: m.ConsumesSystemMessage, SendsRawMessages: m.SendsRawMessages}
}

// FromTurn converts an sdk turn.
func FromTurn(t sdk.Turn) (*Turn, error) {
	extra, err := jsonObject(t.Extra)
	if err != nil {
		return nil, err
	}
	out := &Turn{Texts: t.Texts, Role: t.Role, Model: t.Model, MaxTokens: i64p(t.MaxTokens), ExtraJson: extra,
		DelayMs: t.DelayMs, TimestampMs: t.TimestampMs, Images: t.Images, Audios: t.Audios, Videos: t.Videos,
		AudioDurationS: t.AudioDurationS, RawMessages: t.RawMessages, RawTools: t.RawTools, RawPayload: t.RawPayload}
	for _, g := range t.TextGroups {
		out.TextGroups = append(out.TextGroups, &TextGroup{Name: g.Name, Contents: g.Contents})
	}
	return out, nil
}

// ToTurn converts a protocol turn.
func ToTurn(t *Turn) (sdk.Turn, error) {
	if t == nil {
		return sdk.Turn{}, nil
	}
	extra, err := fromJSONObject(t.ExtraJson)
	if err != nil {
		return sdk.Turn{}, err
	}
	out := sdk.Turn{Texts: t.Texts, Role: t.Role, Model: t.Model, MaxTokens: intp(t.MaxTokens), Extra: extra,
		DelayMs: t.DelayMs, TimestampMs: t.TimestampMs, Images: t.Images, Audios: t.Audios, Videos: t.Videos,
		AudioDurationS: t.AudioDurationS, RawMessages: rawJSON(t.RawMessages), RawTools: rawJSON(t.RawTools),
		RawPayload: rawJSON(t.RawPayload)}
	for _, g := range t.TextGroups {
		out.TextGroups = append(out.TextGroups, sdk.TextGroup{Name: g.GetName(), Contents: g.GetContents()})
	}
	return out, nil
}

// FromRequestInfo converts an sdk request info.
func FromRequestInfo(r sdk.RequestInfo) (*RequestInfo, error) {
	turn, err := FromTurn(r.Turn)
	if err != nil {
		return nil, err
	}
	extra, err := jsonObject(r.ExtraInputs)
	if err != nil {
		return nil, err
	}
	out := &RequestInfo{Model: r.Model, Streaming: r.Streaming, Turn: turn, UseLegacyMaxTokens: r.UseLegacyMaxTokens,
		IncludeUsage: r.IncludeUsage, ExtraInputsJson: extra, SystemMessage: r.SystemMessage,
		UserContextMessage: r.UserContextMessage}
	for _, h := range r.History {
		out.History = append(out.History, &HistoryEntry{Role: h.Role, Text: h.Text})
	}
	return out, nil
}

// ToRequestInfo converts a protocol request info.
func ToRequestInfo(r *RequestInfo) (sdk.RequestInfo, error) {
	turn, err := ToTurn(r.GetTurn())
	if err != nil {
		return sdk.RequestInfo{}, err
	}
	extra, err := fromJSONObject(r.GetExtraInputsJson())
	if err != nil {
		return sdk.RequestInfo{}, err
	}
	out := sdk.RequestInfo{Model: r.GetModel(), Streaming: r.GetStreaming(), Turn: turn,
		UseLegacyMaxTokens: r.GetUseLegacyMaxTokens(), IncludeUsage: r.GetIncludeUsage(), ExtraInputs: extra,
		SystemMessage: r.GetSystemMessage(), UserContextMessage: r.GetUserContextMessage()}
	for _, h := range r.GetHistory() {
		out.History = append(out.History, sdk.HistoryEntry{Role: h.Role, Text: h.Text})
	}
	return out, nil
}

// FromUsage converts sdk usage (nil stays nil).
func FromUsage(u *sdk.Usage) *Usage {
	if u == nil {
		return nil
	}
	return &Usage{PromptTokens: i64p(u.PromptTokens), CompletionTokens: i64p(u.CompletionTokens),
		TotalTokens: i64p(u.TotalTokens), ReasoningTokens: i64p(u.ReasoningTokens)}
}

// ToUsage converts protocol usage (nil stays nil).
func ToUsage(u *Usage) *sdk.Usage {
	if u == nil {
		return nil
	}
	return &sdk.Usage{PromptTokens: intp(u.PromptTokens), CompletionTokens: intp(u.CompletionTokens),
		TotalTokens: intp(u.TotalTokens), ReasoningTokens: intp(u.ReasoningTokens)}
}

// FromParsedResponse converts an sdk parsed response.
func FromParsedResponse(p sdk.ParsedResponse) *ParsedResponse {
	return &ParsedResponse{PerfNs: p.PerfNs, Text: p.Text, Reasoning: p.Reasoning, Usage: FromUsage(p.Usage),
		Result: FromResult(p.Result)}
}

// FromResult converts a non-text result (nil stays nil).
func FromResult(r *sdk.Result) *Result {
	if r == nil {
		return nil
	}
	out := &Result{Kind: r.Kind, Count: int64(r.Count)}
	if v := r.Video; v != nil {
		out.VideoId, out.VideoStatus = v.ID, v.Status
		out.VideoInferenceTimeS, out.VideoPeakMemoryMb = v.InferenceTimeS, v.PeakMemoryMB
	}
	return out
}

// ToResult converts a protocol result (nil stays nil).
func ToResult(r *Result) *sdk.Result {
	if r == nil {
		return nil
	}
	out := &sdk.Result{Kind: r.GetKind(), Count: int(r.GetCount())}
	if r.GetKind() == sdk.ResultVideo || r.GetVideoId() != "" || r.GetVideoStatus() != "" {
		out.Video = &sdk.VideoJob{ID: r.GetVideoId(), Status: r.GetVideoStatus(),
			InferenceTimeS: r.VideoInferenceTimeS, PeakMemoryMB: r.VideoPeakMemoryMb}
	}
	return out
}

// ToParsedResponse converts a protocol parsed response.
func ToParsedResponse(p *ParsedResponse) sdk.ParsedResponse {
	if p == nil {
		return sdk.ParsedResponse{}
	}
	return sdk.ParsedResponse{PerfNs: p.PerfNs, Text: p.Text, Reasoning: p.Reasoning, Usage: ToUsage(p.Usage),
		Result: ToResult(p.Result)}
}

// FromRecord converts an sdk request record (raw responses are not carried:
// record processors receive them parsed).
func FromRecord(r *sdk.RequestRecord) *RequestRecord {
	if r == nil {
		return nil
	}
	out := &RequestRecord{ConversationId: r.ConversationID, TurnIndex: int32(r.TurnIndex), SessionNum: int32(r.SessionNum),
		XRequestId: r.XRequestID, XCorrelationId: r.XCorrelationID, Model: r.Model, Phase: r.Phase,
		CreditIssuedNs: r.CreditIssuedNs, ScheduledNs: r.ScheduledNs, TimestampNs: r.TimestampNs,
		StartPerfNs: r.StartPerfNs, AckPerfNs: r.AckPerfNs, EndPerfNs: r.EndPerfNs, Streaming: r.Streaming,
		Status: int32(r.Status), RequestedOutputTokens: i64p(r.RequestedOutputTokens), WasCancelled: r.WasCancelled}
	if r.Error != nil {
		out.Error = &ErrorDetails{Code: int32(r.Error.Code), Type: r.Error.Type, Message: r.Error.Message}
	}
	return out
}

// ToRecord converts a protocol request record.
func ToRecord(r *RequestRecord) *sdk.RequestRecord {
	if r == nil {
		return &sdk.RequestRecord{}
	}
	out := &sdk.RequestRecord{ConversationID: r.ConversationId, TurnIndex: int(r.TurnIndex), SessionNum: int(r.SessionNum),
		XRequestID: r.XRequestId, XCorrelationID: r.XCorrelationId, Model: r.Model, Phase: r.Phase,
		CreditIssuedNs: r.CreditIssuedNs, ScheduledNs: r.ScheduledNs, TimestampNs: r.TimestampNs,
		StartPerfNs: r.StartPerfNs, AckPerfNs: r.AckPerfNs, EndPerfNs: r.EndPerfNs, Streaming: r.Streaming,
		Status: int(r.Status), RequestedOutputTokens: intp(r.RequestedOutputTokens), WasCancelled: r.WasCancelled}
	if r.Error != nil {
		out.Error = &sdk.ErrorDetails{Code: int(r.Error.Code), Type: r.Error.Type, Message: r.Error.Message}
	}
	return out
}

// FromParsedRecord converts an sdk parsed record.
func FromParsedRecord(p *sdk.ParsedRecord) *ParsedRecord {
	out := &ParsedRecord{Record: FromRecord(p.Record), InputText: p.InputText, InputTokens: i64p(p.InputTokens),
		OutputTokens: i64p(p.OutputTokens), ReasoningTokens: i64p(p.ReasoningTokens), Usage: FromUsage(p.Usage)}
	for _, r := range p.Responses {
		out.Responses = append(out.Responses, FromParsedResponse(r))
	}
	return out
}

// ToParsedRecord converts a protocol parsed record.
func ToParsedRecord(p *ParsedRecord) *sdk.ParsedRecord {
	out := &sdk.ParsedRecord{Record: ToRecord(p.GetRecord()), InputText: p.GetInputText(), InputTokens: intp(p.InputTokens),
		OutputTokens: intp(p.OutputTokens), ReasoningTokens: intp(p.ReasoningTokens), Usage: ToUsage(p.GetUsage())}
	for _, r := range p.GetResponses() {
		out.Responses = append(out.Responses, ToParsedResponse(r))
	}
	return out
}

// FromMetricValues converts per-record metric values.
func FromMetricValues(v map[string]sdk.MetricValue) map[string]*MetricValue {
	out := make(map[string]*MetricValue, len(v))
	for k, m := range v {
		out[k] = &MetricValue{Scalar: m.Scalar, List: m.List, IsList: m.IsList}
	}
	return out
}

// ToMetricValues converts protocol metric values.
func ToMetricValues(v map[string]*MetricValue) map[string]sdk.MetricValue {
	out := make(map[string]sdk.MetricValue, len(v))
	for k, m := range v {
		if m == nil {
			continue
		}
		out[k] = sdk.MetricValue{Scalar: m.Scalar, List: m.List, IsList: m.IsList}
	}
	return out
}

// FromRunInfo converts run info. Phase, MaxConcurrency and RequestTimeout
// do not cross: they serve built-in-only categories (per-phase plugins and
// the transport), and the protocol has no fields for them.
func FromRunInfo(r sdk.RunInfo) *RunInfo {
	return &RunInfo{Endpoint: FromEndpointMetadata(r.Endpoint), Streaming: r.Streaming, Goodput: r.Goodput,
		Models: r.Models, Seed: r.Seed, ArtifactDir: r.ArtifactDir}
}

// ToRunInfo converts protocol run info.
func ToRunInfo(r *RunInfo) sdk.RunInfo {
	return sdk.RunInfo{Endpoint: ToEndpointMetadata(r.GetEndpoint()), Streaming: r.GetStreaming(), Goodput: r.GetGoodput(),
		Models: r.GetModels(), Seed: r.GetSeed(), ArtifactDir: r.GetArtifactDir()}
}

// FromMetricSpec converts one declared metric.
func FromMetricSpec(m sdk.MetricSpec) *MetricSpec {
	return &MetricSpec{Tag: m.Tag, Header: m.Header, ShortHeader: m.ShortHeader, Unit: m.Unit, DisplayUnit: m.DisplayUnit,
		Flags: uint32(m.Flags), DisplayOrder: int32(m.DisplayOrder), Integer: m.Integer, List: m.List, Requires: m.Requires,
		ConsoleGroup: m.ConsoleGroup}
}

// ToMetricSpec converts one protocol metric declaration.
func ToMetricSpec(m *MetricSpec) sdk.MetricSpec {
	return sdk.MetricSpec{Tag: m.GetTag(), Header: m.GetHeader(), ShortHeader: m.GetShortHeader(), Unit: m.GetUnit(),
		DisplayUnit: m.GetDisplayUnit(), Flags: sdk.MetricFlags(m.GetFlags()), DisplayOrder: int(m.GetDisplayOrder()),
		Integer: m.GetInteger(), List: m.GetList(), Requires: m.GetRequires(), ConsoleGroup: m.GetConsoleGroup()}
}

// FromMetricSpecs converts the metrics a record processor declares (nil
// for none).
func FromMetricSpecs(specs []sdk.MetricSpec) []*MetricSpec {
	if len(specs) == 0 {
		return nil
	}
	out := make([]*MetricSpec, len(specs))
	for i, m := range specs {
		out[i] = FromMetricSpec(m)
	}
	return out
}

// ToMetricSpecs converts DescribeResponse.metrics (nil for none; nil
// entries are skipped).
func ToMetricSpecs(specs []*MetricSpec) []sdk.MetricSpec {
	if len(specs) == 0 {
		return nil
	}
	out := make([]sdk.MetricSpec, 0, len(specs))
	for _, m := range specs {
		if m != nil {
			out = append(out, ToMetricSpec(m))
		}
	}
	return out
}

// FromDatasetOptions converts dataset options (the tokenizer does not cross:
// a loader that needs token counts brings its own).
func FromDatasetOptions(o sdk.DatasetOptions) *DatasetOptions {
	// block_size stays unset: it is now the mooncake_trace loader's own setting.
	return &DatasetOptions{Models: o.Models, NumEntries: int32(o.NumEntries), InputTokensMean: int32(o.InputTokensMean),
		InputTokensStddev: o.InputTokensStddev, OutputTokensMean: int32(o.OutputTokensMean),
		OutputTokensStddev: o.OutputTokensStddev, RandomSeed: o.RandomSeed, InputFile: o.InputFile,
		CustomDatasetType: o.CustomDatasetType}
}

// ToDatasetOptions converts protocol dataset options.
func ToDatasetOptions(o *DatasetOptions) sdk.DatasetOptions {
	return sdk.DatasetOptions{Models: o.GetModels(), NumEntries: int(o.GetNumEntries()), InputTokensMean: int(o.GetInputTokensMean()),
		InputTokensStddev: o.GetInputTokensStddev(), OutputTokensMean: int(o.GetOutputTokensMean()),
		OutputTokensStddev: o.GetOutputTokensStddev(), RandomSeed: o.GetRandomSeed(), InputFile: o.GetInputFile(),
		CustomDatasetType: o.GetCustomDatasetType()}
}

// FromConversations converts conversations.
func FromConversations(cs []sdk.Conversation) ([]*Conversation, error) {
	out := make([]*Conversation, 0, len(cs))
	for _, c := range cs {
		pc := &Conversation{SessionId: c.SessionID, SystemMessage: c.SystemMessage, UserContextMessage: c.UserContextMessage}
		for _, t := range c.Turns {
			pt, err := FromTurn(t)
			if err != nil {
				return nil, fmt.Errorf("conversation %s: %w", c.SessionID, err)
			}
			pc.Turns = append(pc.Turns, pt)
		}
		out = append(out, pc)
	}
	return out, nil
}

// ToConversations converts protocol conversations.
func ToConversations(cs []*Conversation) ([]sdk.Conversation, error) {
	out := make([]sdk.Conversation, 0, len(cs))
	for _, c := range cs {
		sc := sdk.Conversation{SessionID: c.GetSessionId(), SystemMessage: c.GetSystemMessage(),
			UserContextMessage: c.GetUserContextMessage()}
		for _, t := range c.GetTurns() {
			st, err := ToTurn(t)
			if err != nil {
				return nil, fmt.Errorf("conversation %s: %w", c.GetSessionId(), err)
			}
			sc.Turns = append(sc.Turns, st)
		}
		out = append(out, sc)
	}
	return out, nil
}

// FromGPUReadings converts GPU readings.
func FromGPUReadings(rs []sdk.GPUReading) []*GPUReading {
	out := make([]*GPUReading, len(rs))
	for i, r := range rs {
		out[i] = &GPUReading{Index: int64(r.Index), Uuid: r.UUID, Name: r.Name, PciBusId: r.PCIBusID,
			Hostname: r.Hostname, Device: r.Device, Metrics: r.Metrics}
	}
	return out
}

// ToGPUReadings converts protocol GPU readings; an empty metrics map stays
// non-nil, as the collectors return it.
func ToGPUReadings(rs []*GPUReading) []sdk.GPUReading {
	out := make([]sdk.GPUReading, len(rs))
	for i, r := range rs {
		m := r.GetMetrics()
		if m == nil {
			m = map[string]float64{}
		}
		out[i] = sdk.GPUReading{Index: int(r.GetIndex()), UUID: r.GetUuid(), Name: r.GetName(), PCIBusID: r.GetPciBusId(),
			Hostname: r.GetHostname(), Device: r.GetDevice(), Metrics: m}
	}
	return out
}
