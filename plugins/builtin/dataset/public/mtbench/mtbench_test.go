package mtbench

import (
	"context"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/hubtest"
	"github.com/aiperf-go/aiperf/plugins/builtin/internal/hfhub"
)

// Values checked against AIPerf 0.13's MTBenchDatasetLoader on the same
// fixture file (README.md).
func TestRowsBecomeMultiTurnConversations(t *testing.T) {
	hub := hubtest.New(t, "../testdata/hub")
	l := New()
	l.Hub = &hfhub.Options{Endpoint: hub.URL(), CacheDir: t.TempDir()}
	if err := sdk.ApplyConfig(l, "x", []byte(`{"hf_dataset_name": "HuggingFaceH4/mt_bench_prompts", "hf_split": "train"}`)); err != nil {
		t.Fatal(err)
	}
	convs, err := l.LoadPublic(context.Background(), sdk.DatasetOptions{RandomSeed: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"Compose an engaging travel blog post about a recent trip to Hawaii.", "Rewrite your previous response. Start every sentence with the letter A."},
		{"Suppose you are a mathematician and poet. Write a proof that there are infinitely many primes."},
	}
	if len(convs) != len(want) {
		t.Fatalf("%d conversations, want %d (the blank row skipped)", len(convs), len(want))
	}
	for i, w := range want {
		if len(convs[i].Turns) != len(w) {
			t.Fatalf("conversation %d has %d turns, want %d", i, len(convs[i].Turns), len(w))
		}
		for j, text := range w {
			if convs[i].Turns[j].Texts[0] != text {
				t.Errorf("conversation %d turn %d = %q, want %q", i, j, convs[i].Turns[j].Texts[0], text)
			}
		}
	}
}

func TestTurnsOfOddValues(t *testing.T) {
	if Turns("not a list") != nil || Turns([]any{nil, "", "  "}) != nil {
		t.Error("values without a non-blank prompt gave turns")
	}
	if got := Turns([]any{int64(42), " x "}); len(got) != 2 || got[0].Texts[0] != "42" || got[1].Texts[0] != "x" {
		t.Errorf("Turns = %+v, want str() of each, trimmed", got)
	}
}
