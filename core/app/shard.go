package app

import (
	"github.com/aiperf-go/aiperf/core/config"
	"github.com/aiperf-go/aiperf/core/engine"
)

// Sharding without a coordinator, as k6's execution segments: every shard
// builds the whole plan from the same configuration and seed and sends a
// disjoint stripe of it (docs/ARCHITECTURE.md, "Sharded runs").
//
//   - Open loop (request rate, trace replay, user-centric): each shard runs
//     the whole schedule and sends only the credits whose index is its own
//     (index mod N), at the times one process would send them, so the union
//     of the shards is the single-process schedule. A --concurrency ceiling
//     is split into shares.
//   - Closed loop (concurrency): the users and the request count are split
//     into shares that sum exactly; shard i's k-th credit is credit k·N+i of
//     the single-process numbering, so the sessions it samples are disjoint
//     from the other shards'.

// shareOf is shard i's share of n split over k shards: n/k, plus one for
// the first n mod k shards. The shares sum to n.
func shareOf(n, i, k int) int {
	if k <= 1 {
		return n
	}
	s := n / k
	if i < n%k {
		s++
	}
	return s
}

// ceilingShare is shard i's share of a ceiling n (0 = none): at least 1.
func ceilingShare(n, i, k int) int {
	if n <= 0 {
		return n
	}
	return max(1, shareOf(n, i, k))
}

// shardPhase returns the phase shard i of k runs and the stripe its engine
// sends.
func shardPhase(p config.PhaseSettings, i, k int) (config.PhaseSettings, engine.Stripe) {
	st := engine.Stripe{Index: i, Count: k}
	if k <= 1 {
		return p, engine.Stripe{}
	}
	if p.Mode == config.ModeConcurrency {
		st.Renumber = true
		p.Concurrency = shareOf(p.Concurrency, i, k)
		if p.Count > 0 {
			p.Count = shareOf(p.Count, i, k)
		}
		if p.Sessions > 0 {
			p.Sessions = shareOf(p.Sessions, i, k)
		}
	} else {
		p.Concurrency = ceilingShare(p.Concurrency, i, k)
	}
	p.PrefillConcurrency = ceilingShare(p.PrefillConcurrency, i, k)
	return p, st
}

// shardSettings turns the run's settings into shard sh.Index's: its shares
// of each phase and the stripes its engine sends.
func shardSettings(s *Settings, sh config.Sharding) {
	s.Shard = sh
	if sh.Count <= 1 {
		return
	}
	s.Profiling, s.ProfilingStripe = shardPhase(s.Profiling, sh.Index, sh.Count)
	if s.Warmup != nil {
		w, st := shardPhase(*s.Warmup, sh.Index, sh.Count)
		s.Warmup, s.WarmupStripe = &w, st
	}
}

// budgetShare is the request budget of a multi-turn phase for this shard:
// a closed loop's count is already its share; an open loop's is split the
// same way (which sessions reach it differs from one process's, as it
// depends on the order requests finish in).
func budgetShare(budget int, st engine.Stripe) int {
	if !st.Sharded() || st.Renumber || budget <= 0 {
		return budget
	}
	return max(1, shareOf(budget, st.Index, st.Count))
}
