package singleturn

import (
	"testing"

	"github.com/aiperf-go/aiperf/internal/fuzzcheck"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func FuzzLoad(f *testing.F) {
	fuzzcheck.Loader(f, New(), "data.jsonl", sdk.DatasetOptions{RandomSeed: 5}, nil,
		`{"text": "What is deep learning?"}`+"\n"+`{"timestamp": 1000, "text": "Who are you?", "output_length": 128, "role": "user", "extra": {"top_k": 5}}`,
		`{"texts": ["a", "b"], "delay": 250}`,
		`{"texts": [{"name": "f1", "contents": ["x", "y"]}, {"name": "f2", "contents": ["z"]}]}`,
		`{"type": "single_turn", "text": "typed", "timestamp": 0, "delay": 0}`,
		`{"session_id": "a", "text": "a1"}`+"\n\n"+`{"session_id": "a", "text": "a2", "delay": 100}`,
		`{"text": "x", "image": "data:image/png;base64,iVBORw0KGgo=", "delay": -1}`,
		`{"text": "x", "output_length": 0}`, `{"text": "x"`+"\n"+`{"text": 5}`)
}
