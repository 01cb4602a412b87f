package wasmguest

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
	"google.golang.org/protobuf/proto"
)

func ip(v int) *int         { return &v }
func fp(v float64) *float64 { return &v }

func marshal(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The guest's hand-written decoders must read what pluginpb writes.
func TestDecodeRequestInfoMatchesPluginpb(t *testing.T) {
	want := sdk.RequestInfo{
		Model: "qwen3", Streaming: true,
		Turn: sdk.Turn{Texts: []string{"hello", "", "world"}, Role: "user", Model: "m2", MaxTokens: ip(128),
			Extra: map[string]any{"temperature": 0.5}, DelayMs: fp(250.5), TimestampMs: fp(0),
			TextGroups: []sdk.TextGroup{{Name: sdk.TextGroupQuery, Contents: []string{"q"}},
				{Name: sdk.TextGroupPassages, Contents: []string{"p1", "", "p3"}}, {Name: "empty"}},
			Images: []string{"data:image/png;base64,iVBOR", "", "https://example.com/a.jpg"},
			Audios: []string{"wav,UklGR"}, Videos: []string{"data:video/webm;base64,GkXf"}, AudioDurationS: fp(0),
			RawMessages: json.RawMessage(`[{"role":"user","content":"hi"}]`), RawTools: json.RawMessage(`[{"type":"function"}]`),
			RawPayload: json.RawMessage(`{"prompt":"x"}`)},
		SystemMessage: "be brief", UserContextMessage: "ctx 7",
		History:            []sdk.HistoryEntry{{Role: "user", Text: "hi"}, {Role: "assistant", Text: "yo"}},
		UseLegacyMaxTokens: true, IncludeUsage: true,
		ExtraInputs: map[string]any{"top_p": 0.9, "stop": []any{"x"}},
	}
	msg, err := pluginpb.FromRequestInfo(want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeRequestInfo(marshal(t, msg))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded %+v\nwant    %+v", got, want)
	}
}

func TestDecodeParsedRecordMatchesPluginpb(t *testing.T) {
	want := &sdk.ParsedRecord{
		Record: &sdk.RequestRecord{ConversationID: "c1", TurnIndex: 2, SessionNum: -3, XRequestID: "r1", XCorrelationID: "x1",
			Model: "m", Phase: "profiling", CreditIssuedNs: 10, ScheduledNs: 11, TimestampNs: 1_700_000_000_000_000_000,
			StartPerfNs: 12, AckPerfNs: 13, EndPerfNs: 14, Streaming: true, Status: 200, RequestedOutputTokens: ip(0),
			Error: &sdk.ErrorDetails{Code: 499, Type: "Cancelled", Message: "gone"}, WasCancelled: true},
		Responses: []sdk.ParsedResponse{{PerfNs: 100, Text: "Hel"}, {PerfNs: 200, Reasoning: "hmm",
			Usage: &sdk.Usage{PromptTokens: ip(5), CompletionTokens: ip(0), TotalTokens: ip(5)}},
			{PerfNs: 300, Result: &sdk.Result{Kind: sdk.ResultEmbeddings, Count: 3}},
			{PerfNs: 400, Result: &sdk.Result{}},
			{PerfNs: 500, Result: &sdk.Result{Kind: sdk.ResultVideo, Video: &sdk.VideoJob{ID: "video_1", Status: "completed",
				InferenceTimeS: fp(0), PeakMemoryMB: fp(2048.5)}}},
			{PerfNs: 600, Result: &sdk.Result{Kind: sdk.ResultVideo, Video: &sdk.VideoJob{}}}},
		InputText: "prompt", InputTokens: ip(5), OutputTokens: ip(1), ReasoningTokens: nil,
		Usage: &sdk.Usage{ReasoningTokens: ip(7)},
	}
	got, err := decodeParsedRecord(marshal(t, pluginpb.FromParsedRecord(want)))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded %+v\nwant    %+v", got, want)
	}
}

