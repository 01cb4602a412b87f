package wasmguest

import (
	"bytes"
	"encoding/json"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
)

// canonical reports whether b is exactly what proto.Marshal writes for m
// (decoded from b, unknown fields dropped): the encodings a host sends,
// where the guest's decoder must agree with pluginpb. Other bytes must only
// not crash it.
func canonical(b []byte, m proto.Message) bool {
	if proto.Unmarshal(b, m) != nil {
		return false
	}
	discardUnknown(m.ProtoReflect())
	out, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	return err == nil && bytes.Equal(out, b)
}

func discardUnknown(m protoreflect.Message) {
	m.SetUnknown(nil)
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len(); i++ {
				discardUnknown(v.List().Get(i).Message())
			}
		case fd.IsMap() && fd.MapValue().Message() != nil:
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				discardUnknown(mv.Message())
				return true
			})
		case !fd.IsList() && !fd.IsMap() && fd.Message() != nil:
			discardUnknown(v.Message())
		}
		return true
	})
}

// same compares two messages by their deterministic encoding, which NaN
// values and nil-versus-empty slices do not upset.
func same(t *testing.T, a, b proto.Message) bool {
	t.Helper()
	ab, err := proto.MarshalOptions{Deterministic: true}.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	bb, err := proto.MarshalOptions{Deterministic: true}.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(ab, bb)
}

func seedBytes(f *testing.F, m proto.Message) {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
}

func FuzzDecodeRequestInfo(f *testing.F) {
	msg, err := pluginpb.FromRequestInfo(sdk.RequestInfo{Model: "qwen3", Streaming: true, SystemMessage: "be brief",
		Turn: sdk.Turn{Texts: []string{"hello", ""}, Role: "user", MaxTokens: ip(128), Extra: map[string]any{"temperature": 0.5},
			DelayMs: fp(250.5), TextGroups: []sdk.TextGroup{{Name: sdk.TextGroupQuery, Contents: []string{"q"}}},
			Images: []string{"data:image/png;base64,iVBOR"}, RawMessages: json.RawMessage(`[{"role":"user"}]`)},
		History:     []sdk.HistoryEntry{{Role: "user", Text: "hi"}},
		ExtraInputs: map[string]any{"stop": []any{"x"}}})
	if err != nil {
		f.Fatal(err)
	}
	seedBytes(f, msg)
	f.Add([]byte{0x0d, 1, 2, 3, 4})
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeRequestInfo(b)
		var m pluginpb.RequestInfo
		if !canonical(b, &m) {
			return
		}
		want, werr := pluginpb.ToRequestInfo(&m)
		if (err == nil) != (werr == nil) {
			t.Fatalf("guest error %v, pluginpb error %v", err, werr)
		}
		if err != nil {
			return
		}
		g, err1 := pluginpb.FromRequestInfo(got)
		w, err2 := pluginpb.FromRequestInfo(want)
		if err1 != nil || err2 != nil || !same(t, g, w) {
			t.Fatalf("guest decoded %+v, pluginpb %+v (%v, %v)", got, want, err1, err2)
		}
	})
}

func FuzzDecodeParsedRecord(f *testing.F) {
	seedBytes(f, pluginpb.FromParsedRecord(&sdk.ParsedRecord{
		Record: &sdk.RequestRecord{ConversationID: "c1", TurnIndex: 2, Model: "m", StartPerfNs: 12, EndPerfNs: 14, Status: 200,
			Error: &sdk.ErrorDetails{Code: 499, Type: "Cancelled", Message: "gone"}},
		Responses: []sdk.ParsedResponse{{PerfNs: 100, Text: "Hel"}, {PerfNs: 200, Usage: &sdk.Usage{PromptTokens: ip(5)}},
			{PerfNs: 500, Result: &sdk.Result{Kind: sdk.ResultVideo, Video: &sdk.VideoJob{ID: "v", PeakMemoryMB: fp(1)}}}},
		InputText: "prompt", InputTokens: ip(5), Usage: &sdk.Usage{ReasoningTokens: ip(7)},
	}))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeParsedRecord(b)
		var m pluginpb.ParsedRecord
		if !canonical(b, &m) {
			return
		}
		if err != nil {
			t.Fatalf("guest refuses a canonical ParsedRecord: %v", err)
		}
		if want := pluginpb.ToParsedRecord(&m); !same(t, pluginpb.FromParsedRecord(got), pluginpb.FromParsedRecord(want)) {
			t.Fatalf("guest decoded %+v, pluginpb %+v", got, want)
		}
	})
}

func FuzzDecodeRunInfo(f *testing.F) {
	seedBytes(f, pluginpb.FromRunInfo(sdk.RunInfo{Endpoint: sdk.EndpointMetadata{EndpointPath: "/v1/chat", ServiceKind: "openai",
		SupportsStreaming: true}, Streaming: true, Goodput: map[string]float64{"time_to_first_token": 150},
		Models: []string{"m1", ""}, Seed: -7, ArtifactDir: "/tmp/a"}))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeRunInfo(b)
		var m pluginpb.RunInfo
		if !canonical(b, &m) {
			return
		}
		if err != nil {
			t.Fatalf("guest refuses a canonical RunInfo: %v", err)
		}
		if want := pluginpb.ToRunInfo(&m); !same(t, pluginpb.FromRunInfo(got), pluginpb.FromRunInfo(want)) {
			t.Fatalf("guest decoded %+v, pluginpb %+v", got, want)
		}
	})
}

func FuzzDecodeLoadDatasetRequest(f *testing.F) {
	seedBytes(f, &pluginpb.LoadDatasetRequest{Path: "/data/t.jsonl", Options: pluginpb.FromDatasetOptions(sdk.DatasetOptions{
		Models: []string{"a"}, NumEntries: 100, InputTokensStddev: 1.5, RandomSeed: -42, CustomDatasetType: "mooncake_trace"})})
	f.Fuzz(func(t *testing.T, b []byte) {
		path, opts, err := decodeLoadDatasetRequest(b)
		var m pluginpb.LoadDatasetRequest
		if !canonical(b, &m) {
			return
		}
		if err != nil {
			t.Fatalf("guest refuses a canonical LoadDatasetRequest: %v", err)
		}
		want := pluginpb.ToDatasetOptions(m.GetOptions())
		if path != m.GetPath() || !same(t, pluginpb.FromDatasetOptions(opts), pluginpb.FromDatasetOptions(want)) {
			t.Fatalf("guest decoded %q %+v, pluginpb %q %+v", path, opts, m.GetPath(), want)
		}
	})
}

func FuzzDecodeParseRecordRequest(f *testing.F) {
	seedBytes(f, &pluginpb.ParseRecordRequest{Units: []*pluginpb.ResponseUnit{{PerfNs: 1, Event: "e", Data: []byte(`{"a":1}`)}, {PerfNs: 2}}})
	f.Fuzz(func(t *testing.T, b []byte) {
		units, err := decodeParseRecordRequest(b)
		var m pluginpb.ParseRecordRequest
		if !canonical(b, &m) {
			return
		}
		if err != nil || len(units) != len(m.GetUnits()) {
			t.Fatalf("guest decoded %d units (%v), pluginpb %d", len(units), err, len(m.GetUnits()))
		}
		for i, u := range m.GetUnits() {
			if units[i].PerfNs != u.GetPerfNs() || units[i].Event != u.GetEvent() || !bytes.Equal(units[i].Data, u.GetData()) {
				t.Fatalf("unit %d: guest %+v, pluginpb %+v", i, units[i], u)
			}
		}
	})
}
