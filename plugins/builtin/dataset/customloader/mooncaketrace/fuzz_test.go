package mooncaketrace

import (
	"testing"

	"github.com/aiperf-go/aiperf/internal/fuzzcheck"
)

func FuzzLoad(f *testing.F) {
	fuzzcheck.Loader(f, New(), "trace.jsonl", opts(), fuzzcheck.LongNumber,
		`{"timestamp": 0, "input_length": 40, "output_length": 5, "hash_ids": [0, 1]}`+"\n"+`{"timestamp": 10, "input_length": 600, "output_length": 1, "hash_ids": [0, 1, 2]}`,
		`{"session_id": "s", "delay": 5, "input_length": 3, "output_length": 2}`,
		`{"timestamp": 1, "text_input": "hello there"}`,
		`{"timestamp": 1, "messages": [{"role": "user", "content": "hi"}], "tools": [{"type": "function"}]}`,
		`{"timestamp": -1, "input_length": 0, "hash_ids": [-3]}`, `{"input_length": 10, "hash_ids": [0, 0, 0, 0, 0, 0]}`)
}
