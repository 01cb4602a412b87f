package traceanalysis

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// FuzzAnalyzeReader: any trace analyzes or fails naming the input and line.
func FuzzAnalyzeReader(f *testing.F) {
	data, err := os.ReadFile("testdata/mooncake_small.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{string(data), `{"input_length": -5, "hash_ids": [-1, 0, 0]}`, `{"timestamp": 1e300}`, "\n\n", `[1]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		for _, bs := range []int{1, 64} {
			if _, err := AnalyzeReader(bytes.NewReader(content), "trace.jsonl", bs); err != nil && !strings.HasPrefix(err.Error(), "trace.jsonl:") {
				t.Fatalf("error does not name the input and line: %v", err)
			}
		}
	})
}
