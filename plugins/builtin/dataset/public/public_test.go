package public

import (
	"context"
	"errors"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

type fakeLoader struct {
	convs []sdk.Conversation
	err   error
}

func (f fakeLoader) LoadPublic(context.Context, sdk.DatasetOptions) ([]sdk.Conversation, error) {
	return f.convs, f.err
}

func composer(l sdk.PublicDatasetLoader, err error) *Composer {
	c := New()
	c.UsePublicLoader("sharegpt", func() (sdk.PublicDatasetLoader, error) { return l, err })
	return c
}

func TestFinalizeFillsMaxTokensAndModels(t *testing.T) {
	seven := 7
	convs := []sdk.Conversation{
		{SessionID: "a", Turns: []sdk.Turn{{Texts: []string{"x"}, MaxTokens: &seven}, {Texts: []string{"y"}}}},
		{SessionID: "b", Turns: []sdk.Turn{{Texts: []string{"z"}, Model: "pinned"}}},
	}
	got, err := composer(fakeLoader{convs: convs}, nil).Compose(context.Background(),
		sdk.DatasetOptions{OutputTokensMean: 50, Models: []string{"m1", "m2"}, RandomSeed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t0, t1, t2 := got[0].Turns[0], got[0].Turns[1], got[1].Turns[0]
	if *t0.MaxTokens != 7 || t1.MaxTokens == nil || *t1.MaxTokens != 50 || *t2.MaxTokens != 50 {
		t.Errorf("max_tokens %v %v %v: want the dataset's 7 kept and --osl 50 (stddev 0) elsewhere", *t0.MaxTokens, t1.MaxTokens, t2.MaxTokens)
	}
	if t0.Model != "m1" || t1.Model != "m2" || t2.Model != "pinned" {
		t.Errorf("models %q %q %q, want m1 m2 and the pinned one", t0.Model, t1.Model, t2.Model)
	}

	plain := []sdk.Conversation{{Turns: []sdk.Turn{{Texts: []string{"x"}}}}}
	Finalize(plain, sdk.DatasetOptions{Models: []string{"only"}})
	if plain[0].Turns[0].MaxTokens != nil || plain[0].Turns[0].Model != "" {
		t.Errorf("without --osl and with one model the turn is left alone: %+v", plain[0].Turns[0])
	}
}

func TestFinalizeDrawsFromTheOutputDistribution(t *testing.T) {
	convs := make([]sdk.Conversation, 200)
	for i := range convs {
		convs[i].Turns = []sdk.Turn{{Texts: []string{"x"}}}
	}
	Finalize(convs, sdk.DatasetOptions{OutputTokensMean: 100, OutputTokensStddev: 10.9, RandomSeed: 5})
	distinct := map[int]bool{}
	for _, c := range convs {
		n := *c.Turns[0].MaxTokens
		if n < 1 {
			t.Fatalf("max_tokens %d < 1", n)
		}
		distinct[n] = true
	}
	if len(distinct) < 10 {
		t.Errorf("%d distinct draws from N(100, 10): not sampled", len(distinct))
	}
}

func TestComposeErrors(t *testing.T) {
	cases := []struct {
		c    *Composer
		want string
	}{
		{New(), "no dataset selected (set --public-dataset)"},
		{composer(nil, errors.New("no such plugin")), "public dataset sharegpt: no such plugin"},
		{composer(fakeLoader{err: errors.New("download failed")}, nil), "public dataset sharegpt: download failed"},
		{composer(fakeLoader{}, nil), "public dataset sharegpt: no conversation passed the loader's checks; nothing to send"},
	}
	for _, tc := range cases {
		if _, err := tc.c.Compose(context.Background(), sdk.DatasetOptions{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err = %v, want %q", err, tc.want)
		}
	}
}
