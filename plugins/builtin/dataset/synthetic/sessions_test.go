package synthetic

import (
	"encoding/json"
	"math"
	"reflect"
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
	edits := map[string]func(*Config, *sdk.DatasetOptions){
		"turns mean 1":         func(c *Config, _ *sdk.DatasetOptions) { c.SessionTurnsMean = 1 },
		"turns stddev below 1": func(c *Config, _ *sdk.DatasetOptions) { c.SessionTurnsMean, c.SessionTurnsStddev = 1, 0.9 },
		"delays with single turns": func(c *Config, o *sdk.DatasetOptions) {
			c.TurnDelayMeanMs, c.TurnDelayStddevMs, o.TurnDelayRatio = 500, 50, 2
		},
	}
	for name, edit := range edits {
		var cfg Config
		opts := baseOpts()
		edit(&cfg, &opts)
		if got := marshal(t, composeWith(t, cfg, opts)); got != base {
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
	opts.TurnDelayRatio = 2
	convs := composeWith(t, Config{SessionTurnsMean: 3, TurnDelayMeanMs: 250}, opts)
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
	opts.TurnDelayRatio = 0.5
	convs := composeWith(t, Config{SessionTurnsMean: 5, SessionTurnsStddev: 2, TurnDelayMeanMs: 1000, TurnDelayStddevMs: 100}, opts)

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
		opts.NumEntries, opts.TurnDelayRatio = 3, c.ratio
		cfg := Config{SessionTurnsMean: 2, TurnDelayMeanMs: c.mean, TurnDelayStddevMs: c.sd}
		for _, conv := range composeWith(t, cfg, opts) {
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
	opts.NumEntries = 2
	var got []string
	for _, c := range composeWith(t, Config{SessionTurnsMean: 3}, opts) {
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
		cfg := Config{SessionTurnsMean: 4, SessionTurnsStddev: 2, TurnDelayMeanMs: 300, TurnDelayStddevMs: 60}
		return marshal(t, composeWith(t, cfg, opts))
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
		edit func(*Config)
		want string
	}{
		{"negative turns", func(c *Config) { c.SessionTurnsMean = -2 }, "session_turns_mean -2 (--session-turns-mean)"},
		{"NaN turn stddev", func(c *Config) { c.SessionTurnsStddev = math.NaN() }, "session_turns_stddev NaN (--session-turns-stddev)"},
		{"negative delay", func(c *Config) { c.TurnDelayMeanMs = -1 }, "turn_delay_mean_ms -1 (--session-turn-delay-mean)"},
		{"infinite delay stddev", func(c *Config) { c.TurnDelayStddevMs = math.Inf(1) }, "turn_delay_stddev_ms +Inf (--session-turn-delay-stddev)"},
	}
	for _, c := range cases {
		comp := New()
		c.edit(&comp.Config)
		if err := comp.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate() = %v, want it to mention %q", c.name, err, c.want)
		}
		// Compose checks the settings too, for callers that skip Validate.
		if _, err := comp.Compose(t.Context(), baseOpts()); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Compose err = %v, want it to mention %q", c.name, err, c.want)
		}
	}
	if err := New().Validate(); err != nil {
		t.Errorf("zero settings (single-turn): Validate() = %v", err)
	}
	// The delay ratio is a dataset option (it scales file delays too).
	opts := baseOpts()
	opts.TurnDelayRatio = -0.5
	if _, err := New().Compose(t.Context(), opts); err == nil || !strings.Contains(err.Error(), "TurnDelayRatio -0.5") {
		t.Errorf("negative ratio: err = %v, want it to mention %q", err, "TurnDelayRatio -0.5")
	}
}

// The session shape is the composer's own settings, decoded by the SDK's
// rule from the keys the core sets from AIPerf's --session-* flags.
func TestSessionSettings(t *testing.T) {
	const label = "dataset_composer.synthetic"
	c := New()
	settings := `{"session_turns_mean": 4, "session_turns_stddev": 2, "turn_delay_mean_ms": 300, "turn_delay_stddev_ms": 60}`
	if err := sdk.ApplyConfig(c, label, []byte(settings)); err != nil {
		t.Fatal(err)
	}
	want := Config{SessionTurnsMean: 4, SessionTurnsStddev: 2, TurnDelayMeanMs: 300, TurnDelayStddevMs: 60}
	if !reflect.DeepEqual(c.Config, want) {
		t.Fatalf("decoded %+v, want %+v", c.Config, want)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	got, err := c.Compose(t.Context(), baseOpts())
	if err != nil {
		t.Fatal(err)
	}
	if marshal(t, got) != marshal(t, composeWith(t, want, baseOpts())) {
		t.Error("settings decoded from JSON must compose the same dataset as the same Config")
	}

	bad := New()
	if err := sdk.ApplyConfig(bad, label, []byte(`{"turn_delay_mean_ms": -5}`)); err != nil {
		t.Fatal(err)
	}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "--session-turn-delay-mean") {
		t.Errorf("negative turn_delay_mean_ms: Validate() = %v, want it to name --session-turn-delay-mean", err)
	}
	for _, in := range []string{`{"session_turns": 3}`, `{"SessionTurnsMean": 3, "turn_delay_ratio": 1}`} {
		err := sdk.ApplyConfig(New(), label, []byte(in))
		if err == nil || !strings.Contains(err.Error(), "unknown setting") {
			t.Errorf("%s: err = %v, want an unknown setting refused (the host names the plugin)", in, err)
		}
	}
	if err := sdk.ApplyConfig(New(), label, []byte(`{"session_turns_mean": 2.5}`)); err == nil || !strings.Contains(err.Error(), "session_turns_mean") {
		t.Errorf("fractional session_turns_mean: err = %v", err)
	}
}
