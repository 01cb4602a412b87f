package wasmloader

import (
	"context"
	"fmt"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// A typical record: 64 streamed chunks of a few tokens each.
func benchRecord() *sdk.ParsedRecord {
	rec := &sdk.ParsedRecord{Record: &sdk.RequestRecord{XRequestID: "0e7b7c4e-7c55-4a0a-9d43-1f0c8f3e9a11", Model: "qwen3",
		Phase: sdk.PhaseProfiling, StartPerfNs: 1e9, EndPerfNs: 2e9, Streaming: true, Status: 200},
		InputText: strings.Repeat("lorem ipsum ", 40), InputTokens: ip(120), OutputTokens: ip(192)}
	for i := range 64 {
		rec.Responses = append(rec.Responses, sdk.ParsedResponse{PerfNs: int64(1e9 + i*1e6), Text: " tok tok tok"})
	}
	return rec
}

func BenchmarkWASMProcessRecord(b *testing.B) {
	p := loadProcessor(b, newLoader(b, Options{}), entry(sdk.CategoryRecordProcessor, "go_wasm_metric", metricWasm))
	rec := benchRecord()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Process(rec); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWASMProcessRecordParallel(b *testing.B) {
	p := loadProcessor(b, newLoader(b, Options{}), entry(sdk.CategoryRecordProcessor, "go_wasm_metric", metricWasm))
	rec := benchRecord()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := p.Process(rec); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// ParseRecord of a 64-chunk streamed answer in one call.
func BenchmarkWASMParseRecord(b *testing.B) {
	v, err := newLoader(b, Options{}).Load(context.Background(), entry(sdk.CategoryEndpoint, "misbehave", misbehaveWasm))
	if err != nil {
		b.Fatal(err)
	}
	rp := v.(sdk.RecordParser)
	units := make([]sdk.Response, 64)
	for i := range units {
		units[i] = sdk.Response{PerfNs: int64(i), Data: fmt.Appendf(nil, `{"text":" tok%d","tokens":%d}`, i, i)}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := rp.ParseRecord(units); err != nil {
			b.Fatal(err)
		}
	}
}
