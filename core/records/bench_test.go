package records

import (
	"fmt"
	"testing"

	"github.com/aiperf-go/aiperf/core/engine"
	"github.com/aiperf-go/aiperf/core/internal/testfixtures"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// benchRecord is a single-turn streamed answer of 100 one-word chunks, with
// a usage chunk and [DONE], as the engine hands it over.
func benchRecord() engine.Completed {
	rec := &sdk.RequestRecord{XRequestID: "req", ConversationID: "c", Phase: sdk.PhaseProfiling,
		Streaming: true, Status: 200, TimestampNs: 1_700_000_000_000_000_000}
	at := int64(firstChunkNs)
	for i := range 100 {
		rec.Responses = append(rec.Responses, sdk.Response{PerfNs: at, Data: []byte(contentChunk(fmt.Sprintf(" w%d", i)))})
		at += chunkGapNs
	}
	rec.Responses = append(rec.Responses, sdk.Response{PerfNs: at, Data: []byte(usageChunk(550, 100))},
		sdk.Response{PerfNs: at, Data: []byte(doneEvent)})
	rec.EndPerfNs = at
	req := prepared("c", "a prompt of a few words")
	rec.RequestBody = req.Payload
	return engine.Completed{Record: rec, Request: req}
}

// BenchmarkParseSingleTurn is the per-record parse and count cost of a
// single-turn request: its ISL was counted when payloads were prepared.
func BenchmarkParseSingleTurn(b *testing.B) {
	c := benchRecord()
	b.ReportAllocs()
	for b.Loop() {
		if pr := Parse(chat, words, c, ClientTokenizer); pr.InputTokens == nil {
			b.Fatal("no ISL")
		}
	}
}

// BenchmarkPipelineSingleTurn pushes single-turn records through the whole
// pipeline (parse, fixture processor, catalog filter, core accumulator);
// one op is one record.
func BenchmarkPipelineSingleTurn(b *testing.B) {
	info := testfixtures.StreamingRun()
	cat := fixtureCatalog(b, info)
	acc := newCoreAccumulator(b, cat, info)
	c := benchRecord()
	p := NewPipeline(Config{Endpoint: chat, Tokenizer: words, Processors: []sdk.RecordProcessor{testfixtures.Processor{}},
		Catalog: cat, Accumulators: []sdk.Accumulator{acc}})
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		p.Submit(c)
	}
	if err := p.Close(); err != nil { // drained inside the timed region
		b.Fatal(err)
	}
}