func TestDecodeRunInfoAndDatasetRequests(t *testing.T) {
	info := sdk.RunInfo{Endpoint: sdk.EndpointMetadata{EndpointPath: "/v1/chat", StreamingPath: "/s", ServiceKind: "openai",
		SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true, MetricsTitle: "LLM",
		SupportsImages: true, SupportsAudio: true, SupportsVideos: true, ProducesImages: true, ProducesVideos: true,
		RequiresPolling: true, RequiresFormData: true},
		Streaming: true, Goodput: map[string]float64{"time_to_first_token": 150, "request_latency": 2000.5},
		Models: []string{"m1", "", "m3"}, Seed: -7, ArtifactDir: "/tmp/artifacts"}
	gotInfo, err := decodeRunInfo(marshal(t, pluginpb.FromRunInfo(info)))
	if err != nil || !reflect.DeepEqual(gotInfo, info) {
		t.Fatalf("RunInfo: %+v, %v; want %+v", gotInfo, err, info)
	}

	opts := sdk.DatasetOptions{Models: []string{"a", "b"}, NumEntries: 100, InputTokensMean: 550, InputTokensStddev: 1.5,
		OutputTokensMean: 64, OutputTokensStddev: 2.5, RandomSeed: -42, InputFile: "/data/t.jsonl",
		CustomDatasetType: "mooncake_trace"}
	path, gotOpts, err := decodeLoadDatasetRequest(marshal(t, &pluginpb.LoadDatasetRequest{Path: "/data/t.jsonl",
		Options: pluginpb.FromDatasetOptions(opts)}))
	if err != nil || path != "/data/t.jsonl" || !reflect.DeepEqual(gotOpts, opts) {
		t.Fatalf("LoadDatasetRequest: %q %+v %v", path, gotOpts, err)
	}
	// A block_size on the wire (field 10, from an older host) is skipped: it
	// is the mooncake_trace loader's own setting now.
	withBlock := pluginpb.FromDatasetOptions(opts)
	withBlock.BlockSize = 512
	_, gotOpts, err = decodeLoadDatasetRequest(marshal(t, &pluginpb.LoadDatasetRequest{Path: "/data/t.jsonl", Options: withBlock}))
	if err != nil || !reflect.DeepEqual(gotOpts, opts) {
		t.Fatalf("LoadDatasetRequest with block_size: %+v %v; want %+v", gotOpts, err, opts)
	}
	p, err := decodeCanLoadRequest(marshal(t, &pluginpb.CanLoadRequest{Path: "/x.jsonl"}))
	if err != nil || p != "/x.jsonl" {
		t.Fatalf("CanLoadRequest: %q %v", p, err)
	}
}

func TestDecodeRejectsMalformedInput(t *testing.T) {
	cases := map[string][]byte{
		"truncated varint": {0x08, 0xff},
		"truncated bytes":  {0x0a, 0x05, 'a'},
		"wrong wire type":  {0x0d, 1, 2, 3, 4}, // field 1 as fixed32, model is a string
		"bad tag":          {0x00},
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := decodeRequestInfo(b); err == nil {
				t.Fatalf("decodeRequestInfo(%x) succeeded", b)
			}
		})
	}
}

// appendMessage must produce a correct length prefix at every varint size.
func TestAppendMessageLengthPrefix(t *testing.T) {
	for _, n := range []int{0, 1, 127, 128, 16383, 16384, 70000} {
		text := strings.Repeat("x", n)
		b := appendMessage([]byte{0xAA}, 1, func(b []byte) []byte { return appendString(b, 2, text) })
		var got pluginpb.ParseRecordResponse
		if err := proto.Unmarshal(b[1:], &got); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if b[0] != 0xAA || len(got.Responses) != 1 || got.Responses[0].Text != text {
			t.Fatalf("n=%d: prefix byte %x, responses %d", n, b[0], len(got.Responses))
		}
	}
}

func TestEncodeProcessRecordResponseMatchesPluginpb(t *testing.T) {
	values := map[string]sdk.MetricValue{
		"answer_characters":    {Scalar: 42},
		"zero":                 {},
		"inter_chunk_latency":  {List: []float64{1.5, 0, -2}, IsList: true},
		"characters_per_token": {Scalar: 3.25},
	}
	var got pluginpb.ProcessRecordResponse
	if err := proto.Unmarshal(appendProcessRecordResponse(nil, values), &got); err != nil {
		t.Fatal(err)
	}
	if back := pluginpb.ToMetricValues(got.Values); !reflect.DeepEqual(back, values) {
		t.Fatalf("round trip %+v, want %+v", back, values)
	}
}

// The guest's hand-written encoder must write what pluginpb reads.
func TestEncodeDescribeMetricsMatchesPluginpb(t *testing.T) {
	specs := []sdk.MetricSpec{
		{Tag: "answer_characters", Header: "Answer Characters", ShortHeader: "Chars", Unit: "characters", Integer: true},
		{Tag: "gaps", Header: "Gaps", Unit: "ns", DisplayUnit: "ms", List: true, DisplayOrder: -3,
			Flags: sdk.FlagStreamingTokensOnly | sdk.FlagPercentileIncludesFailedRequests, Requires: []string{"a", "", "b"}},
		{Tag: "rate", Header: "Rate", Unit: "tokens/sec", Flags: sdk.FlagLargerIsBetter, DisplayOrder: 1 << 30,
			ConsoleGroup: sdk.ConsoleGroupUsage},
	}
	var got pluginpb.DescribeResponse
	b := appendDescribeResponse(nil, &describeInfo{name: "n"}, []string{"record_processor"}, nil, fixedMetrics(specs))
	if err := proto.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if back := pluginpb.ToMetricSpecs(got.Metrics); !reflect.DeepEqual(back, specs) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", back, specs)
	}
	want := &pluginpb.DescribeResponse{ApiVersion: sdk.APIVersion, Name: "n", Categories: []string{"record_processor"},
		Metrics: pluginpb.FromMetricSpecs(specs)}
	if !proto.Equal(&got, want) {
		t.Fatalf("Describe = %v, want %v", &got, want)
	}
}

