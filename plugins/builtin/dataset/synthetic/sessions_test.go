package synthetic

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
)

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Single-turn settings must not change a byte of the dataset: the session
// knobs only matter once a conversation has more than one turn.
func TestSingleTurnSettingsLeaveOutputUnchanged(t *testing.T) {
	base := marshal(t, compose(t, baseOpts()))
	edits := map[string]func(*sdk.DatasetOptions){
		"turns mean 1":             func(o *sdk.DatasetOptions) { o.SessionTurnsMean = 1 },
		"turns stddev below 1":     func(o *sdk.DatasetOptions) { o.SessionTurnsMean, o.SessionTurnsStddev = 1, 0.9 },
		"delays with single turns": func(o *sdk.DatasetOptions) { o.TurnDelayMeanMs, o.TurnDelayStddevMs, o.TurnDelayRatio = 500, 50, 2 },
	}
	for name, edit := range edits {
		opts := baseOpts()
		edit(&opts)
		if got := marshal(t, compose(t, opts)); got != base {
			t.Errorf("%s: output differs from the default single-turn dataset", name)
		}
	}
}

func TestMultiTurnFixedShape(t *testing.T) {
	tok := tiktoken.New()
	opts := baseOpts()
	opts.NumEntries = 6
	opts.InputTokensMean, opts.InputTokensStddev = 30, 0
	opts.OutputTokensMean, opts.OutputTokensStddev = 12, 0
	opts.SessionTurnsMean = 3
	opts.TurnDelayMeanMs, opts.TurnDelayRatio = 250, 2
	convs := compose(t, opts)
	if len(convs) != 6 {
		t.Fatalf("got %d conversations, want 6", len(convs))
	}
	prompts := map[string]bool{}
	for i, c := range convs {
		if len(c.Turns) != 3 {
			t.Fatalf("conversation %d: %d turns, want 3", i, len(c.Turns))
		}
		for j, turn := range c.Turns {
			if n := tok.Count(turn.Texts[0]); n != 30 {
				t.Errorf("conv %d turn %d: prompt has %d tokens, want 30", i, j, n)
			}
			prompts[turn.Texts[0]] = true
			if turn.MaxTokens == nil || *turn.MaxTokens != 12 {
				t.Errorf("conv %d turn %d: max tokens %v, want 12", i, j, turn.MaxTokens)
			}
			switch {
			case j == 0 && turn.DelayMs != nil:
				t.Errorf("conv %d: first turn has delay %v, want none", i, *turn.DelayMs)
			case j > 0 && (turn.DelayMs == nil || *turn.DelayMs != 500):
				t.Errorf("conv %d turn %d: delay %v, want 250 ms × ratio 2 = 500", i, j, turn.DelayMs)
			}
		}
	}
	if len(prompts) != 18 {
		t.Errorf("%d distinct prompts over 18 turns, want each turn its own", len(prompts))
	}
}

func TestMultiTurnDistributions(t *testing.T) {
	opts := baseOpts()
	opts.NumEntries = 2000
	opts.InputTokensMean, opts.InputTokensStddev = 3, 0
	opts.OutputTokensMean = 0
	opts.SessionTurnsMean, opts.SessionTurnsStddev = 5, 2
	opts.TurnDelayMeanMs, opts.TurnDelayStddevMs, opts.TurnDelayRatio = 1000, 100, 0.5
	convs := compose(t, opts)

	var turns, delays []float64
	for i, c := range convs {
		if len(c.Turns) < 1 {
			t.Fatalf("conversation %d has no turns", i)
		}
		turns = append(turns, float64(len(c.Turns)))
		for _, turn := range c.Turns[1:] {
			delays = append(delays, *turn.DelayMs)
		}
	}
	// ceil(N(5, 2)) truncated at 0: mean ≈ 5.5, sd ≈ 2.0; 2000 samples give a
	// standard error of ≈ 0.045 on the mean.
	if m, sd := meanSD(turns); math.Abs(m-5.5) > 0.2 || math.Abs(sd-2.0) > 0.2 {
		t.Errorf("turns per conversation: mean %.3f sd %.3f, want ≈ 5.5 and ≈ 2.0", m, sd)
	}
	// ceil(N(1000, 100)) × 0.5: mean ≈ 500.25, sd ≈ 50.
	if m, sd := meanSD(delays); math.Abs(m-500.25) > 3 || math.Abs(sd-50) > 3 {
		t.Errorf("turn delays: mean %.2f sd %.2f over %d, want ≈ 500.25 and ≈ 50", m, sd, len(delays))
	}
}

