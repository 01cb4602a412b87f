package main

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
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/customloader/mooncaketrace"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
)

const synthFixture = "../../core/tracesynth/testdata/"

func runSynthesizeArgs(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return runCommand(t, "synthesize", args...)
}

// TestSynthesizeMatchesAIPerfAndRoundTrips runs the command on the trace
// AIPerf 0.13's mooncake_trace loader synthesized (core/tracesynth/testdata,
// gen_aiperf.py): the written records, regrouped into sessions as a loader
// groups them, are AIPerf's field for field; and the mooncake_trace loader
// reads the file back, every line, with AIPerf's timestamps, output
// lengths and input lengths.
func TestSynthesizeMatchesAIPerfAndRoundTrips(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		args    []string
	}{
		{"speedup2_prefix1_5_root3_maxosl200", []string{"--synthesis-speedup-ratio", "2", "--synthesis-prefix-len-multiplier", "1.5",
			"--synthesis-prefix-root-multiplier", "3", "--synthesis-max-osl", "200", "--random-seed", "42"}},
		{"bs64_prefix2_root4", []string{"--block-size", "64", "--synthesis-prefix-len-multiplier", "2", "--synthesis-prefix-root-multiplier", "4"}},
		{"maxisl_maxosl", []string{"--synthesis-max-isl", "2000", "--synthesis-max-osl", "100", "--seed", "42"}},
		{"default", nil},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			outPath := filepath.Join(t.TempDir(), "sub", "synth.jsonl")
			stdout, err := runSynthesizeArgs(t, append([]string{synthFixture + "trace.jsonl", outPath}, tc.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			want := readJSONLines(t, synthFixture+"aiperf_"+tc.fixture+".jsonl")
			wantSummary := "Synthesized " + itoa(len(want)) + " of 13 traces into " + outPath + "\n"
			if !strings.HasSuffix(stdout, wantSummary) {
				t.Errorf("stdout %q, want it to end with %q", stdout, wantSummary)
			}

			written, err := tracesynth.ReadFile(context.Background(), outPath)
			if err != nil {
				t.Fatal(err)
			}
			if len(written) != len(want) {
				t.Fatalf("%d records written, AIPerf loaded %d", len(written), len(want))
			}
			// The file keeps the input's line order; grouping it into
			// sessions (what a loader does) gives AIPerf's order.
			grouped, err := tracesynth.Apply(written, tracesynth.DefaultParams(), 0)
			if err != nil {
				t.Fatal(err)
			}
			for i, tr := range grouped.Traces {
				b, _ := tr.MarshalJSON()
				var got map[string]any
				if err := json.Unmarshal(b, &got); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want[i]) {
					t.Errorf("record %d:\n got  %s\n want %s", i, b, mustMarshal(want[i]))
				}
			}

			bs := 512
			if tc.fixture == "bs64_prefix2_root4" {
				bs = 64
			}
			l := mooncaketrace.New()
			l.Config.BlockSize = bs
			tok := tiktoken.New()
			convs, err := l.Load(context.Background(), outPath, sdk.DatasetOptions{RandomSeed: 1, Tokenizer: tok})
			if err != nil {
				t.Fatalf("the mooncake_trace loader refused the output: %v", err)
			}
			i := 0
			for _, c := range convs {
				for _, turn := range c.Turns {
					w := want[i]
					if sid, ok := w["session_id"]; ok && c.SessionID != sid {
						t.Errorf("turn %d: session %q, want %v", i, c.SessionID, sid)
					}
					if turn.TimestampMs == nil || *turn.TimestampMs != w["timestamp"] {
						t.Errorf("turn %d: timestamp %v, want %v", i, turn.TimestampMs, w["timestamp"])
					}
					if turn.MaxTokens == nil || float64(*turn.MaxTokens) != w["output_length"] {
						t.Errorf("turn %d: max_tokens %v, want %v", i, turn.MaxTokens, w["output_length"])
					}
					if isl, ok := w["input_length"].(float64); ok {
						if n := tok.Count(turn.Texts[0]); float64(n) != isl {
							t.Errorf("turn %d: prompt of %d tokens, want input_length %v", i, n, isl)
						}
					} else if turn.Texts[0] != w["text_input"] {
						t.Errorf("turn %d: text %q, want %v", i, turn.Texts[0], w["text_input"])
					}
					i++
				}
			}
			if i != len(want) {
				t.Errorf("loaded %d turns, want %d", i, len(want))
			}
		})
	}
}

func TestSynthesizeErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"input_length\": 1000, \"hash_ids\": [1, 2]}\n{\"input_length\": 1100, \"hash_ids\": [1, 2, 3]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.jsonl")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"agentic-code", []string{"agentic-code"}, "aiperf synthesize agentic-code (AIPerf 0.13's agentic-code workload generator) is not implemented"},
		{"no input", nil, "missing input file"},
		{"no output", []string{bad}, "missing output file"},
		{"both input forms", []string{bad, out, "--input-file", bad}, "input file given both as an argument and as --input-file"},
		{"bad flag", []string{bad, out, "--synthesis-prefix-root-multiplier", "0", "--synthesis-max-isl", "0"},
			"--synthesis-max-isl must be >= 1 (got 0)\n--synthesis-prefix-root-multiplier must be >= 1 (got 0)"},
		{"missing file", []string{filepath.Join(dir, "nope.jsonl"), out}, "input file: open"},
		{"short record", []string{bad, out, "--synthesis-speedup-ratio", "2"}, bad + ": line 1: input_length 1000 is shorter than its 2 shared prefix blocks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runSynthesizeArgs(t, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed run wrote the output file")
	}
}

func readJSONLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, m)
	}
	return out
}

func mustMarshal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
