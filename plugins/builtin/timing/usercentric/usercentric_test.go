package usercentric

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/timing/timingtest"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func run(t *testing.T, ctx context.Context, plan sdk.PhasePlan, rec sdk.CreditSender) {
	t.Helper()
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

func TestUsersKeepTheirGapAndStagger(t *testing.T) {
	// 4 users at 40 req/s: each user every 100 ms, first sends 25 ms apart.
	const gap, stagger = 100 * time.Millisecond, 25 * time.Millisecond
	rec := &timingtest.Recorder{Delay: 2 * time.Millisecond}
	run(t, context.Background(), sdk.PhasePlan{NumUsers: 4, UserCentricRate: 40, Duration: 450 * time.Millisecond, GracePeriod: -1}, rec)
	users := timingtest.ByUser(rec.Sent())
	if len(users) != 4 {
		t.Fatalf("%d users sent, want 4", len(users))
	}
	first := users[1][0].Credit.ScheduledNs
	for u := 1; u <= 4; u++ {
		sends := users[u]
		if len(sends) < 3 {
			t.Fatalf("user %d sent %d times in 450 ms", u, len(sends))
		}
		if got := time.Duration(sends[0].Credit.ScheduledNs - first); got != time.Duration(u-1)*stagger {
			t.Errorf("user %d starts at +%v, want +%v", u, got, time.Duration(u-1)*stagger)
		}
		for i := 1; i < len(sends); i++ {
			g := time.Duration(sends[i].Credit.ScheduledNs - sends[i-1].Credit.ScheduledNs)
			// On time, the next send keeps the grid exactly; a stalled
			// machine can only make it later.
			if g < gap || g > gap+50*time.Millisecond {
				t.Errorf("user %d gap %d = %v, want %v", u, i, g, gap)
			}
		}
	}
}

func TestLateUserSendsOnCompletionAndResets(t *testing.T) {
	// 2 users at 20 req/s: gap 100 ms. User 1's sessions take 250 ms, so
	// each next one goes out as soon as the previous completes.
	rec := &timingtest.Recorder{DelayFor: func(c sdk.Credit) time.Duration {
		if c.User == 1 {
			return 250 * time.Millisecond
		}
		return 5 * time.Millisecond
	}}
	run(t, context.Background(), sdk.PhasePlan{NumUsers: 2, UserCentricRate: 20, Duration: 700 * time.Millisecond, GracePeriod: -1}, rec)
	users := timingtest.ByUser(rec.Sent())
	late, onTime := users[1], users[2]
	if len(late) < 2 || len(onTime) < 4 {
		t.Fatalf("user 1 sent %d, user 2 sent %d", len(late), len(onTime))
	}
	for i := 1; i < len(late); i++ {
		prevEnd, c := late[i-1].EndNs, late[i].Credit
		if c.ScheduledNs < prevEnd || c.IssuedNs-prevEnd > int64(50*time.Millisecond) {
			t.Errorf("late user's send %d: scheduled %v / issued %v after the previous completed; want at completion",
				i, time.Duration(c.ScheduledNs-prevEnd), time.Duration(c.IssuedNs-prevEnd))
		}
	}
	for i := 1; i < len(onTime); i++ {
		if g := time.Duration(onTime[i].Credit.ScheduledNs - onTime[i-1].Credit.ScheduledNs); g < 100*time.Millisecond {
			t.Errorf("on-time user gap %v, want >= 100ms", g)
		}
	}
}

func TestCountIsExactAndUsersNeverOverlap(t *testing.T) {
	rec := &timingtest.Recorder{Delay: 15 * time.Millisecond}
	run(t, context.Background(), sdk.PhasePlan{NumUsers: 3, UserCentricRate: 300, RequestCount: 10}, rec)
	sent := rec.Sent()
	if len(sent) != 10 {
		t.Fatalf("%d credits, want 10", len(sent))
	}
	for u, sends := range timingtest.ByUser(sent) {
		if u < 1 || u > 3 {
			t.Fatalf("credit for user %d of 3", u)
		}
		for i := 1; i < len(sends); i++ {
			if sends[i].StartNs < sends[i-1].EndNs {
				t.Fatalf("user %d had two sessions in flight at once", u)
			}
		}
	}
}

func TestCancelStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(30 * time.Millisecond); cancel() }()
	rec := &timingtest.Recorder{Delay: time.Minute}
	run(t, ctx, sdk.PhasePlan{NumUsers: 2, UserCentricRate: 100}, rec)
	if rec.Count() != 2 {
		t.Fatalf("%d credits, want one per user", rec.Count())
	}
	for _, s := range rec.Sent() {
		if !errors.Is(s.Cause, context.Canceled) {
			t.Errorf("user %d: cause %v", s.Credit.User, s.Cause)
		}
	}
}

func TestGraceExpiryCancelsWithCause(t *testing.T) {
	rec := &timingtest.Recorder{Delay: time.Minute}
	run(t, context.Background(), sdk.PhasePlan{NumUsers: 2, UserCentricRate: 100, Duration: 40 * time.Millisecond, GracePeriod: 10 * time.Millisecond}, rec)
	if rec.Count() != 2 {
		t.Fatalf("%d credits, want 2", rec.Count())
	}
	for _, s := range rec.Sent() {
		if !errors.Is(s.Cause, sdk.ErrGraceExpired) {
			t.Errorf("user %d: cause %v, want ErrGraceExpired", s.Credit.User, s.Cause)
		}
	}
}

func TestRejectsBadPlan(t *testing.T) {
	bad := []sdk.PhasePlan{
		{NumUsers: 0, UserCentricRate: 10},
		{NumUsers: 2, UserCentricRate: 0},
		{NumUsers: 2, UserCentricRate: math.NaN()},
		{NumUsers: 2, UserCentricRate: 10, RequestCount: -3},
	}
	for _, p := range bad {
		if err := New().Run(context.Background(), p, &timingtest.Recorder{}); err == nil {
			t.Errorf("plan %+v accepted", p)
		}
	}
}
