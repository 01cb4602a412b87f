package app

import (
	"testing"

	"github.com/aiperf-go/aiperf/core/config"
	"github.com/aiperf-go/aiperf/core/engine"
)

func TestShareOfSumsExactly(t *testing.T) {
	for _, tc := range []struct{ n, k int }{{10, 4}, {7, 7}, {100, 3}, {3, 4}, {1000, 16}, {0, 5}} {
		sum := 0
		for i := 0; i < tc.k; i++ {
			s := shareOf(tc.n, i, tc.k)
			if s < tc.n/tc.k || s > tc.n/tc.k+1 {
				t.Errorf("shareOf(%d, %d, %d) = %d, want %d or %d", tc.n, i, tc.k, s, tc.n/tc.k, tc.n/tc.k+1)
			}
			sum += s
		}
		if sum != tc.n {
			t.Errorf("shares of %d over %d shards sum to %d", tc.n, tc.k, sum)
		}
	}
	if got := []int{shareOf(10, 0, 4), shareOf(10, 1, 4), shareOf(10, 2, 4), shareOf(10, 3, 4)}; got[0] != 3 || got[1] != 3 || got[2] != 2 || got[3] != 2 {
		t.Errorf("shares of 10 over 4 = %v, want [3 3 2 2]", got)
	}
}

func TestShardPhase(t *testing.T) {
	closed := config.PhaseSettings{Mode: config.ModeConcurrency, Concurrency: 10, Count: 103, PrefillConcurrency: 2}
	open := config.PhaseSettings{Mode: config.ModeRequestRate, Rate: 500, Concurrency: 6, Count: 1000}
	for _, tc := range []struct {
		name             string
		in               config.PhaseSettings
		i, k             int
		conc, count, pre int
		stripe           engine.Stripe
	}{
		{"closed loop shard 0", closed, 0, 4, 3, 26, 1, engine.Stripe{Index: 0, Count: 4, Renumber: true}},
		{"closed loop shard 3", closed, 3, 4, 2, 25, 1, engine.Stripe{Index: 3, Count: 4, Renumber: true}},
		{"open loop keeps the plan", open, 1, 4, 2, 1000, 0, engine.Stripe{Index: 1, Count: 4}},
		{"open loop ceiling at least 1", open, 3, 8, 1, 1000, 0, engine.Stripe{Index: 3, Count: 8}},
		{"one shard is the run", closed, 0, 1, 10, 103, 2, engine.Stripe{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, st := shardPhase(tc.in, tc.i, tc.k)
			if p.Concurrency != tc.conc || p.Count != tc.count || p.PrefillConcurrency != tc.pre || st != tc.stripe {
				t.Errorf("got concurrency %d count %d prefill %d stripe %+v; want %d %d %d %+v",
					p.Concurrency, p.Count, p.PrefillConcurrency, st, tc.conc, tc.count, tc.pre, tc.stripe)
			}
			if p.Rate != tc.in.Rate {
				t.Errorf("rate %v changed (want %v: every shard runs the whole schedule)", p.Rate, tc.in.Rate)
			}
		})
	}
}

// The shards' credits, mapped to the run's numbering, are the single
// process's credits exactly once, in both stripe modes.
func TestShardStripesPartitionTheCredits(t *testing.T) {
	const n, k = 103, 4
	for _, ps := range []config.PhaseSettings{
		{Mode: config.ModeConcurrency, Concurrency: 8, Count: n},
		{Mode: config.ModeRequestRate, Rate: 10, Count: n},
	} {
		seen := map[int]int{}
		for i := 0; i < k; i++ {
			p, st := shardPhase(ps, i, k)
			issued := p.Count // the strategy issues the phase's count
			for c := 0; c < issued; c++ {
				if g, mine := st.Global(c); mine {
					seen[g]++
				}
			}
		}
		for g := 0; g < n; g++ {
			if seen[g] != 1 {
				t.Fatalf("%s: credit %d sent %d times", ps.Mode, g, seen[g])
			}
		}
		if len(seen) != n {
			t.Fatalf("%s: %d distinct credits, want %d", ps.Mode, len(seen), n)
		}
	}
}

func TestPlanHash(t *testing.T) {
	reqs := []engine.PreparedRequest{{ConversationID: "c0", Payload: []byte(`{"a":1}`)}, {ConversationID: "c1", Payload: []byte(`{"a":2}`)}}
	cfg := map[string]any{"endpoint": map[string]any{"type": "chat"}, "artifacts": map[string]any{"dir": "x/shard-0"}}
	base := planHash(cfg, 42, reqs)
	same := planHash(map[string]any{"endpoint": map[string]any{"type": "chat"}, "artifacts": map[string]any{"dir": "x/shard-3"}}, 42, reqs)
	if base != same {
		t.Errorf("artifact directories changed the plan hash: %s vs %s", base, same)
	}
	other := []engine.PreparedRequest{reqs[0], {ConversationID: "c1", Payload: []byte(`{"a":3}`)}}
	for name, h := range map[string]string{
		"seed":     planHash(cfg, 43, reqs),
		"payload":  planHash(cfg, 42, other),
		"endpoint": planHash(map[string]any{"endpoint": map[string]any{"type": "completions"}}, 42, reqs),
	} {
		if h == base {
			t.Errorf("a different %s gave the same plan hash", name)
		}
	}
}