type fixedMetrics []sdk.MetricSpec

func (f fixedMetrics) Metrics() []sdk.MetricSpec                           { return f }
func (fixedMetrics) Process(*sdk.ParsedRecord) (*sdk.RecordMetrics, error) { return nil, nil }

func TestDecodeConfigureRequestMatchesPluginpb(t *testing.T) {
	in := &pluginpb.ConfigureRequest{Category: "record_processor", Name: "words", ConfigJson: []byte(`{"min":1}`)}
	category, name, settings, err := decodeConfigureRequest(marshal(t, in))
	if err != nil || category != "record_processor" || name != "words" || string(settings) != `{"min":1}` {
		t.Fatalf("decoded %q %q %q, %v", category, name, settings, err)
	}
	if _, _, _, err := decodeConfigureRequest([]byte{0x0a, 0x05, 'a'}); err == nil {
		t.Fatal("truncated request decoded")
	}
}

// Every EndpointMetadata switch, one at a time, so a field written under the
// wrong number cannot hide behind another that is also true.
func metadataVariants() []sdk.EndpointMetadata {
	base := sdk.EndpointMetadata{EndpointPath: "/v1/messages", StreamingPath: "/v1/messages", ServiceKind: "openai",
		SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true, MetricsTitle: "LLM Metrics"}
	out := []sdk.EndpointMetadata{base, {}}
	for _, set := range []func(*sdk.EndpointMetadata){
		func(m *sdk.EndpointMetadata) { m.SupportsImages = true },
		func(m *sdk.EndpointMetadata) { m.SupportsAudio = true },
		func(m *sdk.EndpointMetadata) { m.SupportsVideos = true },
		func(m *sdk.EndpointMetadata) { m.ProducesImages = true },
		func(m *sdk.EndpointMetadata) { m.ProducesVideos = true },
		func(m *sdk.EndpointMetadata) { m.RequiresPolling = true },
		func(m *sdk.EndpointMetadata) { m.RequiresFormData = true },
		func(m *sdk.EndpointMetadata) { m.ConsumesSystemMessage = true },
		func(m *sdk.EndpointMetadata) { m.SendsRawMessages = true },
	} {
		m := base
		set(&m)
		out = append(out, m)
	}
	return out
}

func TestEndpointMetadataMatchesPluginpb(t *testing.T) {
	for i, md := range metadataVariants() {
		// Guest -> host: Describe carries the metadata.
		var got pluginpb.DescribeResponse
		b := appendDescribeResponse(nil, &describeInfo{name: "n"}, []string{"endpoint"}, metaOnly{md}, nil)
		if err := proto.Unmarshal(b, &got); err != nil {
			t.Fatalf("variant %d: %v", i, err)
		}
		if back := pluginpb.ToEndpointMetadata(got.Endpoint); !reflect.DeepEqual(back, md) {
			t.Errorf("variant %d: host reads %+v, want %+v", i, back, md)
		}
		want := &pluginpb.DescribeResponse{ApiVersion: sdk.APIVersion, Name: "n", Categories: []string{"endpoint"},
			Endpoint: pluginpb.FromEndpointMetadata(md)}
		if !proto.Equal(&got, want) {
			t.Errorf("variant %d: Describe = %v, want %v", i, &got, want)
		}
		// Host -> guest: RunInfo carries it back.
		dec, err := decodeEndpointMetadata(marshal(t, pluginpb.FromEndpointMetadata(md)))
		if err != nil || !reflect.DeepEqual(dec, md) {
			t.Errorf("variant %d: decoded %+v, %v; want %+v", i, dec, err, md)
		}
	}
}

type metaOnly struct{ md sdk.EndpointMetadata }

func (m metaOnly) Metadata() sdk.EndpointMetadata                 { return m.md }
func (metaOnly) FormatPayload(sdk.RequestInfo) ([]byte, error)    { return nil, nil }
func (metaOnly) ParseResponse([]byte) (sdk.ParsedResponse, error) { return sdk.ParsedResponse{}, nil }

