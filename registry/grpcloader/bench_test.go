package grpcloader

import (
	"context"
	"fmt"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// A typical streamed record: 19 token events and the final usage event,
// in the textgen shape (gRPC plugin) and the OpenAI chat shape (built-in).
func textgenRecord() []sdk.Response {
	units := make([]sdk.Response, 0, 20)
	for i := range 19 {
		units = append(units, sdk.Response{PerfNs: int64(i + 1), Data: []byte(fmt.Sprintf(`{"delta":" word%d"}`, i))})
	}
	return append(units, sdk.Response{PerfNs: 20, Data: []byte(`{"done":true,"usage":{"input_tokens":550,"output_tokens":19}}`)})
}

var benchPrompt = strings.Repeat("Shall I compare thee to a summer's day? Thou art more lovely and more temperate. ", 30)

func benchRequest() sdk.RequestInfo {
	return sdk.RequestInfo{Model: "Qwen/Qwen3-0.6B", Streaming: true,
		Turn:        sdk.Turn{Texts: []string{benchPrompt}, MaxTokens: intp(128)},
		ExtraInputs: map[string]any{"ignore_eos": true}}
}

func benchEndpoint(b *testing.B) *Endpoint {
	l, _ := newLoader(b, Options{})
	v, err := l.Load(context.Background(), entry(sdk.CategoryEndpoint, "textgen", textgenBin))
	if err != nil {
		b.Fatal(err)
	}
	return v.(*Endpoint)
}

// BenchmarkGRPCParseRecord: one ParseRecord round trip for a 20-unit record.
func BenchmarkGRPCParseRecord(b *testing.B) {
	ep := benchEndpoint(b)
	units := textgenRecord()
	b.ReportAllocs()
	for b.Loop() {
		out, err := ep.ParseRecord(units)
		if err != nil || len(out) != 20 || out[19].Usage == nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGRPCParseRecordParallel: the same call from concurrent workers
// (the core parses records in parallel), for throughput.
func BenchmarkGRPCParseRecordParallel(b *testing.B) {
	ep := benchEndpoint(b)
	units := textgenRecord()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := ep.ParseRecord(units); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkGRPCFormatPayload: one FormatPayload round trip, ~550-token prompt.
func BenchmarkGRPCFormatPayload(b *testing.B) {
	ep := benchEndpoint(b)
	req := benchRequest()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ep.FormatPayload(req); err != nil {
			b.Fatal(err)
		}
	}
}
