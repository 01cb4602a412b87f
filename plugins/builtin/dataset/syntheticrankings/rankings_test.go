package syntheticrankings

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
)

func opts(n int) sdk.DatasetOptions {
	return sdk.DatasetOptions{Models: []string{"m"}, NumEntries: n, InputTokensMean: 550, RandomSeed: 1, Tokenizer: tiktoken.New()}
}

func compose(t *testing.T, cfg Config, o sdk.DatasetOptions) []sdk.Conversation {
	t.Helper()
	c := New()
	c.Config = cfg
	convs, err := c.Compose(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return convs
}

// counts returns the token counts of a turn's query and passages.
func counts(t *testing.T, turn sdk.Turn) (int, []int) {
	t.Helper()
	tok := tiktoken.New()
	if len(turn.TextGroups) != 2 || turn.TextGroups[0].Name != "query" || turn.TextGroups[1].Name != "passages" || turn.Texts != nil {
		t.Fatalf("turn groups %+v, texts %q: want query then passages, no plain texts", turn.TextGroups, turn.Texts)
	}
	q := turn.Group(sdk.TextGroupQuery)
	if len(q) != 1 {
		t.Fatalf("%d queries, want 1", len(q))
	}
	var ps []int
	for _, p := range turn.Group(sdk.TextGroupPassages) {
		ps = append(ps, tok.Count(p))
	}
	return tok.Count(q[0]), ps
}

// AIPerf 0.13's real defaults (captured rankings_defaults): 10 passages of
// exactly 128 tokens and a 32-token query, whatever --isl says.
func TestComposeDefaults(t *testing.T) {
	convs := compose(t, Config{}, opts(3))
	if len(convs) != 3 {
		t.Fatalf("%d conversations, want 3", len(convs))
	}
	for i, c := range convs {
		if len(c.Turns) != 1 {
			t.Fatalf("entry %d: %d turns, want 1", i, len(c.Turns))
		}
		q, ps := counts(t, c.Turns[0])
		if q != 32 || len(ps) != 10 {
			t.Errorf("entry %d: query %d tokens, %d passages; want 32 and 10", i, q, len(ps))
		}
		for j, n := range ps {
			if n != 128 {
				t.Errorf("entry %d passage %d: %d tokens, want 128", i, j, n)
			}
		}
	}
}

func TestComposeFixedShape(t *testing.T) {
	cfg := Config{PassagesMean: 3, PassageTokensMean: 8, QueryTokensMean: 6}
	for i, c := range compose(t, cfg, opts(4)) {
		q, ps := counts(t, c.Turns[0])
		if q != 6 || !reflect.DeepEqual(ps, []int{8, 8, 8}) {
			t.Errorf("entry %d: query %d, passages %v; want 6 and [8 8 8]", i, q, ps)
		}
	}
}

// With stddevs the passage count and lengths vary around their means,
// every value at least 1 (AIPerf's positive normal integers).
func TestComposeDistributions(t *testing.T) {
	cfg := Config{PassagesMean: 3, PassagesStddev: 1, PassageTokensMean: 8, PassageTokensStddev: 2, QueryTokensMean: 6}
	convs := compose(t, cfg, opts(300))
	nPassages, lengths := map[int]int{}, map[int]int{}
	sum, total := 0, 0
	for _, c := range convs {
		q, ps := counts(t, c.Turns[0])
		if q != 6 {
			t.Fatalf("query %d tokens, want 6 (stddev 0)", q)
		}
		nPassages[len(ps)]++
		for _, n := range ps {
			lengths[n]++
			sum += n
			total++
		}
	}
	if len(nPassages) < 3 || len(lengths) < 5 {
		t.Errorf("passage counts %v, lengths %v: want a spread", nPassages, lengths)
	}
	if _, ok := nPassages[0]; ok {
		t.Error("an entry has no passages")
	}
	// ceil of a normal adds about 0.5 to the mean.
	if mean := float64(sum) / float64(total); math.Abs(mean-8.5) > 0.5 {
		t.Errorf("mean passage length %.2f, want about 8.5", mean)
	}
}

// Deterministic from the seed; -b and --isl do not change anything.
func TestComposeDeterministic(t *testing.T) {
	cfg := Config{PassagesMean: 3, PassagesStddev: 1, PassageTokensMean: 8, PassageTokensStddev: 2, QueryTokensMean: 6}
	enc := func(o sdk.DatasetOptions) string {
		b, err := json.Marshal(compose(t, cfg, o))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	a := enc(opts(5))
	if b := enc(opts(5)); a != b {
		t.Fatal("same seed, different datasets")
	}
	o := opts(5)
	o.InputTokensMean, o.InputTokensStddev = 8, 3
	if enc(o) != a {
		t.Error("--isl changed the rankings dataset")
	}
	o = opts(5)
	o.RandomSeed = 2
	if enc(o) == a {
		t.Error("another seed gave the same dataset")
	}
}

func TestComposeModelsAndOSL(t *testing.T) {
	o := opts(4)
	o.Models = []string{"a", "b"}
	o.OutputTokensMean = 5
	var got []string
	for _, c := range compose(t, Config{PassagesMean: 1, PassageTokensMean: 4, QueryTokensMean: 4}, o) {
		got = append(got, c.Turns[0].Model)
		if mt := c.Turns[0].MaxTokens; mt == nil || *mt != 5 {
			t.Errorf("max tokens %v, want 5", mt)
		}
	}
	if strings.Join(got, ",") != "a,b,a,b" {
		t.Errorf("models %v, want round robin", got)
	}
}

// The settings decode from the keys the core sets from the --rankings-*
// flags (config.RankingsSettings).
func TestSettingsDecode(t *testing.T) {
	c := New()
	in := `{"passages_mean": 3, "passages_stddev": 1, "passage_tokens_mean": 8, "passage_tokens_stddev": 2, "query_tokens_mean": 6, "query_tokens_stddev": 0}`
	if err := sdk.ApplyConfig(c, "dataset_composer."+Name, []byte(in)); err != nil {
		t.Fatal(err)
	}
	want := Config{PassagesMean: 3, PassagesStddev: 1, PassageTokensMean: 8, PassageTokensStddev: 2, QueryTokensMean: 6}
	if c.Config != want {
		t.Errorf("decoded %+v, want %+v", c.Config, want)
	}
	if err := sdk.ApplyConfig(New(), "dataset_composer."+Name, []byte(`{"passages": 3}`)); err == nil {
		t.Error("an unknown key was accepted")
	}
}

func TestInvalid(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		o    func(*sdk.DatasetOptions)
		want string
	}{
		{Config{PassagesMean: -1}, nil, "passages_mean -1 (--rankings-passages-mean)"},
		{Config{QueryTokensStddev: math.NaN()}, nil, "query_tokens_stddev NaN (--rankings-query-prompt-token-stddev)"},
		{Config{PassageTokensMean: 0.5}, nil, "passage_tokens_mean 0.5 (--rankings-passages-prompt-token-mean), want at least 1"},
		{Config{}, func(o *sdk.DatasetOptions) { o.NumEntries = 0 }, "NumEntries 0"},
		{Config{}, func(o *sdk.DatasetOptions) { o.Tokenizer = nil }, "no Tokenizer"},
	} {
		o := opts(1)
		if c.o != nil {
			c.o(&o)
		}
		comp := New()
		comp.Config = c.cfg
		if _, err := comp.Compose(context.Background(), o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want it to mention %q", c.cfg, err, c.want)
		}
	}
}

func TestComposeCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New().Compose(ctx, opts(2)); err == nil || !strings.Contains(err.Error(), "cancelled") {
		t.Errorf("err = %v, want cancellation", err)
	}
}
