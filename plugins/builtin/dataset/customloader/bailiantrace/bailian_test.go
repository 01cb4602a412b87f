package bailiantrace

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
)

const fixture = "testdata/bailian_excerpt.jsonl"

func opts() sdk.DatasetOptions {
	return sdk.DatasetOptions{RandomSeed: 42, Tokenizer: tiktoken.New()}
}

func writeFile(t *testing.T, name string, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func newLoader(t *testing.T) *Loader {
	l := New()
	l.Warn = func(msg string) { t.Errorf("unexpected warning: %s", msg) }
	return l
}

func TestFixtureSessionsTimestampsAndLengths(t *testing.T) {
	convs, err := newLoader(t).Load(context.Background(), fixture, opts())
	if err != nil {
		t.Fatal(err)
	}
	type turn struct {
		isl, osl int
		tsMs     float64
	}
	want := []struct {
		id    string
		turns []turn
	}{
		{"159", []turn{{521, 132, 61114}, {700, 80, 62500}, {1130, 64, 70250}}},
		{"200", []turn{{37, 12, 61500}}},
		{"305", []turn{{16, 1, 80000}}},
		{"410", []turn{{48, 0, 95007}}},
	}
	if len(convs) != len(want) {
		t.Fatalf("%d conversations, want %d", len(convs), len(want))
	}
	tok := tiktoken.New()
	for i, w := range want {
		c := convs[i]
		if c.SessionID != w.id || len(c.Turns) != len(w.turns) {
			t.Fatalf("conversation %d: session %q with %d turns, want %q with %d", i, c.SessionID, len(c.Turns), w.id, len(w.turns))
		}
		for j, wt := range w.turns {
			tr := c.Turns[j]
			if n := tok.Count(tr.Texts[0]); n != wt.isl {
				t.Errorf("session %s turn %d: prompt of %d tokens, want %d", w.id, j, n, wt.isl)
			}
			if tr.MaxTokens == nil || *tr.MaxTokens != wt.osl {
				t.Errorf("session %s turn %d: max tokens %v, want %d", w.id, j, tr.MaxTokens, wt.osl)
			}
			if tr.TimestampMs == nil || math.Abs(*tr.TimestampMs-wt.tsMs) > 1e-6 {
				t.Errorf("session %s turn %d: timestamp %v ms, want %v", w.id, j, tr.TimestampMs, wt.tsMs)
			}
			if tr.DelayMs != nil {
				t.Errorf("session %s turn %d: delay %v, want none", w.id, j, *tr.DelayMs)
			}
		}
	}
	// Turns 1 and 2 of session 159 share five 16-token blocks (80 tokens).
	a, b := convs[0].Turns[0].Texts[0], convs[0].Turns[1].Texts[0]
	k := 0
	for k < len(a) && k < len(b) && a[k] == b[k] {
		k++
	}
	if n := tok.Count(a[:k]); n < 80 {
		t.Errorf("turns 1 and 2 share a %d-token prefix, want at least the 80 tokens of their common hash ids", n)
	}
}

func TestDeterministicBySeed(t *testing.T) {
	load := func(seed int64) string {
		o := opts()
		o.RandomSeed = seed
		convs, err := New().Load(context.Background(), fixture, o)
		if err != nil {
			t.Fatal(err)
		}
		return convs[0].Turns[0].Texts[0]
	}
	if a, b := load(1), load(1); a != b {
		t.Error("same seed, different prompts")
	}
	if load(1) == load(2) {
		t.Error("different seeds, same prompts")
	}
}

func TestParentCycles(t *testing.T) {
	path := writeFile(t, "cycle.jsonl",
		`{"chat_id": 1, "parent_chat_id": 2, "timestamp": 1, "input_length": 4, "output_length": 1, "turn": 2}`,
		`{"chat_id": 2, "parent_chat_id": 1, "timestamp": 0, "input_length": 4, "output_length": 1, "turn": 1}`,
		`{"chat_id": 3, "parent_chat_id": 3, "timestamp": 2, "input_length": 4, "output_length": 1}`,
	)
	convs, err := New().Load(context.Background(), path, opts())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range convs {
		got = append(got, c.SessionID)
	}
	// A cycle stops where the walk would revisit a chat (AIPerf's
	// find_root): 1 → 2 → 1 makes 1 the root of both; a self-parent is its
	// own root. Turns sort by turn: chat 2 (turn 1) before chat 1.
	if strings.Join(got, ",") != "1,3" || len(convs[0].Turns) != 2 || *convs[0].Turns[0].TimestampMs != 0 {
		t.Errorf("sessions %v", got)
	}
}

func TestBlockSize(t *testing.T) {
	const label = "custom_dataset_loader.bailian_trace"
	l := New()
	if err := sdk.ApplyConfig(l, label, []byte(`{"block_size": 64}`)); err != nil {
		t.Fatal(err)
	}
	// 64 tokens over three 64-token blocks: the final block would be empty.
	_, err := l.Load(context.Background(), writeFile(t, "t.jsonl", `{"chat_id": 1, "timestamp": 0, "input_length": 128, "output_length": 1, "hash_ids": [1, 2, 3]}`), opts())
	if err == nil || !strings.Contains(err.Error(), "t.jsonl:1: hash_ids:") || !strings.Contains(err.Error(), "block size 64") {
		t.Errorf("block_size 64: err = %v", err)
	}
	// The default (16) takes 40 tokens over three blocks.
	convs, err := New().Load(context.Background(), writeFile(t, "t.jsonl", `{"chat_id": 1, "timestamp": 0, "input_length": 40, "output_length": 1, "hash_ids": [1, 2, 3]}`), opts())
	if err != nil || tiktoken.New().Count(convs[0].Turns[0].Texts[0]) != 40 {
		t.Errorf("default block size: err = %v", err)
	}
	neg := New()
	neg.Config.BlockSize = -1
	if err := neg.Validate(); err == nil || !strings.Contains(err.Error(), "--isl-block-size") {
		t.Errorf("negative block size: %v", err)
	}
}

func TestMalformedLinesNameFileLineAndField(t *testing.T) {
	good := `{"chat_id": 1, "timestamp": 0, "input_length": 4, "output_length": 1}`
	cases := []struct{ line, want string }{
		{`{"timestamp": 0, "input_length": 4, "output_length": 1}`, "chat_id: required field missing"},
		{`{"chat_id": 2, "input_length": 4, "output_length": 1}`, "timestamp: required field missing"},
		{`{"chat_id": 2, "timestamp": 0, "output_length": 1}`, "input_length: required field missing"},
		{`{"chat_id": 2, "timestamp": 0, "input_length": 4}`, "output_length: required field missing"},
		{`{"chat_id": "x", "timestamp": 0, "input_length": 4, "output_length": 1}`, "chat_id: got JSON string, want int64"},
		{`{"chat_id": 2, "timestamp": 0, "input_length": 0, "output_length": 1}`, "input_length: 0, must be at least 1"},
		{`{"chat_id": 2, "timestamp": 0, "input_length": 4, "output_length": -1}`, "output_length: -1"},
		{`{"chat_id": 2, "timestamp": -1, "input_length": 4, "output_length": 1}`, "timestamp: -1 s"},
		{`{"chat_id": 2, "timestamp": 0, "input_length": 4, "output_length": 1, "hash_ids": ["a"]}`, "hash_ids"},
		{`{"chat_id": 2, "timestamp": 0, "input_length": 4, "output_length": 1, "turn": 1.5}`, "turn"},
		{`{"chat_id": 2,`, "invalid JSON"},
	}
	for _, c := range cases {
		path := writeFile(t, "bad.jsonl", good, "", c.line)
		_, err := New().Load(context.Background(), path, opts())
		if err == nil {
			t.Errorf("%s: no error", c.line)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "bad.jsonl:3: ") || !strings.Contains(msg, c.want) {
			t.Errorf("%s:\n  got  %q\n  want bad.jsonl:3: ... %q", c.line, msg, c.want)
		}
	}
	if _, err := New().Load(context.Background(), writeFile(t, "empty.jsonl", ""), opts()); err == nil || !strings.Contains(err.Error(), "no records") {
		t.Errorf("empty file: %v", err)
	}
	if _, err := New().Load(context.Background(), fixture, sdk.DatasetOptions{}); err == nil || !strings.Contains(err.Error(), "bailian_excerpt.jsonl:1: input_length: building prompts needs a tokenizer") {
		t.Errorf("no tokenizer: %v", err)
	}
}

func TestCanLoad(t *testing.T) {
	if !New().CanLoad(fixture) {
		t.Error("the Bailian excerpt must be detected")
	}
	cases := []struct {
		first string
		want  bool
	}{
		{`{"chat_id": 7, "timestamp": 1.5, "input_length": 10, "output_length": 2}`, true},
		{`{"type": "bailian_trace", "foo": 1}`, true},
		{`{"timestamp": 0, "input_length": 10, "output_length": 4, "hash_ids": [1]}`, false}, // mooncake
		{`{"chat_id": 7, "timestamp": 1.5, "input_length": 10}`, false},
		{`{"chat_id": "7", "timestamp": 1.5, "input_length": 10, "output_length": 2}`, false},
		{`{"type": "mooncake_trace", "chat_id": 7, "timestamp": 1.5, "input_length": 10, "output_length": 2}`, false},
		{`{"text": "hi"}`, false},
		{`not json`, false},
	}
	for _, c := range cases {
		if got := New().CanLoad(writeFile(t, "f.jsonl", "", c.first)); got != c.want {
			t.Errorf("CanLoad(%s) = %v, want %v", c.first, got, c.want)
		}
	}
	if New().CanLoad(filepath.Join(t.TempDir(), "missing")) {
		t.Error("missing file")
	}
}
