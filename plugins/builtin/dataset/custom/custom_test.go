package custom

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/customloader/mooncaketrace"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/customloader/multiturn"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/customloader/singleturn"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
)

// builtins is the priority order the lead is expected to register.
func builtins() []NamedLoader {
	return []NamedLoader{
		{Name: mooncaketrace.Name, Loader: mooncaketrace.New()},
		{Name: multiturn.Name, Loader: multiturn.New()},
		{Name: singleturn.Name, Loader: singleturn.New()},
	}
}

func writeFile(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "input.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func opts(path string) sdk.DatasetOptions {
	return sdk.DatasetOptions{InputFile: path, RandomSeed: 1, Tokenizer: tiktoken.New(), Models: []string{"m"}}
}

func TestAutoDetectsEachFormat(t *testing.T) {
	tok := tiktoken.New()
	cases := []struct {
		name  string
		lines []string
		check func([]sdk.Conversation) bool
	}{
		{"mooncake", []string{`{"timestamp": 0, "input_length": 600, "output_length": 9, "hash_ids": [1, 2]}`},
			func(c []sdk.Conversation) bool {
				return tok.Count(c[0].Turns[0].Texts[0]) == 600 && *c[0].Turns[0].MaxTokens == 9
			}},
		{"multi_turn", []string{`{"session_id": "s", "turns": [{"text": "a"}, {"text": "b", "delay": 5}]}`},
			func(c []sdk.Conversation) bool { return c[0].SessionID == "s" && len(c[0].Turns) == 2 }},
		{"single_turn", []string{`{"text": "hello"}`, `{"text": "world"}`},
			func(c []sdk.Conversation) bool { return len(c) == 2 && c[1].Turns[0].Texts[0] == "world" }},
		{"declared type wins over shape", []string{`{"type": "single_turn", "text": "x", "input_length": 3}`},
			func(c []sdk.Conversation) bool { return c[0].Turns[0].Texts[0] == "x" }},
	}
	for _, c := range cases {
		convs, err := withLoaders(Static(builtins()...)).Compose(context.Background(), opts(writeFile(t, c.lines...)))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !c.check(convs) {
			t.Errorf("%s: unexpected conversations %+v", c.name, convs)
		}
	}
}

func TestExplicitTypeSkipsDetection(t *testing.T) {
	path := writeFile(t, `{"text": "hello"}`)
	o := opts(path)
	o.CustomDatasetType = mooncaketrace.Name
	_, err := withLoaders(Static(builtins()...)).Compose(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "custom dataset (mooncake_trace): mooncake_trace: "+path+":1: no input") {
		t.Errorf("forcing mooncake_trace on a single_turn file: err = %v", err)
	}
	o.CustomDatasetType = singleturn.Name
	if convs, err := withLoaders(Static(builtins()...)).Compose(context.Background(), o); err != nil || convs[0].Turns[0].Texts[0] != "hello" {
		t.Errorf("explicit single_turn: %v, %v", convs, err)
	}
}

func TestComposeErrors(t *testing.T) {
	dir := t.TempDir()
	unknown := writeFile(t, `{"foo": 1}`)
	cases := []struct {
		name    string
		opts    sdk.DatasetOptions
		loaders func() ([]NamedLoader, error)
		want    string
	}{
		{"no file", opts(""), Static(builtins()...), "no input file (set --input-file)"},
		{"missing file", opts(filepath.Join(dir, "nope.jsonl")), Static(builtins()...), "nope.jsonl: no such file"},
		// An empty directory is no dataset any of these loaders recognizes.
		{"directory", opts(dir), Static(builtins()...), "cannot tell the format"},
		{"undetectable", opts(unknown), Static(builtins()...), "cannot tell the format of " + unknown + " from its first record; set --custom-dataset-type (one of: mooncake_trace, multi_turn, single_turn)"},
		{"unknown type", func() sdk.DatasetOptions { o := opts(unknown); o.CustomDatasetType = "random_pool"; return o }(), Static(builtins()...), `unknown --custom-dataset-type "random_pool"`},
		{"loader source fails", opts(unknown), func() ([]NamedLoader, error) { return nil, errors.New("plugin crashed") }, "loaders: plugin crashed"},
		{"no loaders", opts(unknown), nil, "no loaders configured"},
	}
	for _, c := range cases {
		_, err := (&Composer{Loaders: c.loaders}).Compose(context.Background(), c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", c.name, err, c.want)
		}
	}
}

func TestPriorityOrderDecidesOverlaps(t *testing.T) {
	path := writeFile(t, `{"text": "x"}`)
	first := NamedLoader{Name: "greedy", Loader: stubLoader{name: "greedy"}}
	convs, err := withLoaders(Static(first, NamedLoader{Name: singleturn.Name, Loader: singleturn.New()})).Compose(context.Background(), opts(path))
	if err != nil || convs[0].SessionID != "greedy" {
		t.Errorf("the first loader that can load must win: %v, %v", convs, err)
	}
}

// stubLoader accepts every file and returns one conversation named after it.
type stubLoader struct{ name string }

func (stubLoader) CanLoad(string) bool { return true }
func (s stubLoader) Load(context.Context, string, sdk.DatasetOptions) ([]sdk.Conversation, error) {
	return []sdk.Conversation{{SessionID: s.name, Turns: []sdk.Turn{{Texts: []string{"t"}}}}}, nil
}

func TestModelsRoundRobinOverTurns(t *testing.T) {
	path := writeFile(t,
		`{"session_id": "a", "turns": [{"text": "1"}, {"text": "2"}]}`,
		`{"session_id": "b", "turns": [{"text": "3"}]}`,
	)
	o := opts(path)
	o.Models = []string{"x", "y"}
	convs, err := withLoaders(Static(builtins()...)).Compose(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range convs {
		for _, tr := range c.Turns {
			got = append(got, tr.Model)
		}
	}
	if strings.Join(got, ",") != "x,y,x" {
		t.Errorf("models = %v, want x,y,x", got)
	}
	o.Models = []string{"only"}
	convs, _ = withLoaders(Static(builtins()...)).Compose(context.Background(), o)
	if convs[0].Turns[0].Model != "" {
		t.Error("with one model the turn model stays empty for the engine to fill")
	}
}

func withLoaders(src func() ([]NamedLoader, error)) *Composer {
	c := New()
	c.UseLoaders(src)
	return c
}
