package main

import (
	"strings"
	"testing"
)

// analyze-trace takes its three parameters as arguments or flags, not both.
func TestAnalyzeTracePositionals(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"t.jsonl", "--input-file", "t.jsonl"}, "input file given both as an argument and as --input-file"},
		{[]string{"t.jsonl", "64", "--block-size", "64"}, "block size given both as an argument and as --block-size"},
		{[]string{"t.jsonl", "sixty"}, `invalid block size "sixty"`},
		{[]string{"t.jsonl", "64", "o.json", "--output-file", "o.json"}, "output file given both as an argument and as --output-file"},
	} {
		_, err := runAnalyzeTraceArgs(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err %v, want %q", tc.args, err, tc.want)
		}
	}
}
