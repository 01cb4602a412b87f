package synthetic

import (
	"reflect"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
)

func TestComposePrefixPromptsExactLengths(t *testing.T) {
	tok := tiktoken.New()
	opts := baseOpts()
	opts.NumEntries, opts.InputTokensMean, opts.InputTokensStddev = 30, 20, 0
	cfg := Config{SessionTurnsMean: 2, PromptBatchSize: 2, PrefixPromptPoolSize: 3, PrefixPromptLength: 16}
	c := New()
	c.Config = cfg
	tokens, err := CorpusTokens(tok)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := c.prefixPool(tok, tokens, opts.RandomSeed)
	if err != nil {
		t.Fatal(err)
	}
	texts := make([]string, len(pool))
	for i, ids := range pool {
		if len(ids) != 16 {
			t.Fatalf("prefix %d has %d tokens, want 16", i, len(ids))
		}
		texts[i] = tok.Decode(ids)
	}
	used := map[int]bool{}
	for i, conv := range composeWith(t, cfg, opts) {
		for j, turn := range conv.Turns {
			for k, p := range turn.Texts {
				want := 20
				if j == 0 {
					want = 36 // additive: prefix + ISL
					found := false
					for pi, pt := range texts {
						if strings.HasPrefix(p, pt) {
							found, used[pi] = true, true
						}
					}
					if !found {
						t.Errorf("conv %d prompt %d does not start with a pool prefix: %q", i, k, p)
					}
				}
				if got := tok.Count(p); got != want {
					t.Errorf("conv %d turn %d prompt %d: %d tokens, want %d", i, j, k, got, want)
				}
			}
		}
	}
	if len(used) != 3 {
		t.Errorf("prefixes used %v, want all 3 of the pool", used)
	}
	// Deterministic for the seed.
	a, b := composeWith(t, cfg, opts), composeWith(t, cfg, opts)
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed composed different datasets")
	}
}

func TestComposeSeqDist(t *testing.T) {
	tok := tiktoken.New()
	opts := baseOpts()
	opts.NumEntries = 2000
	cfg := Config{SequenceDistribution: []SeqDistPair{{ISL: 5, OSL: 3, Probability: 25}, {ISL: 9, OSL: 7, Probability: 75}}}
	counts := map[int]int{}
	for i, conv := range composeWith(t, cfg, opts) {
		turn := conv.Turns[0]
		isl := tok.Count(turn.Texts[0])
		counts[isl]++
		if turn.MaxTokens == nil || (isl == 5 && *turn.MaxTokens != 3) || (isl == 9 && *turn.MaxTokens != 7) {
			t.Fatalf("entry %d: isl %d with max_tokens %v, want the pair's OSL", i, isl, turn.MaxTokens)
		}
	}
	if counts[5]+counts[9] != 2000 {
		t.Fatalf("ISLs %v, want only 5 and 9 (--isl/--isl-stddev ignored)", counts)
	}
	if f := float64(counts[5]) / 2000; f < 0.21 || f > 0.29 {
		t.Errorf("pair 1 drawn %.3f of the time, want about 0.25", f)
	}
	if !reflect.DeepEqual(composeWith(t, cfg, opts)[:50], composeWith(t, cfg, opts)[:50]) {
		t.Error("same seed composed different datasets")
	}

	// Stddevs: lengths vary around the pair's means, prompts stay exact.
	opts.NumEntries = 300
	cfg.SequenceDistribution = []SeqDistPair{{ISL: 40, ISLStddev: 4, OSL: 20, OSLStddev: 3, Probability: 100}}
	var sum, osum float64
	distinct := map[int]bool{}
	for _, conv := range composeWith(t, cfg, opts) {
		n := tok.Count(conv.Turns[0].Texts[0])
		distinct[n] = true
		sum += float64(n)
		osum += float64(*conv.Turns[0].MaxTokens)
	}
	if m := sum / 300; m < 38 || m > 42 || len(distinct) < 5 {
		t.Errorf("ISL mean %.2f over %d distinct lengths, want about 40 and varied", m, len(distinct))
	}
	if m := osum / 300; m < 18.5 || m > 21.5 {
		t.Errorf("OSL mean %.2f, want about 20", m)
	}
}

func TestSeqDistAndPrefixValidation(t *testing.T) {
	for _, tt := range []struct {
		cfg  Config
		want string
	}{
		{Config{SequenceDistribution: []SeqDistPair{{ISL: 5, OSL: 3, Probability: 50}}}, "probabilities must sum to 100.0, got 50.000000"},
		{Config{SequenceDistribution: []SeqDistPair{{ISL: 0, OSL: 3, Probability: 100}}}, "sequence_distribution[0] (--seq-dist): isl 0, want a positive length"},
		{Config{SequenceDistribution: []SeqDistPair{{ISL: 2, OSL: 3, OSLStddev: -1, Probability: 100}}}, "osl_stddev -1"},
		{Config{PrefixPromptPoolSize: -1}, "prefix_prompt_pool_size -1 (--num-prefix-prompts)"},
		{Config{PrefixPromptLength: -2}, "prefix_prompt_length -2 (--prefix-prompt-length)"},
	} {
		c := New()
		c.Config = tt.cfg
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: got %v, want %q", tt.cfg, err, tt.want)
		}
	}
}
