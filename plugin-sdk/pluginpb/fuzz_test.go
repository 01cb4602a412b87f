package pluginpb

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// remarshal encodes m deterministically (map order fixed).
func remarshal(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzHostDecode decodes bytes as the responses a host reads from a plugin
// (gRPC or WASM) and converts them to sdk types: no panic, and converting
// back and forth is stable (From(To(m)) encodes the same as
// From(To(From(To(m))))).
func FuzzHostDecode(f *testing.F) {
	convs, err := FromConversations([]sdk.Conversation{{SessionID: "s", SystemMessage: "sys", Turns: []sdk.Turn{
		{Texts: []string{"hi"}, Role: "user", Extra: map[string]any{"k": 1.5}, RawMessages: []byte(`[{"role":"user"}]`)},
		{TextGroups: []sdk.TextGroup{{Name: sdk.TextGroupQuery, Contents: []string{"q"}}}, Images: []string{"data:image/png;base64,iVBO"}}}}})
	if err != nil {
		f.Fatal(err)
	}
	for _, m := range []proto.Message{
		&LoadDatasetResponse{Conversations: convs},
		&ParseRecordResponse{Responses: []*ParsedResponse{FromParsedResponse(sdk.ParsedResponse{PerfNs: 5, Text: "a",
			Usage: &sdk.Usage{}, Result: &sdk.Result{Kind: sdk.ResultVideo, Video: &sdk.VideoJob{ID: "v"}}})}},
		&DescribeResponse{Endpoint: FromEndpointMetadata(sdk.EndpointMetadata{EndpointPath: "/v1/x", ServiceKind: "openai"}),
			Metrics: FromMetricSpecs([]sdk.MetricSpec{{Tag: "m", Header: "M", Unit: "ms"}})},
		&ProcessRecordResponse{Values: FromMetricValues(map[string]sdk.MetricValue{"a": {Scalar: 2}})},
		&SampleGPUResponse{Gpus: FromGPUReadings([]sdk.GPUReading{{Index: 1, Metrics: map[string]float64{"x": 1}}})},
	} {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{0x0a, 0x05, 'a'})
	f.Fuzz(func(t *testing.T, b []byte) {
		var ld LoadDatasetResponse
		if proto.Unmarshal(b, &ld) == nil {
			if cs, err := ToConversations(ld.GetConversations()); err == nil {
				once := convRound(t, cs)
				again, err := ToConversations(once.Conversations)
				if err != nil {
					t.Fatalf("re-decoding converted conversations: %v", err)
				}
				if !bytes.Equal(remarshal(t, once), remarshal(t, convRound(t, again))) {
					t.Fatalf("conversations change on a second round trip")
				}
			}
		}
		var pr ParseRecordResponse
		if proto.Unmarshal(b, &pr) == nil {
			for _, r := range pr.GetResponses() {
				once := FromParsedResponse(ToParsedResponse(r))
				if !bytes.Equal(remarshal(t, once), remarshal(t, FromParsedResponse(ToParsedResponse(once)))) {
					t.Fatalf("parsed response changes on a second round trip")
				}
			}
		}
		var d DescribeResponse
		if proto.Unmarshal(b, &d) == nil {
			ToEndpointMetadata(d.GetEndpoint())
			ToMetricSpecs(d.GetMetrics())
		}
		var pv ProcessRecordResponse
		if proto.Unmarshal(b, &pv) == nil {
			ToMetricValues(pv.GetValues())
		}
		var g SampleGPUResponse
		if proto.Unmarshal(b, &g) == nil {
			ToGPUReadings(g.GetGpus())
		}
	})
}

func convRound(t *testing.T, cs []sdk.Conversation) *LoadDatasetResponse {
	t.Helper()
	out, err := FromConversations(cs)
	if err != nil {
		t.Fatalf("re-encoding decoded conversations: %v", err)
	}
	return &LoadDatasetResponse{Conversations: out}
}

// FuzzUnmarshalPlotCall: a plot call decodes or fails without a panic,
// and a decoded call re-encodes to one that decodes the same.
func FuzzUnmarshalPlotCall(f *testing.F) {
	b, err := MarshalPlotCall([]*sdk.PlotRun{sampleRun(), sampleRun()}, true, sdk.PlotOptions{})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		runs, cmp, opts, err := UnmarshalPlotCall(b)
		if err != nil {
			return
		}
		b1, err := MarshalPlotCall(runs, cmp, opts)
		if err != nil {
			t.Fatalf("re-encoding a decoded plot call: %v", err)
		}
		runs2, cmp2, opts2, err := UnmarshalPlotCall(b1)
		if err != nil {
			t.Fatalf("decoding a re-encoded plot call: %v", err)
		}
		b2, err := MarshalPlotCall(runs2, cmp2, opts2)
		if err != nil {
			t.Fatal(err)
		}
		var c1, c2 PlotCall
		if proto.Unmarshal(b1, &c1) != nil || proto.Unmarshal(b2, &c2) != nil ||
			!bytes.Equal(remarshal(t, &c1), remarshal(t, &c2)) {
			t.Fatalf("plot call changes on a second round trip")
		}
	})
}
