package tracesynth

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// FuzzReadWrite: a JSONL trace reads or fails naming the input and line;
// what reads writes back as one valid JSON object a line, and reading and
// writing that again gives the same bytes.
func FuzzReadWrite(f *testing.F) {
	data, err := os.ReadFile("testdata/trace.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{string(data), `{"a": 1, "a": 2, "b": "\u00e9"}`, `{"input_length": 5.5}`,
		`{"hash_ids": [1, "x"]}`, "{}\n\n[]\n", `{"timestamp": null, "session_id": 7}`, `{"k": "<&>"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		traces, err := Read(context.Background(), bytes.NewReader(content), "trace.jsonl")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "trace.jsonl:") {
				t.Fatalf("error does not name the input and line: %v", err)
			}
			return
		}
		var once bytes.Buffer
		if err := Write(&once, traces); err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(bytes.TrimSuffix(once.Bytes(), []byte("\n")), []byte("\n")) {
			if len(traces) > 0 && !json.Valid(line) {
				t.Fatalf("written line %d is not JSON: %s", i+1, line)
			}
		}
		again, err := Read(context.Background(), bytes.NewReader(once.Bytes()), "written")
		if err != nil {
			t.Fatalf("reading what Write wrote: %v", err)
		}
		var twice bytes.Buffer
		if err := Write(&twice, again); err != nil || !bytes.Equal(once.Bytes(), twice.Bytes()) {
			t.Fatalf("second round trip differs (%v):\n%s\n%s", err, once.Bytes(), twice.Bytes())
		}
	})
}
