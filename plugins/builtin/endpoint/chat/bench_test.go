package chat

import (
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
