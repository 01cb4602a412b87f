package bailiantrace

import (
	"testing"

	"github.com/aiperf-go/aiperf/internal/fuzzcheck"
)

func FuzzLoad(f *testing.F) {
	fuzzcheck.Loader(f, New(), "trace.jsonl", opts(), fuzzcheck.LongNumber,
		`{"chat_id": 159, "parent_chat_id": -1, "timestamp": 61.114, "input_length": 521, "output_length": 132, "type": "text", "turn": 1, "hash_ids": [1089, 1090]}`+"\n"+
			`{"chat_id": 161, "parent_chat_id": 159, "timestamp": 70.25, "input_length": 130, "output_length": 64, "type": "text", "turn": 2, "hash_ids": [1089, 1090, 1091]}`,
		`{"chat_id": 1, "timestamp": 0, "input_length": 40, "output_length": 1, "hash_ids": [1, 2, 3]}`,
		`{"chat_id": 2, "parent_chat_id": 7, "timestamp": 1, "input_length": 1, "output_length": 1, "hash_ids": []}`)
}
