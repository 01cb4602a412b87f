package pythongrpc_test

import (
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestFormatPayload(t *testing.T) {
	p := startPlugin(t)
	tests := []struct {
		name string
		req  sdk.RequestInfo
		want string
	}{
		{
			name: "one text, no length",
			req:  sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"Hello"}}},
			want: `{"model":"m","input":"Hello","stream":false}`,
		},
		{
			name: "history and texts join by newline; turn model wins; streaming with a length",
			req: sdk.RequestInfo{Model: "run-model", Streaming: true,
				History: []sdk.HistoryEntry{{Role: "user", Text: "hi"}, {Role: "assistant", Text: "there"}},
				Turn:    sdk.Turn{Texts: []string{"Q1", "", "Q2"}, Model: "turn-model", MaxTokens: intp(64)}},
			want: `{"model":"turn-model","input":"hi\nthere\nQ1\nQ2","max_new_tokens":64,"stream":true}`,
		},
		{
			name: "max tokens 0 is omitted",
			req:  sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"x"}, MaxTokens: intp(0)}},
			want: `{"model":"m","input":"x","stream":false}`,
		},
		{
			name: "extra inputs then turn extras merge over the body",
			req: sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"x"}, Extra: map[string]any{"top_k": 3, "temperature": 0.25}},
				ExtraInputs: map[string]any{"temperature": 0.5, "stream": true}},
			want: `{"model":"m","input":"x","stream":true,"temperature":0.25,"top_k":3}`,
		},
		{
			name: "non-ASCII text and quotes stay UTF-8",
			req:  sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{`héllo "wörld" 日本`}}},
			want: `{"model":"m","input":"héllo \"wörld\" 日本","stream":false}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := pluginpb.FromRequestInfo(tc.req)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := p.rpc.FormatPayload(callCtx(t), req)
			if err != nil {
				t.Fatal(err)
			}
			if string(resp.Payload) != tc.want {
				t.Errorf("payload = %s\nwant      %s", resp.Payload, tc.want)
			}
		})
	}
}

func TestFormatPayloadRejectsBadInput(t *testing.T) {
	p := startPlugin(t)
	tests := []struct {
		name string
		req  *pluginpb.RequestInfo
		want string
	}{
		{"no model", &pluginpb.RequestInfo{Turn: &pluginpb.Turn{Texts: []string{"x"}}},
			"FormatPayload: textgen: format payload: no model (RequestInfo.model and turn.model are empty)"},
		{"extra inputs not an object", &pluginpb.RequestInfo{Model: "m", ExtraInputsJson: []byte(`[1]`)},
			"FormatPayload: textgen: format payload: extra_inputs_json must be a JSON object, got list"},
		{"turn extra not JSON", &pluginpb.RequestInfo{Model: "m", Turn: &pluginpb.Turn{ExtraJson: []byte(`{"a":`)}},
			"FormatPayload: textgen: format payload: turn.extra_json is not valid JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := p.rpc.FormatPayload(callCtx(t), tc.req)
			st := status.Convert(err)
			if st.Code() != codes.InvalidArgument || !strings.HasPrefix(st.Message(), tc.want) {
				t.Errorf("err = %v, want InvalidArgument %q", err, tc.want)
			}
		})
	}
}

func TestParseRecord(t *testing.T) {
	p := startPlugin(t)
	usage := func(in, out int) *sdk.Usage {
		return &sdk.Usage{PromptTokens: intp(in), CompletionTokens: intp(out), TotalTokens: intp(in + out)}
	}
	tests := []struct {
		name       string
		units      []string
		want       []sdk.ParsedResponse
		wantErrors map[int32]string
	}{
		{
			name:  "non-streaming body",
			units: []string{`{"output":"Hello world","usage":{"input_tokens":3,"output_tokens":2}}`},
			want:  []sdk.ParsedResponse{{PerfNs: 100, Text: "Hello world", Usage: usage(3, 2)}},
		},
		{
			name: "stream of deltas, final usage, [DONE]",
			units: []string{`{"delta":"Hel"}`, `{"delta":"lo"}`, "{\"done\":true,\"usage\":{\"input_tokens\":4,\"output_tokens\":2}}\n",
				`[DONE]`},
			want: []sdk.ParsedResponse{{PerfNs: 100, Text: "Hel"}, {PerfNs: 101, Text: "lo"}, {PerfNs: 102, Usage: usage(4, 2)}, {PerfNs: 103}},
		},
		{
			name:  "partial usage keeps absent fields nil",
			units: []string{`{"done":true,"usage":{"output_tokens":9}}`},
			want:  []sdk.ParsedResponse{{PerfNs: 100, Usage: &sdk.Usage{CompletionTokens: intp(9)}}},
		},
		{
			name: "bad units keep their place and are reported",
			units: []string{`not json`, `{"delta":"ok"}`, `[1,2]`, `{"delta":5}`, `{"error":{"message":"overloaded"}}`,
				`{"usage":{"input_tokens":"3"}}`, "\xff\xfe"},
			want: []sdk.ParsedResponse{{PerfNs: 100}, {PerfNs: 101, Text: "ok"}, {PerfNs: 102}, {PerfNs: 103}, {PerfNs: 104},
				{PerfNs: 105}, {PerfNs: 106}},
			wantErrors: map[int32]string{
				0: "unit 0: invalid JSON",
				2: "unit 2: expected a JSON object, got list",
				3: "unit 3: text must be a string, got int",
				4: "unit 4: server error: {'message': 'overloaded'}",
				5: "unit 5: usage.input_tokens must be an integer, got '3'",
				6: "unit 6: invalid JSON",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := &pluginpb.ParseRecordRequest{}
			for i, u := range tc.units {
				req.Units = append(req.Units, &pluginpb.ResponseUnit{PerfNs: int64(100 + i), Data: []byte(u)})
			}
			resp, err := p.rpc.ParseRecord(callCtx(t), req)
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Responses) != len(tc.want) {
				t.Fatalf("%d responses, want %d", len(resp.Responses), len(tc.want))
			}
			for i, w := range tc.want {
				if got := pluginpb.ToParsedResponse(resp.Responses[i]); !sameParsed(got, w) {
					t.Errorf("unit %d = %s, want %s", i, showParsed(got), showParsed(w))
				}
			}
			if len(resp.UnitErrors) != len(tc.wantErrors) {
				t.Errorf("unit errors = %v, want %v", resp.UnitErrors, tc.wantErrors)
			}
			for i, prefix := range tc.wantErrors {
				if got := resp.UnitErrors[i]; !strings.HasPrefix(got, prefix) {
					t.Errorf("unit error %d = %q, want prefix %q", i, got, prefix)
				}
			}
		})
	}
}
