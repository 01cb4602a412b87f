package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/aiperf-go/aiperf/core/clock"
	"github.com/aiperf-go/aiperf/mockserver"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// seededSchedule is an open-loop strategy: every credit of the plan, each
// with a schedule offset drawn from a fixed seed (what a Poisson or trace
// schedule gives: the same offsets in every process that builds the plan).
type seededSchedule struct{ base int64 }

func (s seededSchedule) Run(ctx context.Context, plan sdk.PhasePlan, send sdk.CreditSender) error {
	r := rand.New(rand.NewPCG(7, 7))
	var at int64
	var wg sync.WaitGroup
	for i := range plan.RequestCount {
		at += 1 + r.Int64N(1_000_000)
		c := sdk.Credit{Index: i, Phase: plan.Phase, IssuedNs: clock.Now(), ScheduledNs: s.base + at}
		wg.Go(func() { send.Send(ctx, c) })
	}
	wg.Wait()
	return nil
}

// sentCredit is what one credit of a run sent: its conversation, its
// schedule offset and its body.
type sentCredit struct {
	conv      string
	scheduled int64
	body      string
}

// runStripe runs one phase of n credits (open loop: the seeded schedule;
// closed loop: closedLoop over count credits) as the given stripe and
// returns what each credit of the whole run's numbering sent.
func runStripe(t *testing.T, url string, st Stripe, open bool, count int) (map[int]sentCredit, sdk.ProgressSnapshot) {
	t.Helper()
	reqs := prepared(t, 5, []string{"m"}, false)
	var strategy sdk.TimingStrategy = closedLoop{}
	if open {
		strategy = seededSchedule{base: 1_000}
	}
	e, err := New(realTransport(t), strategy, reqs, withDefaults(Options{URLs: []string{url + chatPath}, Seed: 3,
		Sampler: &sequentialSampler{}}))
	if err != nil {
		t.Fatal(err)
	}
	e.SetPhaseOptions(PhaseOptions{Stripe: st})
	var col collector
	if err := e.RunPhase(context.Background(), sdk.PhasePlan{Phase: sdk.PhaseProfiling, RequestCount: count, Concurrency: 2}, col.done); err != nil {
		t.Fatal(err)
	}
	out := map[int]sentCredit{}
	for _, c := range col.got {
		if _, dup := out[c.Record.SessionNum]; dup {
			t.Fatalf("stripe %+v: credit %d sent twice", st, c.Record.SessionNum)
		}
		out[c.Record.SessionNum] = sentCredit{c.Request.ConversationID, c.Record.ScheduledNs, string(c.Record.RequestBody)}
	}
	snap := e.Snapshot()
	return out, snap
}

// TestStripesSendTheSingleProcessPlan: four stripes of a phase send, taken
// together, exactly what one process sends — every credit once, with the
// same conversation, body and (open loop) schedule offset — and each
// counts only its own credits as its total.
func TestStripesSendTheSingleProcessPlan(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true})
	const n, k = 23, 4
	for _, open := range []bool{true, false} {
		t.Run(fmt.Sprintf("open=%v", open), func(t *testing.T) {
			whole, _ := runStripe(t, url, Stripe{}, open, n)
			if len(whole) != n {
				t.Fatalf("one process sent %d credits, want %d", len(whole), n)
			}
			union := map[int]sentCredit{}
			for i := range k {
				st := Stripe{Index: i, Count: k, Renumber: !open}
				count := n // open loop: every shard's strategy issues the whole schedule
				if !open {
					count = (n - i + k - 1) / k // closed loop: this shard's share
				}
				got, snap := runStripe(t, url, st, open, count)
				if snap.Total != int64(len(got)) || snap.Completed != int64(len(got)) {
					t.Errorf("stripe %d: progress %+v for %d credits sent", i, snap, len(got))
				}
				for g, c := range got {
					if g%k != i {
						t.Errorf("stripe %d sent credit %d of another stripe", i, g)
					}
					if _, dup := union[g]; dup {
						t.Errorf("credit %d sent by two stripes", g)
					}
					union[g] = c
				}
			}
			if len(union) != n {
				t.Fatalf("the stripes sent %d credits, one process %d", len(union), n)
			}
			for g, want := range whole {
				if got := union[g]; got != want {
					t.Errorf("credit %d: stripes sent %+v, one process %+v", g, got, want)
				}
			}
		})
	}
}