// parsedResponseVariants cover every Result field and the nil/empty cases
// the host must tell apart (an empty Result is still content).
func parsedResponseVariants() []sdk.ParsedResponse {
	return []sdk.ParsedResponse{
		{PerfNs: 1, Text: "a"},
		{PerfNs: 2, Result: &sdk.Result{}},
		{PerfNs: 3, Result: &sdk.Result{Kind: sdk.ResultEmbeddings, Count: 3}},
		{PerfNs: 4, Result: &sdk.Result{Kind: sdk.ResultRankings, Count: 1 << 40}},
		{PerfNs: 5, Result: &sdk.Result{Kind: sdk.ResultImages, Count: 2}, Usage: &sdk.Usage{PromptTokens: ip(9)}},
		{PerfNs: 6, Result: &sdk.Result{Kind: sdk.ResultVideo, Video: &sdk.VideoJob{ID: "video_1", Status: "completed",
			InferenceTimeS: fp(12.5), PeakMemoryMB: fp(0)}}},
		{PerfNs: 7, Result: &sdk.Result{Kind: sdk.ResultVideo, Video: &sdk.VideoJob{Status: "queued"}}},
		{PerfNs: 8, Result: &sdk.Result{Kind: sdk.ResultVideo, Video: &sdk.VideoJob{}}},
	}
}

func TestEncodeParsedResponseMatchesPluginpb(t *testing.T) {
	for _, p := range parsedResponseVariants() {
		var got pluginpb.ParsedResponse
		if err := proto.Unmarshal(appendParsedResponse(nil, &p), &got); err != nil {
			t.Fatalf("perf %d: %v", p.PerfNs, err)
		}
		if want := pluginpb.FromParsedResponse(p); !proto.Equal(&got, want) {
			t.Errorf("perf %d: encoded %v, want %v", p.PerfNs, &got, want)
		}
		if back := pluginpb.ToParsedResponse(&got); !reflect.DeepEqual(back, p) {
			t.Errorf("perf %d: host reads %+v, want %+v", p.PerfNs, back, p)
		}
		dec, err := decodeParsedResponse(marshal(t, pluginpb.FromParsedResponse(p)))
		if err != nil || !reflect.DeepEqual(dec, p) {
			t.Errorf("perf %d: decoded %+v, %v; want %+v", p.PerfNs, dec, err, p)
		}
	}
}

// A dataset plugin's turns reach the host with every media field.
func TestEncodeLoadDatasetResponseMatchesPluginpb(t *testing.T) {
	convs := []sdk.Conversation{{SessionID: "s1", SystemMessage: "sys", UserContextMessage: "ctx", Turns: []sdk.Turn{
		{Texts: []string{"q?"}, TextGroups: []sdk.TextGroup{{Name: sdk.TextGroupQuery, Contents: []string{"what"}},
			{Name: sdk.TextGroupPassages, Contents: []string{"a", "", "c"}}, {Name: "none"}}},
		{Texts: []string{"look"}, Images: []string{"data:image/jpeg;base64,/9j/", ""}, Audios: []string{"wav,UklGR", "mp3,SUQz"},
			Videos: []string{"https://example.com/v.mp4"}, AudioDurationS: fp(2.5), MaxTokens: ip(8)},
		{Texts: []string{""}, AudioDurationS: fp(0)},
		{RawMessages: json.RawMessage(`[{"role":"system","content":"s"},{"role":"user","content":"u"}]`),
			RawTools: json.RawMessage(`[{"type":"function","function":{"name":"f"}}]`)},
		{RawPayload: json.RawMessage(`{"model":"m","prompt":"p"}`)},
	}}}
	b, err := appendLoadDatasetResponse(nil, convs)
	if err != nil {
		t.Fatal(err)
	}
	var got pluginpb.LoadDatasetResponse
	if err := proto.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Conversations) != 1 || len(got.Conversations[0].Turns) != len(convs[0].Turns) {
		t.Fatalf("decoded %v", &got)
	}
	if c := got.Conversations[0]; c.SystemMessage != "sys" || c.UserContextMessage != "ctx" {
		t.Errorf("conversation messages: %q %q", c.SystemMessage, c.UserContextMessage)
	}
	for i, want := range convs[0].Turns {
		back, err := pluginpb.ToTurn(got.Conversations[0].Turns[i])
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, want) {
			t.Errorf("turn %d: host reads %+v, want %+v", i, back, want)
		}
		wantPB, err := pluginpb.FromTurn(want)
		if err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(got.Conversations[0].Turns[i], wantPB) {
			t.Errorf("turn %d: encoded %v, want %v", i, got.Conversations[0].Turns[i], wantPB)
		}
	}
}
