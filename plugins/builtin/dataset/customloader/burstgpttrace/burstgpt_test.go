package burstgpttrace

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

const fixture = "testdata/burstgpt_excerpt.csv"

const header = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type"

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

func TestFixture(t *testing.T) {
	l := New()
	l.Warn = func(msg string) { t.Errorf("unexpected warning: %s", msg) }
	convs, err := l.Load(context.Background(), fixture, opts())
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		tsMs     float64
		isl, osl int
	}{{5000, 472, 18}, {45000, 1087, 0}, {118000, 417, 217}, {118000, 1360, 1113}, {152500, 20, 25}}
	if len(convs) != len(want) {
		t.Fatalf("%d conversations, want %d", len(convs), len(want))
	}
	tok := tiktoken.New()
	seen := map[string]bool{}
	for i, w := range want {
		c := convs[i]
		if len(c.Turns) != 1 || c.SessionID == "" || seen[c.SessionID] {
			t.Fatalf("row %d: want one turn in its own session, got %d turns, session %q", i+1, len(c.Turns), c.SessionID)
		}
		seen[c.SessionID] = true
		tr := c.Turns[0]
		if n := tok.Count(tr.Texts[0]); n != w.isl {
			t.Errorf("row %d: prompt of %d tokens, want %d", i+1, n, w.isl)
		}
		if tr.MaxTokens == nil || *tr.MaxTokens != w.osl {
			t.Errorf("row %d: max tokens %v, want %d", i+1, tr.MaxTokens, w.osl)
		}
		if tr.TimestampMs == nil || math.Abs(*tr.TimestampMs-w.tsMs) > 1e-9 {
			t.Errorf("row %d: timestamp %v ms, want %v", i+1, tr.TimestampMs, w.tsMs)
		}
	}
	again, err := New().Load(context.Background(), fixture, opts())
	if err != nil {
		t.Fatal(err)
	}
	if again[0].SessionID != convs[0].SessionID || again[2].Turns[0].Texts[0] != convs[2].Turns[0].Texts[0] {
		t.Error("the same seed must give the same sessions and prompts")
	}
}

// Only the three required columns count, in any order; quoted fields are
// CSV as usual.
func TestColumnOrderAndQuoting(t *testing.T) {
	path := writeFile(t, "reordered.csv",
		`Response tokens,Log Type,Request tokens,Timestamp`,
		`7,"API log, retried",12, 3.25 `,
	)
	convs, err := New().Load(context.Background(), path, opts())
	if err != nil {
		t.Fatal(err)
	}
	tr := convs[0].Turns[0]
	if *tr.TimestampMs != 3250 || *tr.MaxTokens != 7 || tiktoken.New().Count(tr.Texts[0]) != 12 {
		t.Errorf("turn = %+v", tr)
	}
}

// Bad rows are skipped, as in AIPerf, and each is reported naming the file,
// the line and the column.
func TestMalformedRowsAreSkippedAndNamed(t *testing.T) {
	path := writeFile(t, "bad.csv", header,
		`1,ChatGPT,10,5,15,Conversation log`,
		`2,ChatGPT,ten,5,15,Conversation log`,
		`3,ChatGPT,10,,10,Conversation log`,
		`x,ChatGPT,10,5,15,Conversation log`,
		`4,ChatGPT,0,5,5,Conversation log`,
		`5,ChatGPT,10,-2,8,Conversation log`,
		`6,ChatGPT`,
		`nan,ChatGPT,10,5,15,Conversation log`,
		`7,GPT-4,11,6,17,API log`,
	)
	var warns []string
	l := New()
	l.Warn = func(msg string) { warns = append(warns, msg) }
	convs, err := l.Load(context.Background(), path, opts())
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 2 || *convs[1].Turns[0].TimestampMs != 7000 {
		t.Fatalf("%d conversations, want the 2 good rows", len(convs))
	}
	want := []string{
		`bad.csv:3: Request tokens: "ten" is not an integer`,
		`bad.csv:4: Response tokens: "" is not an integer`,
		`bad.csv:5: Timestamp: "x" is not a number`,
		`bad.csv:6: Request tokens: 0, want at least 1`,
		`bad.csv:7: Response tokens: -2, want at least 0`,
		`bad.csv:8: Request tokens: missing (the row has 2 fields)`,
		`bad.csv:9: Timestamp: "nan"`,
	}
	if len(warns) != len(want) {
		t.Fatalf("warnings %q", warns)
	}
	for i, w := range want {
		if !strings.Contains(warns[i], w) {
			t.Errorf("warning %d = %q, want it to contain %q", i, warns[i], w)
		}
	}
}

func TestFileErrors(t *testing.T) {
	cases := []struct {
		name    string
		content []string
		want    string
	}{
		{"missing.csv", []string{"Timestamp,Model,Request tokens,Total tokens", "1,a,2,3"}, `missing.csv:1: missing required columns ["Response tokens"]`},
		{"empty.csv", []string{""}, "empty.csv: empty file"},
		{"none.csv", []string{header, "x,ChatGPT,1,1,2,API log"}, "none.csv: no usable rows (1 skipped)"},
	}
	for _, c := range cases {
		_, err := New().Load(context.Background(), writeFile(t, c.name, c.content...), opts())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := New().Load(context.Background(), fixture, sdk.DatasetOptions{}); err == nil || !strings.Contains(err.Error(), "burstgpt_excerpt.csv:2: input_length: building prompts needs a tokenizer") {
		t.Errorf("no tokenizer: %v", err)
	}
}

func TestCanLoad(t *testing.T) {
	if !New().CanLoad(fixture) {
		t.Error("the BurstGPT excerpt must be detected")
	}
	cases := []struct {
		first string
		want  bool
	}{
		{"Request tokens,Response tokens,Timestamp", true},
		{"Timestamp,Model,Request tokens,Total tokens,Log Type", false},
		{"timestamp,request tokens,response tokens", false},
		{`{"timestamp": 0, "input_length": 10, "output_length": 4}`, false},
		{"", false},
	}
	for _, c := range cases {
		if got := New().CanLoad(writeFile(t, "f.csv", c.first, "1,2,3")); got != c.want {
			t.Errorf("CanLoad(%q) = %v, want %v", c.first, got, c.want)
		}
	}
	if New().CanLoad(filepath.Join(t.TempDir(), "missing")) {
		t.Error("missing file")
	}
}
