package records

import (
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// BenchmarkParseLaterTurn is BenchmarkParseSingleTurn for turn 3 of a
// session of 256-word prompts and 66-word answers: the ISL of the whole
// conversation (about 900 words) is counted here.
func BenchmarkParseLaterTurn(b *testing.B) {
	c := benchRecord()
	prompt := strings.TrimSpace(strings.Repeat("word ", 256))
	answer := strings.TrimSpace(strings.Repeat("reply ", 66))
	c.History = []sdk.HistoryEntry{{Role: "user", Text: prompt}, {Role: "assistant", Text: answer},
		{Role: "user", Text: prompt}, {Role: "assistant", Text: answer}}
	body, err := chat.FormatPayload(sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{prompt}}, History: c.History})
	if err != nil {
		b.Fatal(err)
	}
	c.Record.RequestBody = body
	b.ReportAllocs()
	for b.Loop() {
		if pr := Parse(chat, words, c, ClientTokenizer); pr.InputTokens == nil || *pr.InputTokens != 3*256+2*66 {
			b.Fatalf("ISL %v", pr.InputTokens)
		}
	}
}
