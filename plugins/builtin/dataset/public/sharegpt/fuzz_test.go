package sharegpt

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/aiperf-go/aiperf/internal/fuzzcheck"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
)

func FuzzRead(f *testing.F) {
	fixture, err := os.ReadFile("../testdata/sharegpt/ShareGPT_V3_unfiltered_cleaned_split.json")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{string(fixture), `[]`, `[{"conversations": []}]`,
		`[{"id": "a", "conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "hello there"}]}]`,
		`[{"conversations": [{"from": "human", "value": 5}, {"from": "gpt"}]}, 7, null]`, `[{`, `{"a": 1}`} {
		f.Add([]byte(s))
	}
	tok := tiktoken.New()
	f.Fuzz(func(t *testing.T, content []byte) {
		path := filepath.Join(t.TempDir(), "sharegpt.json")
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		isJSONArray(path)
		convs, err := Read(context.Background(), path, tok, 1)
		if err != nil {
			fuzzcheck.CheckFileError(t, err, path, content)
			return
		}
		for i, c := range convs {
			if len(c.Turns) == 0 {
				t.Fatalf("conversation %d has no turns", i)
			}
		}
	})
}
