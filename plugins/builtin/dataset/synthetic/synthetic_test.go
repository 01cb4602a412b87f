package synthetic

import (
	"context"
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/internal/sample"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
)

func baseOpts() sdk.DatasetOptions {
	return sdk.DatasetOptions{
		Models:             []string{"m"},
		NumEntries:         20,
		InputTokensMean:    100,
		InputTokensStddev:  10,
		OutputTokensMean:   50,
		OutputTokensStddev: 5,
		RandomSeed:         42,
		Tokenizer:          tiktoken.New(),
	}
}

func compose(t *testing.T, opts sdk.DatasetOptions) []sdk.Conversation {
	t.Helper()
	return composeWith(t, Config{}, opts)
}

// composeWith composes with the composer's own settings set to cfg.
func composeWith(t *testing.T, cfg Config, opts sdk.DatasetOptions) []sdk.Conversation {
	t.Helper()
	c := New()
	c.Config = cfg
	convs, err := c.Compose(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return convs
}

func TestComposeExactISL(t *testing.T) {
	tok := tiktoken.New()
	for _, isl := range []int{1, 2, 7, 100, 550, 3000} {
		opts := baseOpts()
		opts.NumEntries = 8
		opts.InputTokensMean, opts.InputTokensStddev = isl, 0
		for i, c := range compose(t, opts) {
			if got := tok.Count(c.Turns[0].Texts[0]); got != isl {
				t.Errorf("isl=%d entry %d: prompt has %d tokens", isl, i, got)
			}
		}
	}
}

func TestComposeISLWithStddev(t *testing.T) {
	tok := tiktoken.New()
	opts := baseOpts()
	opts.NumEntries = 300
	opts.InputTokensMean, opts.InputTokensStddev = 200, 40
	convs := compose(t, opts)
	lengths := map[int]bool{}
	sum := 0
	for i, c := range convs {
		n := tok.Count(c.Turns[0].Texts[0])
		if n < 1 {
			t.Fatalf("entry %d: empty prompt", i)
		}
		lengths[n] = true
		sum += n
	}
	// ceil of a normal adds 0.5 on average; 300 samples of sd 40 give a
	// standard error of about 2.3, so ±10 is a wide bound.
	if mean := float64(sum) / float64(len(convs)); math.Abs(mean-200.5) > 10 {
		t.Errorf("mean ISL %.1f, want about 200.5", mean)
	}
	if len(lengths) < 50 {
		t.Errorf("only %d distinct lengths, want a spread", len(lengths))
	}
}

func TestComposeOSLDistribution(t *testing.T) {
	opts := baseOpts()
	opts.NumEntries = 2000
	opts.InputTokensMean, opts.InputTokensStddev = 5, 0
	opts.OutputTokensMean, opts.OutputTokensStddev = 100, 10
	convs := compose(t, opts)
	var sum, sumSq float64
	for i, c := range convs {
		mt := c.Turns[0].MaxTokens
		if mt == nil || *mt < 1 {
			t.Fatalf("entry %d: max tokens %v", i, mt)
		}
		x := float64(*mt)
		sum += x
		sumSq += x * x
	}
	n := float64(len(convs))
	mean := sum / n
	sd := math.Sqrt(sumSq/n - mean*mean)
	if math.Abs(mean-100.5) > 1.5 {
		t.Errorf("OSL mean %.2f, want about 100.5", mean)
	}
	if math.Abs(sd-10) > 1.5 {
		t.Errorf("OSL stddev %.2f, want about 10", sd)
	}
}

func TestComposeOSLFixedAndAbsent(t *testing.T) {
	opts := baseOpts()
	opts.OutputTokensMean, opts.OutputTokensStddev = 64, 0
	for _, c := range compose(t, opts) {
		if mt := c.Turns[0].MaxTokens; mt == nil || *mt != 64 {
			t.Fatalf("max tokens %v, want 64", mt)
		}
	}
	opts.OutputTokensMean = 0
	for _, c := range compose(t, opts) {
		if c.Turns[0].MaxTokens != nil {
			t.Fatalf("max tokens %d, want nil without an OSL", *c.Turns[0].MaxTokens)
		}
	}
}

func TestComposeShape(t *testing.T) {
	opts := baseOpts()
	opts.NumEntries = 37
	convs := compose(t, opts)
	if len(convs) != 37 {
		t.Fatalf("got %d conversations, want 37", len(convs))
	}
	uuidRE := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for i, c := range convs {
		if !uuidRE.MatchString(c.SessionID) || seen[c.SessionID] {
			t.Errorf("entry %d: session id %q is not a fresh UUIDv4", i, c.SessionID)
		}
		seen[c.SessionID] = true
		if len(c.Turns) != 1 || len(c.Turns[0].Texts) != 1 || c.Turns[0].Model != "" || c.Turns[0].Role != "" {
			t.Errorf("entry %d: unexpected turn shape %+v", i, c.Turns)
		}
	}
}

func TestComposeRoundRobinModels(t *testing.T) {
	opts := baseOpts()
	opts.Models = []string{"a", "b", "c"}
	opts.NumEntries = 7
	var got []string
	for _, c := range compose(t, opts) {
		got = append(got, c.Turns[0].Model)
	}
	if s := strings.Join(got, ","); s != "a,b,c,a,b,c,a" {
		t.Errorf("models = %s", s)
	}
}

func TestComposeDeterminism(t *testing.T) {
	marshal := func(seed int64) string {
		opts := baseOpts()
		opts.RandomSeed = seed
		b, err := json.Marshal(compose(t, opts))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	a, b := marshal(42), marshal(42)
	if a != b {
		t.Fatal("same seed produced different datasets")
	}
	if c := marshal(43); c == a {
		t.Fatal("different seeds produced the same dataset")
	}
	if z1, z2 := marshal(0), marshal(0); z1 != z2 || z1 == a {
		t.Fatal("seed 0 must be an ordinary, reproducible seed")
	}
}

func TestComposeBadOptions(t *testing.T) {
	cases := []struct {
		name string
		edit func(*sdk.DatasetOptions)
		want string
	}{
		{"zero entries", func(o *sdk.DatasetOptions) { o.NumEntries = 0 }, "NumEntries 0"},
		{"negative entries", func(o *sdk.DatasetOptions) { o.NumEntries = -3 }, "NumEntries -3"},
		{"negative ISL mean", func(o *sdk.DatasetOptions) { o.InputTokensMean = -1 }, "InputTokensMean -1"},
		{"negative OSL mean", func(o *sdk.DatasetOptions) { o.OutputTokensMean = -5 }, "OutputTokensMean -5"},
		{"negative ISL stddev", func(o *sdk.DatasetOptions) { o.InputTokensStddev = -1 }, "InputTokensStddev"},
		{"NaN OSL stddev", func(o *sdk.DatasetOptions) { o.OutputTokensStddev = math.NaN() }, "OutputTokensStddev"},
		{"no tokenizer", func(o *sdk.DatasetOptions) { o.Tokenizer = nil }, "no Tokenizer"},
	}
	for _, c := range cases {
		opts := baseOpts()
		c.edit(&opts)
		_, err := New().Compose(context.Background(), opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", c.name, err, c.want)
		}
	}
}

func TestComposeCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := New().Compose(ctx, baseOpts())
	if err == nil || !strings.Contains(err.Error(), "cancelled") {
		t.Fatalf("err = %v, want cancellation", err)
	}
}

func TestPositiveNormalInt(t *testing.T) {
	r := sample.NewStream(1, "t")
	cases := []struct {
		mean, sd float64
		want     int
	}{{550, 0, 550}, {0, 0, 1}, {2.5, 0, 2}, {3.5, 0, 4}, {-4, 0, 1}}
	for _, c := range cases {
		if got := sample.PositiveNormalInt(r, c.mean, c.sd); got != c.want {
			t.Errorf("sample.PositiveNormalInt(%v, %v) = %d, want %d", c.mean, c.sd, got, c.want)
		}
	}
	for range 1000 {
		if got := sample.PositiveNormalInt(r, 1, 50); got < 1 {
			t.Fatalf("got %d, want >= 1", got)
		}
	}
}

func BenchmarkCompose1000(b *testing.B) {
	opts := baseOpts()
	opts.NumEntries = 1000
	opts.InputTokensMean, opts.InputTokensStddev = 550, 0
	if _, err := New().Compose(context.Background(), opts); err != nil { // warm the corpus cache
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New().Compose(context.Background(), opts); err != nil {
			b.Fatal(err)
		}
	}
}
