package requestrate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/timing/timingtest"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func run(t *testing.T, ctx context.Context, plan sdk.PhasePlan, rec sdk.CreditSender) {
	t.Helper()
	if plan.Arrival == nil {
		plan.Arrival = timingtest.ConstantArrival{}
	}
	done := make(chan error, 1)
	go func() { done <- New().Run(ctx, plan, rec) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return")
	}
}

// checkCredits asserts the invariants every open-loop run keeps: indices
// 0..n-1 once each, never issued before the schedule, schedule increasing.
func checkCredits(t *testing.T, sent []timingtest.Sent) {
	t.Helper()
	seen := make([]bool, len(sent))
	var prevSched int64
	for _, s := range sent {
		c := s.Credit
		if c.Index < 0 || c.Index >= len(sent) || seen[c.Index] {
			t.Fatalf("credit index %d repeated or out of range (n=%d)", c.Index, len(sent))
		}
		seen[c.Index] = true
		if c.ScheduledNs == 0 || c.IssuedNs < c.ScheduledNs {
			t.Fatalf("credit %d issued at %d before its schedule %d", c.Index, c.IssuedNs, c.ScheduledNs)
		}
		if c.ScheduledNs < prevSched {
			t.Fatalf("credit %d scheduled before its predecessor", c.Index)
		}
		prevSched = c.ScheduledNs
	}
}

func TestAchievedRateMatchesTarget(t *testing.T) {
	for _, rate := range []float64{200, 500, 1000} {
		t.Run(fmt.Sprintf("rate=%v", rate), func(t *testing.T) {
			n := int(rate) // about one second
			rec := &timingtest.Recorder{Delay: time.Millisecond}
			run(t, context.Background(), sdk.PhasePlan{RequestRate: rate, RequestCount: n}, rec)
			sent := rec.Sent()
			if len(sent) != n {
				t.Fatalf("%d credits, want %d", len(sent), n)
			}
			checkCredits(t, sent)
			span := time.Duration(sent[n-1].Credit.IssuedNs - sent[0].Credit.IssuedNs).Seconds()
			achieved := float64(n-1) / span
			if math.Abs(achieved-rate)/rate > 0.05 {
				t.Fatalf("achieved %.1f req/s, target %v", achieved, rate)
			}
		})
	}
}

func TestConcurrencyCeilingDelaysCredits(t *testing.T) {
	rec := &timingtest.Recorder{Delay: 20 * time.Millisecond}
	run(t, context.Background(), sdk.PhasePlan{RequestRate: 1000, Concurrency: 3, RequestCount: 30}, rec)
	sent := rec.Sent()
	if len(sent) != 30 {
		t.Fatalf("%d credits, want 30", len(sent))
	}
	checkCredits(t, sent)
	if got := rec.PeakInFlight(); got > 3 {
		t.Fatalf("peak in flight %d over the ceiling of 3", got)
	}
	// 3 slots of 20 ms serve 150 req/s against 1000 scheduled: the wait for
	// a slot must show as schedule lag.
	var maxLag int64
	for _, s := range sent {
		maxLag = max(maxLag, s.Credit.IssuedNs-s.Credit.ScheduledNs)
	}
	if maxLag < int64(5*time.Millisecond) {
		t.Fatalf("max schedule lag %v under a saturated ceiling", time.Duration(maxLag))
	}
}

func TestPrefillCeiling(t *testing.T) {
	rec := &timingtest.Recorder{Delay: 10 * time.Millisecond, FirstTokenAfter: 4 * time.Millisecond}
	run(t, context.Background(), sdk.PhasePlan{RequestRate: 800, PrefillConcurrency: 2, RequestCount: 50}, rec)
	if rec.Count() != 50 {
		t.Fatalf("%d credits, want 50", rec.Count())
	}
	if got := rec.PeakPrefill(); got > 2 {
		t.Fatalf("%d requests before their first token, cap 2", got)
	}
}

func TestDurationStopsSchedule(t *testing.T) {
	rec := &timingtest.Recorder{Delay: time.Millisecond}
	run(t, context.Background(), sdk.PhasePlan{RequestRate: 200, Duration: 200 * time.Millisecond, GracePeriod: -1}, rec)
	// Targets fall at 5, 10, … ms; only those before 200 ms go out.
	if n := rec.Count(); n > 39 || n < 20 {
		t.Fatalf("%d credits in 200 ms at 200 req/s, want 20..39", n)
	}
	checkCredits(t, rec.Sent())
}

func TestGraceExpiryCancelsWithCause(t *testing.T) {
	rec := &timingtest.Recorder{Delay: time.Minute}
	run(t, context.Background(), sdk.PhasePlan{RequestRate: 100, Duration: 50 * time.Millisecond, GracePeriod: 20 * time.Millisecond}, rec)
	if rec.Count() < 1 {
		t.Fatal("no credits issued")
	}
	for _, s := range rec.Sent() {
		if !errors.Is(s.Cause, sdk.ErrGraceExpired) {
			t.Errorf("credit %d: cause %v, want ErrGraceExpired", s.Credit.Index, s.Cause)
		}
	}
}

func TestCancelStopsUnboundedRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	rec := &timingtest.Recorder{Delay: time.Minute}
	run(t, ctx, sdk.PhasePlan{RequestRate: 100}, rec)
	if rec.Count() < 1 {
		t.Fatal("no credits before cancel")
	}
	for _, s := range rec.Sent() {
		if !errors.Is(s.Cause, context.Canceled) {
			t.Errorf("credit %d: cause %v, want context.Canceled", s.Credit.Index, s.Cause)
		}
	}
}

func TestRateRampStartsSlow(t *testing.T) {
	// 1000 req/s ramped over 1 s: the first 0.5 s carry the integral of the
	// stepped rate, 0.1·Σ(100 + 90k) for k = 0..4 = 140 arrivals, not 500.
	rec := &timingtest.Recorder{}
	run(t, context.Background(), sdk.PhasePlan{RequestRate: 1000, RequestRateRamp: time.Second, Duration: 500 * time.Millisecond, GracePeriod: -1}, rec)
	sent := rec.Sent()
	if n := len(sent); n < 100 || n > 141 {
		t.Fatalf("%d credits in the first half of the ramp, want about 140", n)
	}
	checkCredits(t, sent)
	gap := func(i int) int64 { return sent[i+1].Credit.ScheduledNs - sent[i].Credit.ScheduledNs }
	if first, last := gap(0), gap(len(sent)-2); first <= last {
		t.Fatalf("gaps did not shrink during the ramp: first %v, last %v", time.Duration(first), time.Duration(last))
	}
}

func TestRejectsBadPlan(t *testing.T) {
	bad := []sdk.PhasePlan{
		{RequestRate: 0, Arrival: timingtest.ConstantArrival{}},
		{RequestRate: -5, Arrival: timingtest.ConstantArrival{}},
		{RequestRate: math.NaN(), Arrival: timingtest.ConstantArrival{}},
		{RequestRate: math.Inf(1), Arrival: timingtest.ConstantArrival{}},
		{RequestRate: 10},
		{RequestRate: 10, Arrival: timingtest.ConstantArrival{}, RequestCount: -1},
	}
	for _, p := range bad {
		if err := New().Run(context.Background(), p, &timingtest.Recorder{}); err == nil {
			t.Errorf("plan %+v accepted", p)
		}
	}
}
