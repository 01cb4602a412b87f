package tracesynth

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Values printed by CPython 3.11 (see testdata/README.md): the derived
// seed and randint(0, n-1) draws of AIPerf's synthesizer generator, and
// of random.Random(seed) directly.
func TestPyRandomMatchesCPython(t *testing.T) {
	for _, tc := range []struct {
		root    int64
		derived uint64
		n       uint64
		want    []uint64
	}{
		{42, 7429438713444764493, 3, []uint64{0, 0, 0, 0, 2, 0, 2, 1, 1, 1, 2, 0}},
		{7, 8840362273765869851, 2, []uint64{0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0}},
		{0, 15966826124166532720, 5, []uint64{1, 4, 1, 0, 1, 0, 2, 4, 4, 2, 4, 4}},
		{123456789, 2775943180283957845, 1000, []uint64{435, 564, 649, 383, 150, 328, 737, 942, 980, 384, 76, 252}},
	} {
		if got := deriveSeed(tc.root, rngIdentifier); got != tc.derived {
			t.Errorf("deriveSeed(%d) = %d, want %d", tc.root, got, tc.derived)
		}
		r := newPyRandom(tc.derived)
		var got []uint64
		for range tc.want {
			got = append(got, r.intn(tc.n))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("seed %d randint(0, %d): got %v, want %v", tc.root, tc.n-1, got, tc.want)
		}
	}
	for _, tc := range []struct {
		seed, n uint64
		want    []uint64
	}{
		{0, 7, []uint64{6, 3, 6, 3, 0, 2}},
		{1, 2, []uint64{0, 0, 1, 0, 1, 1}},
		{1<<32 + 5, 3, []uint64{0, 1, 1, 2, 0, 1}},
		{1<<64 - 1, 1e12, []uint64{270676680318, 680056941120, 499126599761, 105721161155, 991792005364, 843407212779}},
	} {
		r := newPyRandom(tc.seed)
		var got []uint64
		for range tc.want {
			got = append(got, r.intn(tc.n))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Random(%d).randint(0, %d): got %v, want %v", tc.seed, tc.n-1, got, tc.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestMatchesAIPerfLoader compares Apply with AIPerf 0.13's own
// mooncake_trace loader run on testdata/trace.jsonl (testdata/gen_aiperf.py):
// every record, field for field, in AIPerf's order. The root-multiplier
// cases match because the generator is CPython's, seeded as AIPerf seeds it.
func TestMatchesAIPerfLoader(t *testing.T) {
	in, err := ReadFile(context.Background(), "testdata/trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		seed int64
		bs   int
		opts Options
	}{
		{"default", 42, 512, Options{}},
		{"speedup2", 42, 512, Options{SpeedupRatio: ptr(2.0)}},
		{"maxisl_maxosl", 42, 512, Options{MaxISL: ptr(2000), MaxOSL: ptr(100)}},
		{"prefix2", 42, 512, Options{PrefixLenMultiplier: ptr(2.0)}},
		{"prefix1_5", 42, 512, Options{PrefixLenMultiplier: ptr(1.5)}},
		{"prefix0_5", 42, 512, Options{PrefixLenMultiplier: ptr(0.5)}},
		{"prompt0_5", 42, 512, Options{PromptLenMultiplier: ptr(0.5)}},
		{"prompt2", 42, 512, Options{PromptLenMultiplier: ptr(2.0)}},
		{"output1_5_maxosl", 42, 512, Options{OutputLenMultiplier: ptr(1.5), MaxOSL: ptr(300)}},
		{"root3_seed42", 42, 512, Options{PrefixRootMultiplier: ptr(3)}},
		{"combined_seed7", 7, 512, Options{
			SpeedupRatio: ptr(4.0), PrefixLenMultiplier: ptr(1.5), PrefixRootMultiplier: ptr(2),
			PromptLenMultiplier: ptr(1.3), MaxISL: ptr(3000), MaxOSL: ptr(200),
		}},
		{"speedup2_prefix1_5_root3_maxosl200", 42, 512, Options{
			SpeedupRatio: ptr(2.0), PrefixLenMultiplier: ptr(1.5), PrefixRootMultiplier: ptr(3), MaxOSL: ptr(200),
		}},
		{"bs64_prefix2_root4", 42, 64, Options{PrefixLenMultiplier: ptr(2.0), PrefixRootMultiplier: ptr(4)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := tc.opts.Params(tc.bs)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Apply(in, p, tc.seed)
			if err != nil {
				t.Fatal(err)
			}
			want := readObjects(t, filepath.Join("testdata", "aiperf_"+tc.name+".jsonl"))
			if len(res.Traces) != len(want) {
				t.Fatalf("%d records, AIPerf kept %d", len(res.Traces), len(want))
			}
			for i, tr := range res.Traces {
				b, _ := tr.MarshalJSON()
				var got map[string]any
				if err := json.Unmarshal(b, &got); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want[i]) {
					t.Errorf("record %d:\n got  %s\n want %s", i, b, mustJSON(want[i]))
				}
			}
		})
	}
}

func readObjects(t *testing.T, path string) []map[string]any {
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

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func parseAll(t *testing.T, lines ...string) []*Trace {
	t.Helper()
	out, err := Read(context.Background(), strings.NewReader(strings.Join(lines, "\n")), "test")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func encode(ts []*Trace) []string {
	var out []string
	for _, t := range ts {
		b, _ := t.MarshalJSON()
		out = append(out, string(b))
	}
	return out
}

// Hand-computed expectations for each option alone, block size 4 (shared
// ids 1 and 2: the largest is 2, so fresh ids start at 4 — AIPerf skips
// one — or at (2+1)·2+1 = 7 with a prefix multiplier of 2).
func TestSynthesizeOptions(t *testing.T) {
	in := []string{
		`{"timestamp":1001,"input_length":10,"output_length":7,"hash_ids":[1,2,9]}`,
		`{"timestamp":2003.9,"input_length":9,"output_length":3,"hash_ids":[1,2,8]}`,
		`{"timestamp":5,"text_input":"hi","output_length":0}`,
	}
	for _, tc := range []struct {
		name string
		p    func(*Params)
		want []string
	}{
		{"speedup 2 halves and truncates timestamps", func(p *Params) { p.SpeedupRatio = 2 }, []string{
			`{"timestamp":500,"input_length":10,"output_length":7,"hash_ids":[1,2,4]}`,
			`{"timestamp":1001,"input_length":9,"output_length":3,"hash_ids":[1,2,5]}`,
			`{"timestamp":2,"text_input":"hi","output_length":1}`,
		}},
		{"prefix x2 interleaves the shared blocks", func(p *Params) { p.PrefixLenMultiplier = 2 }, []string{
			`{"timestamp":1001,"input_length":18,"output_length":7,"hash_ids":[2,3,4,5,7]}`,
			`{"timestamp":2003,"input_length":17,"output_length":3,"hash_ids":[2,3,4,5,8]}`,
			`{"timestamp":5,"text_input":"hi","output_length":1}`,
		}},
		{"prefix x1.5 adds fresh blocks", func(p *Params) { p.PrefixLenMultiplier = 1.5 }, []string{
			`{"timestamp":1001,"input_length":14,"output_length":7,"hash_ids":[1,2,4,5]}`,
			`{"timestamp":2003,"input_length":13,"output_length":3,"hash_ids":[1,2,6,7]}`,
			`{"timestamp":5,"text_input":"hi","output_length":1}`,
		}},
		{"prefix x0.5 keeps one block", func(p *Params) { p.PrefixLenMultiplier = 0.5 }, []string{
			`{"timestamp":1001,"input_length":6,"output_length":7,"hash_ids":[1,4]}`,
			`{"timestamp":2003,"input_length":5,"output_length":3,"hash_ids":[1,5]}`,
			`{"timestamp":5,"text_input":"hi","output_length":1}`,
		}},
		{"prompt x3 lengthens the unique tail", func(p *Params) { p.PromptLenMultiplier = 3 }, []string{
			`{"timestamp":1001,"input_length":14,"output_length":7,"hash_ids":[1,2,4,5]}`,
			`{"timestamp":2003,"input_length":11,"output_length":3,"hash_ids":[1,2,6]}`,
			`{"timestamp":5,"text_input":"hi","output_length":1}`,
		}},
		{"output x1.5 rounds half to even, max_osl caps", func(p *Params) { p.OutputLenMultiplier = 1.5; p.MaxOSL = 10 }, []string{
			`{"timestamp":1001,"input_length":10,"output_length":10,"hash_ids":[1,2,4]}`,
			`{"timestamp":2003,"input_length":9,"output_length":4,"hash_ids":[1,2,5]}`,
			`{"timestamp":5,"text_input":"hi","output_length":1}`,
		}},
		{"max_isl caps the synthesized length", func(p *Params) { p.PromptLenMultiplier = 3; p.MaxISL = 12 }, []string{
			`{"timestamp":1001,"input_length":12,"output_length":7,"hash_ids":[1,2,4,5]}`,
			`{"timestamp":2003,"input_length":11,"output_length":3,"hash_ids":[1,2,6]}`,
			`{"timestamp":5,"text_input":"hi","output_length":1}`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultParams()
			p.BlockSize = 4
			tc.p(&p)
			traces := parseAll(t, in...)
			out, err := Synthesize(traces, p, 1)
			if err != nil {
				t.Fatal(err)
			}
			if got := encode(out); !slices.Equal(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if got := encode(traces); !slices.Equal(got, in) {
				t.Errorf("the input was modified:\n%s", strings.Join(got, "\n"))
			}
		})
	}
}

func TestApplyFiltersCapsAndGroups(t *testing.T) {
	in := parseAll(t,
		`{"session_id":"a","input_length":5,"output_length":50}`,
		`{"input_length":500,"output_length":1}`,
		`{"session_id":"b","input_length":7,"output_length":8}`,
		`{"session_id":"a","input_length":101,"output_length":9}`,
		`{"session_id":"a","input_length":100,"output_length":20,"timestamp":1.5}`,
		`{"session_id":"","text_input":"x","output_length":30}`,
	)
	p := DefaultParams()
	p.MaxISL, p.MaxOSL = 100, 10
	res, err := Apply(in, p, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"session_id":"a","input_length":5,"output_length":10}`,
		`{"session_id":"a","input_length":100,"output_length":10,"timestamp":1.5}`,
		`{"session_id":"b","input_length":7,"output_length":8}`,
		`{"session_id":"","text_input":"x","output_length":10}`,
	}
	if got := encode(res.Traces); !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res.SkippedMaxISL != 2 || res.CappedMaxOSL != 3 {
		t.Errorf("skipped %d, capped %d; want 2 and 3", res.SkippedMaxISL, res.CappedMaxOSL)
	}
	wantSummary := []string{
		"Skipped 2 traces because input_length exceeded max_isl of 100",
		"3 traces exceeded max_osl of 10 and were capped to 10",
	}
	if got := res.Summary(p); !slices.Equal(got, wantSummary) {
		t.Errorf("summary %q, want %q", got, wantSummary)
	}
	wantInput := []string{want[0], want[2], want[1], want[3]}
	if got := encode(res.InputOrder()); !slices.Equal(got, wantInput) {
		t.Errorf("InputOrder:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantInput, "\n"))
	}
	if got := encode(in)[0]; got != `{"session_id":"a","input_length":5,"output_length":50}` {
		t.Errorf("Apply modified its input: %s", got)
	}
}

func TestApplyDefaultsLeaveRecordsUntouched(t *testing.T) {
	lines := []string{
		`{"timestamp":1.25,"input_length":3,"hash_ids":[],"type":"mooncake_trace","extra":{"a":"<b>"}}`,
		`{"input_length":2,"hash_ids":[7,7],"output_length":0,"unknown":[1, 2]}`,
	}
	res, err := Apply(parseAll(t, lines...), DefaultParams(), 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{lines[0], `{"input_length":2,"hash_ids":[7,7],"output_length":0,"unknown":[1,2]}`}
	if got := encode(res.Traces); !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A root multiplier of N puts each record in one of N trees whose ids are
// disjoint ranges; records in one tree keep the prefix sharing they had.
func TestRootMultiplierMakesDisjointTrees(t *testing.T) {
	var lines []string
	for i := range 60 {
		// Three prefix families of 2 shared blocks plus one unique block.
		f := int64(i % 3 * 10)
		lines = append(lines, mustJSON(map[string]any{"input_length": 3 * 16, "hash_ids": []int64{f, f + 1, 1000 + int64(i)}}))
	}
	in := parseAll(t, lines...)
	p := DefaultParams()
	p.BlockSize, p.PrefixRootMultiplier = 16, 4
	out, err := Synthesize(in, p, 42)
	if err != nil {
		t.Fatal(err)
	}
	// Shared ids go up to 21; fresh ids 23..82; so tree t holds [83t, 83t+83).
	const base = 83
	trees := map[int64]bool{}
	owner := map[int64]int64{}
	for i, tr := range out {
		ids, _ := tr.hashIDs()
		tree := ids[0] / base
		trees[tree] = true
		for _, h := range ids {
			if h/base != tree {
				t.Fatalf("record %d: ids %v span trees", i, ids)
			}
			if o, ok := owner[h]; ok && o != tree {
				t.Fatalf("id %d in trees %d and %d", h, o, tree)
			}
			owner[h] = tree
		}
		orig, _ := in[i].hashIDs()
		if ids[0]-tree*base != orig[0] || ids[1]-tree*base != orig[1] {
			t.Errorf("record %d: prefix %v is not the original %v shifted by tree %d", i, ids[:2], orig[:2], tree)
		}
	}
	if len(trees) != 4 {
		t.Errorf("60 records fell in %d trees, want all 4", len(trees))
	}

	again, err := Synthesize(in, p, 42)
	if err != nil {
		t.Fatal(err)
	}
	other, err := Synthesize(in, p, 43)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(encode(again), encode(out)) {
		t.Error("the same seed gave different output")
	}
	if slices.Equal(encode(other), encode(out)) {
		t.Error("seeds 42 and 43 gave the same tree assignment")
	}
}

func TestSynthesizeErrors(t *testing.T) {
	p := DefaultParams()
	p.SpeedupRatio = 2
	for _, tc := range []struct {
		name  string
		lines []string
		p     Params
		want  string
	}{
		{"input shorter than shared prefix",
			[]string{`{"input_length":1340,"hash_ids":[0,1,2]}`, `{"input_length":2000,"hash_ids":[0,1,2,3]}`}, p,
			"line 1: input_length 1340 is shorter than its 3 shared prefix blocks of 512 tokens (1536)"},
		{"bad speedup", []string{`{"input_length":1}`}, Params{SpeedupRatio: 0, PrefixLenMultiplier: 1, PromptLenMultiplier: 1, PrefixRootMultiplier: 1, BlockSize: 1},
			"--synthesis-speedup-ratio must be > 0 (got 0)"},
		{"absurd multiplier", []string{`{"input_length":10,"hash_ids":[1]}`, `{"input_length":10,"hash_ids":[1]}`},
			Params{SpeedupRatio: 1, PrefixLenMultiplier: 1e30, PromptLenMultiplier: 1, PrefixRootMultiplier: 1, BlockSize: 1},
			"line 1: the multipliers give a record of more than 16777216 blocks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Synthesize(parseAll(t, tc.lines...), tc.p, 0)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestParseErrorsNameLineAndField(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`[1,2]`, "test:2: not a JSON object"},
		{`{"input_length":"12"}`, `test:2: input_length: got "12", want an integer`},
		{`{"input_length":1.5}`, "test:2: input_length: got 1.5, want an integer"},
		{`{"hash_ids":[1,"x"]}`, `test:2: hash_ids[1]: got "x", want an integer`},
		{`{"hash_ids":{}}`, "test:2: hash_ids: got {}, want a list of integers"},
		{`{"timestamp":"now"}`, `test:2: timestamp: got "now", want a number`},
		{`{"session_id":3}`, "test:2: session_id: got 3, want a string"},
		{`{"a":1} {"b":2}`, "test:2: invalid JSON: more than one value on the line"},
		{`{"a":`, "test:2: invalid JSON"},
	} {
		_, err := Read(context.Background(), strings.NewReader("{\"input_length\":1}\n"+tc.line+"\n"), "test")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.line, err, tc.want)
		}
	}
}

func TestOptionsParams(t *testing.T) {
	p, err := Options{SpeedupRatio: ptr(3.0), MaxISL: ptr(5), PrefixRootMultiplier: ptr(2)}.Params(64)
	if err != nil {
		t.Fatal(err)
	}
	want := Params{SpeedupRatio: 3, PrefixLenMultiplier: 1, PrefixRootMultiplier: 2, PromptLenMultiplier: 1, OutputLenMultiplier: 1, MaxISL: 5, BlockSize: 64}
	if p != want {
		t.Errorf("got %+v, want %+v", p, want)
	}
	if !p.Transforms() || DefaultParams().Transforms() {
		t.Error("Transforms: want true for speedup 3 and false for the defaults")
	}
	limits := DefaultParams()
	limits.MaxISL, limits.MaxOSL = 10, 10
	if limits.Transforms() {
		t.Error("max_isl and max_osl alone must not run the synthesizer")
	}
	_, err = Options{MaxOSL: ptr(0), PromptLenMultiplier: ptr(-1.0), PrefixRootMultiplier: ptr(0)}.Params(512)
	for _, want := range []string{
		"--synthesis-max-osl must be >= 1 (got 0)",
		"--synthesis-prompt-len-multiplier must be > 0 (got -1)",
		"--synthesis-prefix-root-multiplier must be >= 1 (got 0)",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want it to contain %q", err, want)
		}
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	in := parseAll(t, `{"b":"<&>","a":[1, 2],"timestamp":3}`, `{"x":{"y" : null}}`)
	var buf bytes.Buffer
	if err := Write(&buf, in); err != nil {
		t.Fatal(err)
	}
	want := "{\"b\":\"<&>\",\"a\":[1,2],\"timestamp\":3}\n{\"x\":{\"y\":null}}\n"
	if buf.String() != want {
		t.Errorf("wrote %q, want %q", buf.String(), want)
	}
	back, err := Read(context.Background(), &buf, "buf")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(encode(back), encode(in)) || back[1].Line != 2 {
		t.Errorf("read back %v (line %d)", encode(back), back[1].Line)
	}
}
