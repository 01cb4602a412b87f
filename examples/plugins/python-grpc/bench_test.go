package pythongrpc_test

import (
	"context"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Per-call cost of the Python plugin as the core sees it (through the grpc
// loader's adapters): one ParseRecord call for a typical 20-unit streamed
// record, and one ProcessRecord call.
func BenchmarkPythonParseRecord(b *testing.B) {
	_, ep, _ := loadShippedManifest(b, &syncBuffer{})
	parser := ep.(sdk.RecordParser)
	units := make([]sdk.Response, 0, 20)
	for i := range 19 {
		units = append(units, sdk.Response{PerfNs: int64(i), Data: []byte(`{"delta":" token"}`)})
	}
	units = append(units, sdk.Response{PerfNs: 19, Data: []byte(`{"done":true,"usage":{"input_tokens":50,"output_tokens":19}}`)})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parser.ParseRecord(units); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPythonProcessRecord(b *testing.B) {
	_, _, rp := loadShippedManifest(b, &syncBuffer{})
	if err := rp.Init(context.Background(), sdk.RunInfo{Endpoint: sdk.EndpointMetadata{ProducesTokens: true}}); err != nil {
		b.Fatal(err)
	}
	rec := &sdk.ParsedRecord{Record: &sdk.RequestRecord{StartPerfNs: 0, EndPerfNs: 1_000_000_000}, OutputTokens: intp(20)}
	for i := range 20 {
		rec.Responses = append(rec.Responses, sdk.ParsedResponse{PerfNs: int64(i), Text: " word"})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := rp.Process(rec); err != nil {
			b.Fatal(err)
		}
	}
}
