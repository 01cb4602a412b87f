package multiturn

import (
	"testing"

	"github.com/aiperf-go/aiperf/internal/fuzzcheck"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func FuzzLoad(f *testing.F) {
	fuzzcheck.Loader(f, New(), "data.jsonl", sdk.DatasetOptions{RandomSeed: 5}, nil,
		`{"session_id": "s1", "turns": [{"text": "First turn question?", "role": "user"}, {"text": "Second turn follow-up?", "delay": 10}]}`,
		`{"turns": [{"texts": ["a", "b"], "timestamp": 5}]}`+"\n"+`{"session_id": "s1", "turns": [{"text": "again"}]}`,
		`{"session_id": "s", "turns": []}`, `{"turns": [{"text": ""}]}`, `{"turns": "x"}`,
		`{"type": "multi_turn", "session_id": "s", "turns": [{"text": "t", "output_length": 3, "extra": {"k": 1}}]}`)
}
