package pythongrpc_test

import (
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestProcessRecord(t *testing.T) {
	p := startPlugin(t)
	tokens := sdk.RunInfo{Endpoint: sdk.EndpointMetadata{ProducesTokens: true}, Streaming: true}
	noTokens := sdk.RunInfo{Endpoint: sdk.EndpointMetadata{ProducesTokens: false}}
	texts := func(ts ...string) []sdk.ParsedResponse {
		out := make([]sdk.ParsedResponse, len(ts))
		for i, s := range ts {
			out[i] = sdk.ParsedResponse{PerfNs: int64(i + 1), Text: s}
		}
		return out
	}
	tests := []struct {
		name string
		info sdk.RunInfo
		rec  sdk.ParsedRecord
		want map[string]float64
	}{
		{
			name: "streamed deltas split words; 5 words in 2.5 s, 10 tokens",
			info: tokens,
			rec: sdk.ParsedRecord{Record: &sdk.RequestRecord{StartPerfNs: 1_000_000_000, EndPerfNs: 3_500_000_000},
				Responses: texts("Hel", "lo wor", "ld, how are", " you?"), OutputTokens: intp(10)},
			want: map[string]float64{"answer_word_count": 5, "answer_words_per_second": 2, "output_tokens_per_word": 2},
		},
		{
			name: "reasoning is not part of the answer",
			info: tokens,
			rec: sdk.ParsedRecord{Record: &sdk.RequestRecord{StartPerfNs: 0, EndPerfNs: 500_000_000},
				Responses:    []sdk.ParsedResponse{{Reasoning: "let me think hard"}, {Text: "four words right here"}},
				OutputTokens: intp(6)},
			want: map[string]float64{"answer_word_count": 4, "answer_words_per_second": 8, "output_tokens_per_word": 1.5},
		},
		{
			name: "no output token count: no tokens per word",
			info: tokens,
			rec:  sdk.ParsedRecord{Record: &sdk.RequestRecord{StartPerfNs: 0, EndPerfNs: 4_000_000_000}, Responses: texts("a b c d e f g h")},
			want: map[string]float64{"answer_word_count": 8, "answer_words_per_second": 2},
		},
		{
			name: "endpoint without tokens ignores output_tokens",
			info: noTokens,
			rec: sdk.ParsedRecord{Record: &sdk.RequestRecord{StartPerfNs: 0, EndPerfNs: 1_000_000_000},
				Responses: texts("one two"), OutputTokens: intp(4)},
			want: map[string]float64{"answer_word_count": 2, "answer_words_per_second": 2},
		},
		{
			name: "empty answer counts zero words and no rate",
			info: tokens,
			rec:  sdk.ParsedRecord{Record: &sdk.RequestRecord{StartPerfNs: 0, EndPerfNs: 1_000_000_000}, OutputTokens: intp(0)},
			want: map[string]float64{"answer_word_count": 0},
		},
		{
			name: "zero latency gives no rate",
			info: tokens,
			rec:  sdk.ParsedRecord{Record: &sdk.RequestRecord{StartPerfNs: 7, EndPerfNs: 7}, Responses: texts("x y")},
			want: map[string]float64{"answer_word_count": 2},
		},
		{
			name: "failed request has no values",
			info: tokens,
			rec: sdk.ParsedRecord{Record: &sdk.RequestRecord{StartPerfNs: 0, EndPerfNs: 1_000_000_000,
				Error: &sdk.ErrorDetails{Code: 500, Type: "Internal Server Error", Message: "boom"}}, Responses: texts("error text")},
			want: map[string]float64{},
		},
		{
			name: "cancelled request has no values",
			info: tokens,
			rec: sdk.ParsedRecord{Record: &sdk.RequestRecord{StartPerfNs: 0, EndPerfNs: 1_000_000_000, WasCancelled: true},
				Responses: texts("half an")},
			want: map[string]float64{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := callCtx(t)
			if _, err := p.rpc.InitRecordProcessor(ctx, pluginpb.FromRunInfo(tc.info)); err != nil {
				t.Fatal(err)
			}
			resp, err := p.rpc.ProcessRecord(ctx, pluginpb.FromParsedRecord(&tc.rec))
			if err != nil {
				t.Fatal(err)
			}
			got := pluginpb.ToMetricValues(resp.Values)
			if len(got) != len(tc.want) {
				t.Errorf("values = %+v, want %v", got, tc.want)
			}
			for tag, want := range tc.want {
				v, ok := got[tag]
				if !ok || v.IsList || v.Scalar != want {
					t.Errorf("%s = %+v (present %v), want scalar %v", tag, v, ok, want)
				}
			}
		})
	}
}

func TestProcessRecordBeforeInitIsAClearError(t *testing.T) {
	p := startPlugin(t)
	rec := sdk.ParsedRecord{Record: &sdk.RequestRecord{EndPerfNs: 1}}
	_, err := p.rpc.ProcessRecord(callCtx(t), pluginpb.FromParsedRecord(&rec))
	st := status.Convert(err)
	if st.Code() != codes.FailedPrecondition || st.Message() != "ProcessRecord: ProcessRecord called before InitRecordProcessor" {
		t.Fatalf("err = %v, want FailedPrecondition naming both calls", err)
	}
	// The process keeps serving after a failed call.
	if _, err := p.rpc.Describe(callCtx(t), &pluginpb.DescribeRequest{}); err != nil {
		t.Fatalf("describe after a failed call: %v", err)
	}
}
