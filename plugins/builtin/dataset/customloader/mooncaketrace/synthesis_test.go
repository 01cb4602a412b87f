package mooncaketrace

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/core/tracesynth"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
)

// The trace and AIPerf 0.13's loaded records for it (core/tracesynth's
// golden files, made by AIPerf's own mooncake_trace loader).
var synthTestdata = filepath.Join("..", "..", "..", "..", "..", "core", "tracesynth", "testdata")

func fptr(v float64) *float64 { return &v }
func iptr(v int) *int         { return &v }

// Loading with --synthesis-* settings gives AIPerf's records: the same
// sessions in the same order, and per turn the timestamp, delay and
// max_tokens AIPerf loaded and a prompt of exactly its input_length
// tokens (or its text_input).
func TestSynthesisMatchesAIPerfLoader(t *testing.T) {
	tok := tiktoken.New()
	for _, tc := range []struct {
		name string
		bs   int
		syn  tracesynth.Options
	}{
		{"speedup2", 0, tracesynth.Options{SpeedupRatio: fptr(2)}},
		{"maxisl_maxosl", 0, tracesynth.Options{MaxISL: iptr(2000), MaxOSL: iptr(100)}},
		{"prefix1_5", 0, tracesynth.Options{PrefixLenMultiplier: fptr(1.5)}},
		{"prompt0_5", 0, tracesynth.Options{PromptLenMultiplier: fptr(0.5)}},
		{"output1_5_maxosl", 0, tracesynth.Options{OutputLenMultiplier: fptr(1.5), MaxOSL: iptr(300)}},
		{"root3_seed42", 0, tracesynth.Options{PrefixRootMultiplier: iptr(3)}},
		{"bs64_prefix2_root4", 64, tracesynth.Options{PrefixLenMultiplier: fptr(2), PrefixRootMultiplier: iptr(4)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := New()
			l.Config = Config{BlockSize: tc.bs, Synthesis: tc.syn}
			var info []string
			l.Info = func(msg string) { info = append(info, msg) }
			if err := l.Validate(); err != nil {
				t.Fatal(err)
			}
			convs, err := l.Load(context.Background(), filepath.Join(synthTestdata, "trace.jsonl"), sdk.DatasetOptions{RandomSeed: 42, Tokenizer: tok})
			if err != nil {
				t.Fatal(err)
			}
			want := readRecords(t, filepath.Join(synthTestdata, "aiperf_"+tc.name+".jsonl"))
			i := 0
			for _, c := range convs {
				for _, turn := range c.Turns {
					if i >= len(want) {
						t.Fatalf("more turns than AIPerf's %d records", len(want))
					}
					checkTurn(t, tok, i, c.SessionID, turn, want[i])
					i++
				}
			}
			if i != len(want) {
				t.Errorf("%d turns, AIPerf loaded %d records", i, len(want))
			}
			if tc.name == "maxisl_maxosl" {
				wantInfo := []string{"Skipped 1 traces because input_length exceeded max_isl of 2000",
					"2 traces exceeded max_osl of 100 and were capped to 100"}
				if !reflect.DeepEqual(info, wantInfo) {
					t.Errorf("info %q, want %q", info, wantInfo)
				}
			}
		})
	}
}

type wantRecord struct {
	InputLength  *int     `json:"input_length"`
	TextInput    *string  `json:"text_input"`
	OutputLength *int     `json:"output_length"`
	Timestamp    *float64 `json:"timestamp"`
	Delay        *float64 `json:"delay"`
	SessionID    string   `json:"session_id"`
}