func meanSD(xs []float64) (float64, float64) {
	var sum, sumSq float64
	for _, x := range xs {
		sum += x
		sumSq += x * x
	}
	n := float64(len(xs))
	m := sum / n
	return m, math.Sqrt(sumSq/n - m*m)
}

func TestMultiTurnDelayRules(t *testing.T) {
	cases := []struct {
		name            string
		mean, sd, ratio float64
		want            *float64
	}{
		{"no delay mean: no delays", 0, 0, 1, nil},
		{"sub-millisecond mean truncates to the 1 ms minimum", 0.5, 0, 1, ptr(1)},
		{"stddev truncated to 0", 40.7, 0.9, 1, ptr(40)},
		{"ratio 0 means unset (1)", 40, 0, 0, ptr(40)},
		{"ratio scales", 40, 0, 0.25, ptr(10)},
	}
	for _, c := range cases {
		opts := baseOpts()
		opts.NumEntries, opts.SessionTurnsMean = 3, 2
		opts.TurnDelayMeanMs, opts.TurnDelayStddevMs, opts.TurnDelayRatio = c.mean, c.sd, c.ratio
		for _, conv := range compose(t, opts) {
			got := conv.Turns[1].DelayMs
			if (got == nil) != (c.want == nil) || (got != nil && *got != *c.want) {
				t.Errorf("%s: delay %v, want %v", c.name, deref(got), deref(c.want))
			}
		}
	}
}

func ptr(f float64) *float64 { return &f }

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestMultiTurnModelsRoundRobinPerTurn(t *testing.T) {
	opts := baseOpts()
	opts.Models = []string{"a", "b"}
	opts.NumEntries, opts.SessionTurnsMean = 2, 3
	var got []string
	for _, c := range compose(t, opts) {
		for _, turn := range c.Turns {
			got = append(got, turn.Model)
		}
		got = append(got, "|")
	}
	if s := strings.Join(got, ","); s != "a,b,a,|,b,a,b,|" {
		t.Errorf("models = %s", s)
	}
}

func TestMultiTurnDeterminism(t *testing.T) {
	run := func(seed int64) string {
		opts := baseOpts()
		opts.RandomSeed = seed
		opts.SessionTurnsMean, opts.SessionTurnsStddev = 4, 2
		opts.TurnDelayMeanMs, opts.TurnDelayStddevMs = 300, 60
		return marshal(t, compose(t, opts))
	}
	first, again, other := run(9), run(9), run(10)
	if first != again {
		t.Fatal("same seed produced different multi-turn datasets")
	}
	if first == other {
		t.Fatal("different seeds produced the same multi-turn dataset")
	}
}

func TestMultiTurnBadOptions(t *testing.T) {
	cases := []struct {
		name string
		edit func(*sdk.DatasetOptions)
		want string
	}{
		{"negative turns", func(o *sdk.DatasetOptions) { o.SessionTurnsMean = -2 }, "SessionTurnsMean -2"},
		{"NaN turn stddev", func(o *sdk.DatasetOptions) { o.SessionTurnsStddev = math.NaN() }, "SessionTurnsStddev"},
		{"negative delay", func(o *sdk.DatasetOptions) { o.TurnDelayMeanMs = -1 }, "TurnDelayMeanMs -1"},
		{"infinite delay stddev", func(o *sdk.DatasetOptions) { o.TurnDelayStddevMs = math.Inf(1) }, "TurnDelayStddevMs"},
		{"negative ratio", func(o *sdk.DatasetOptions) { o.TurnDelayRatio = -0.5 }, "TurnDelayRatio -0.5"},
	}
	for _, c := range cases {
		opts := baseOpts()
		c.edit(&opts)
		_, err := New().Compose(t.Context(), opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", c.name, err, c.want)
		}
	}
}
