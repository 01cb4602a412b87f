package chat

import (
	"fmt"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// A ~550-token prompt, the AIPerf default ISL.
var benchPrompt = strings.Repeat("Shall I compare thee to a summer's day? Thou art more lovely and more temperate. ", 30)

func BenchmarkChatFormat(b *testing.B) {
	ep := New()
	req := sdk.RequestInfo{Model: "Qwen/Qwen3-0.6B", Streaming: true,
		Turn:        sdk.Turn{Texts: []string{benchPrompt}, MaxTokens: intp(128)},
		ExtraInputs: map[string]any{"ignore_eos": true}}
	b.SetBytes(int64(len(benchPrompt)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ep.FormatPayload(req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkChatParseChunk(b *testing.B) {
	ep := New()
	data := []byte(vllmContentChunk)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := ep.ParseResponse(data)
		if err != nil || p.Text == "" {
			b.Fatal(err)
		}
	}
}

// BenchmarkChatParseChunkStdlib is the encoding/json path, for comparison.
func BenchmarkChatParseChunkStdlib(b *testing.B) {
	data := []byte(vllmContentChunk)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := parseSlow(data)
		if err != nil || p.Text == "" {
			b.Fatal(err)
		}
	}
}

// BenchmarkChatParseRecord parses a 20-unit streamed record (19 content
// chunks and a usage chunk): the in-process baseline the gRPC and WASM
// endpoint benchmarks (registry/grpcloader, registry/wasmloader) compare to.
func BenchmarkChatParseRecord(b *testing.B) {
	const head = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"Qwen/Qwen3-0.6B","choices":[`
	units := make([][]byte, 0, 20)
	for i := range 19 {
		units = append(units, []byte(head+fmt.Sprintf(`{"index":0,"delta":{"content":" word%d"},"logprobs":null,"finish_reason":null}]}`, i)))
	}
	units = append(units, []byte(head+`],"usage":{"prompt_tokens":550,"completion_tokens":19,"total_tokens":569}}`))
	ep := New()
	b.ReportAllocs()
	for b.Loop() {
		for _, u := range units {
			if _, err := ep.ParseResponse(u); err != nil {
				b.Fatal(err)
			}
		}
	}
}
