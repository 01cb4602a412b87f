package specbench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/fuzzcheck"
)

func FuzzRead(f *testing.F) {
	fixture, err := os.ReadFile("../testdata/spec_bench/spec_bench.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{string(fixture), `{"turns": [" a ", 5, null, [1], {"k": true}]}`, `{"turns": "x"}`, `[1]`, `{"turns": [""]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		path := filepath.Join(t.TempDir(), "spec_bench.jsonl")
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		isJSONL(path)
		for _, multi := range []bool{false, true} {
			convs, err := Read(context.Background(), path, multi, 1)
			if err != nil {
				fuzzcheck.CheckFileError(t, err, path, content)
				continue
			}
			for i, c := range convs {
				if len(c.Turns) == 0 || (!multi && len(c.Turns) != 1) {
					t.Fatalf("multi-turn %v: conversation %d has %d turns", multi, i, len(c.Turns))
				}
				for _, turn := range c.Turns {
					if len(turn.Texts) != 1 || strings.TrimSpace(turn.Texts[0]) == "" {
						t.Fatalf("turn with texts %q", turn.Texts)
					}
				}
			}
		}
	})
}