func readRecords(t *testing.T, path string) []wantRecord {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []wantRecord
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r wantRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func checkTurn(t *testing.T, tok sdk.Tokenizer, i int, sid string, turn sdk.Turn, w wantRecord) {
	t.Helper()
	if w.SessionID != "" && sid != w.SessionID {
		t.Errorf("turn %d: session %q, AIPerf %q", i, sid, w.SessionID)
	}
	if !reflect.DeepEqual(turn.TimestampMs, w.Timestamp) || !reflect.DeepEqual(turn.DelayMs, w.Delay) || !reflect.DeepEqual(turn.MaxTokens, w.OutputLength) {
		t.Errorf("turn %d: timestamp %v delay %v max_tokens %v; AIPerf %v %v %v", i,
			deref(turn.TimestampMs), deref(turn.DelayMs), deref(turn.MaxTokens), deref(w.Timestamp), deref(w.Delay), deref(w.OutputLength))
	}
	switch {
	case w.TextInput != nil:
		if len(turn.Texts) != 1 || turn.Texts[0] != *w.TextInput {
			t.Errorf("turn %d: texts %q, want %q", i, turn.Texts, *w.TextInput)
		}
	case len(turn.Texts) != 1:
		t.Errorf("turn %d: %d texts", i, len(turn.Texts))
	default:
		if n := tok.Count(turn.Texts[0]); n != *w.InputLength {
			t.Errorf("turn %d: prompt of %d tokens, AIPerf's input_length %d", i, n, *w.InputLength)
		}
	}
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// No synthesis setting, or settings at their defaults, load the same
// conversations: the defaults are a no-op.
func TestSynthesisDefaultsAreANoOp(t *testing.T) {
	path := filepath.Join(synthTestdata, "trace.jsonl")
	plain, err := New().Load(context.Background(), path, opts())
	if err != nil {
		t.Fatal(err)
	}
	l := New()
	if err := sdk.DecodeConfig([]byte(`{"synthesis": {"speedup_ratio": 1.0, "prefix_root_multiplier": 1}}`), l.PluginConfig()); err != nil {
		t.Fatal(err)
	}
	same, err := l.Load(context.Background(), path, opts())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(plain, same) {
		t.Error("synthesis settings at their defaults changed the loaded conversations")
	}
	if len(plain) != 11 || len(plain[2].Turns) != 2 || plain[2].SessionID != "s-a" {
		t.Errorf("want 11 conversations, the third session s-a with 2 turns; got %d", len(plain))
	}
}

func TestSynthesisErrors(t *testing.T) {
	l := New()
	err := sdk.DecodeConfig([]byte(`{"synthesis": {"speedup_ratio": 0, "max_osl": 0}}`), l.PluginConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Validate(); err == nil || !strings.Contains(err.Error(), "--synthesis-speedup-ratio must be > 0 (got 0)") ||
		!strings.Contains(err.Error(), "--synthesis-max-osl must be >= 1 (got 0)") {
		t.Errorf("Validate: %v", err)
	}
	if err := sdk.DecodeConfig([]byte(`{"synthesis": {"speedup": 2}}`), New().PluginConfig()); err == nil || !strings.Contains(err.Error(), "speedup") {
		t.Errorf("an unknown synthesis key must be refused, got %v", err)
	}

	for _, tc := range []struct {
		name  string
		syn   tracesynth.Options
		lines []string
		want  []string
	}{
		// AIPerf's synthesizer refuses a record shorter than its shared
		// blocks (input_len (1000) < prefix_len (1024)).
		{"input shorter than shared prefix", tracesynth.Options{SpeedupRatio: fptr(2)}, []string{
			`{"input_length": 1000, "hash_ids": [1, 2]}`, `{"input_length": 1100, "hash_ids": [1, 2, 3]}`},
			[]string{"trace.jsonl: synthesis: line 1: input_length 1000 is shorter than its 2 shared prefix blocks"}},
		// A record that is invalid before synthesis fails as without it.
		{"bad record", tracesynth.Options{SpeedupRatio: fptr(2)}, []string{`{"input_length": 10}`, `{"input_length": 10, "text_input": "x"}`},
			[]string{"trace.jsonl:2:", "mutually exclusive"}},
		// max_isl caps the synthesized length but keeps the hash ids, so a
		// cap of more than a block leaves hash ids the prompt cannot hold
		// (AIPerf's prompt generator raises on it too).
		{"capped below the hash ids", tracesynth.Options{PromptLenMultiplier: fptr(3), MaxISL: iptr(1000)}, []string{
			`{"input_length": 600, "hash_ids": [1, 2]}`, `{"input_length": 1000, "hash_ids": [1, 3]}`},
			[]string{"trace.jsonl:2: after synthesis: hash_ids:", "leaves"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := New()
			l.Config.Synthesis = tc.syn
			_, err := l.Load(context.Background(), writeFile(t, "trace.jsonl", tc.lines...), opts())
			for _, want := range tc.want {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("error %v, want it to contain %q", err, want)
				}
			}
		})
	}
}
