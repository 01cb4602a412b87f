package timing

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/clock"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/timing/timingtest"
)

func runConcurrency(t *testing.T, ctx context.Context, plan sdk.PhasePlan, rec *timingtest.Recorder) {
	t.Helper()
	runStrategy(t, ctx, NewConcurrency(), plan, rec)
}

func TestConcurrencyIssuesExactCount(t *testing.T) {
	cases := []struct{ count, conc int }{{1, 1}, {10, 3}, {100, 8}, {5, 50}}
	for _, c := range cases {
		rec := &timingtest.Recorder{Delay: time.Millisecond}
		runConcurrency(t, context.Background(), sdk.PhasePlan{Phase: sdk.PhaseProfiling, RequestCount: c.count, Concurrency: c.conc}, rec)
		sent := rec.Sent()
		if len(sent) != c.count {
			t.Errorf("count=%d conc=%d: %d credits", c.count, c.conc, len(sent))
		}
		seen := map[int]bool{}
		for _, s := range sent {
			if seen[s.Credit.Index] || s.Credit.Index >= c.count || s.Credit.Phase != sdk.PhaseProfiling || s.Credit.ScheduledNs != 0 {
				t.Errorf("count=%d: bad or repeated credit %+v", c.count, s.Credit)
			}
			seen[s.Credit.Index] = true
		}
		if peak := rec.PeakInFlight(); peak > c.conc {
			t.Errorf("count=%d conc=%d: peak in flight %d", c.count, c.conc, peak)
		}
	}
}

func TestConcurrencyStopsOnCancelAndCancelsInFlight(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	rec := &timingtest.Recorder{Delay: time.Minute}
	go func() { time.Sleep(30 * time.Millisecond); cancel() }()
	runConcurrency(t, ctx, sdk.PhasePlan{Concurrency: 4}, rec)
	if rec.Count() != 4 {
		t.Fatalf("%d sends, want the 4 in flight at cancel", rec.Count())
	}
	for _, s := range rec.Sent() {
		if !errors.Is(s.Cause, context.Canceled) {
			t.Errorf("send %d: cause %v, want context.Canceled", s.Credit.Index, s.Cause)
		}
	}
}

func TestConcurrencyDurationStopsIssuing(t *testing.T) {
	rec := &timingtest.Recorder{Delay: 5 * time.Millisecond}
	before := clock.Now()
	runConcurrency(t, context.Background(), sdk.PhasePlan{Concurrency: 3, Duration: 80 * time.Millisecond, GracePeriod: -1}, rec)
	if rec.Count() < 3 {
		t.Fatalf("%d sends in an 80 ms phase", rec.Count())
	}
	for _, s := range rec.Sent() {
		// The phase starts just after `before`, so its end is at least this.
		if s.Credit.IssuedNs > before+int64(85*time.Millisecond) {
			t.Errorf("credit %d issued %v into an 80 ms phase", s.Credit.Index, time.Duration(s.Credit.IssuedNs-before))
		}
		if s.Cause != nil {
			t.Errorf("credit %d cancelled: %v", s.Credit.Index, s.Cause)
		}
	}
}

func TestConcurrencyGraceExpiryCancelsWithCause(t *testing.T) {
	rec := &timingtest.Recorder{Delay: time.Minute}
	runConcurrency(t, context.Background(), sdk.PhasePlan{Concurrency: 2, Duration: 30 * time.Millisecond, GracePeriod: 20 * time.Millisecond}, rec)
	if rec.Count() != 2 {
		t.Fatalf("%d sends, want 2", rec.Count())
	}
	for _, s := range rec.Sent() {
		if !errors.Is(s.Cause, sdk.ErrGraceExpired) {
			t.Errorf("send %d: cause %v, want ErrGraceExpired", s.Credit.Index, s.Cause)
		}
	}
}

func TestConcurrencyCountBeatsDuration(t *testing.T) {
	rec := &timingtest.Recorder{Delay: time.Millisecond}
	runConcurrency(t, context.Background(), sdk.PhasePlan{Concurrency: 2, RequestCount: 6, Duration: time.Hour, GracePeriod: -1}, rec)
	if rec.Count() != 6 {
		t.Fatalf("%d sends, want the count of 6", rec.Count())
	}
}

func TestPrefillConcurrencyCapsRequestsBeforeFirstToken(t *testing.T) {
	cases := []struct {
		name            string
		conc, prefill   int
		firstTokenAfter time.Duration
		wantInFlight    int // the most that may run at once
	}{
		{"first token frees the slot", 8, 2, 2 * time.Millisecond, 8},
		{"no first token: slot held to the end", 8, 2, 0, 2},
	}
	for _, c := range cases {
		rec := &timingtest.Recorder{Delay: 8 * time.Millisecond, FirstTokenAfter: c.firstTokenAfter}
		runConcurrency(t, context.Background(), sdk.PhasePlan{Concurrency: c.conc, PrefillConcurrency: c.prefill, RequestCount: 60}, rec)
		if rec.Count() != 60 {
			t.Errorf("%s: %d sends, want 60", c.name, rec.Count())
		}
		if got := rec.PeakPrefill(); got > c.prefill {
			t.Errorf("%s: %d requests before their first token, cap %d", c.name, got, c.prefill)
		}
		if got := rec.PeakInFlight(); got > c.wantInFlight {
			t.Errorf("%s: peak in flight %d, want <= %d", c.name, got, c.wantInFlight)
		}
	}
}

func TestConcurrencyRampRaisesCeilingStepwise(t *testing.T) {
	const conc, ramp = 5, 200 * time.Millisecond
	rec := &timingtest.Recorder{Delay: 4 * time.Millisecond}
	before := clock.Now()
	runConcurrency(t, context.Background(), sdk.PhasePlan{Concurrency: conc, ConcurrencyRamp: ramp, Duration: 400 * time.Millisecond, GracePeriod: -1}, rec)
	// Step v is applied no earlier than ramp·(v−1)/(conc−1) after the phase
	// started (which is after `before`), so a send that began at elapsed e
	// saw at most 1 + floor(e·(conc−1)/ramp) in flight.
	for _, s := range rec.Sent() {
		e := s.StartNs - before
		ceiling := 1 + int(e*(conc-1)/int64(ramp))
		if s.InFlight > min(ceiling, conc) {
			t.Fatalf("send at %v saw %d in flight; the ramp allowed %d", time.Duration(e), s.InFlight, ceiling)
		}
	}
	if got := rec.PeakInFlight(); got != conc {
		t.Fatalf("peak in flight %d after the ramp, want %d", got, conc)
	}
}

func TestConcurrencyRejectsBadPlan(t *testing.T) {
	bad := []struct {
		plan sdk.PhasePlan
		want string
	}{
		{sdk.PhasePlan{Concurrency: 0}, "concurrency must be >= 1"},
		{sdk.PhasePlan{Concurrency: 1, RequestCount: -1}, "request count"},
		{sdk.PhasePlan{Concurrency: 2, PrefillConcurrency: 3}, "exceeds concurrency"},
		{sdk.PhasePlan{Concurrency: 2, Duration: -time.Second}, "duration"},
	}
	for _, c := range bad {
		wantNamed(t, NewConcurrency().Run(context.Background(), c.plan, &timingtest.Recorder{}), Concurrency, c.want)
	}
	wantNamed(t, NewConcurrency(WithMaxCatchup(time.Minute)).Run(context.Background(), sdk.PhasePlan{Concurrency: 1}, &timingtest.Recorder{}), Concurrency, "max catch-up")
}

// With only --prefill-concurrency (no --concurrency), sessions are issued
// as fast as the prefill ceiling admits them.
func TestConcurrencyPrefillOnlyBurst(t *testing.T) {
	rec := &timingtest.Recorder{Delay: 6 * time.Millisecond, FirstTokenAfter: 2 * time.Millisecond}
	runConcurrency(t, context.Background(), sdk.PhasePlan{PrefillConcurrency: 3, RequestCount: 30}, rec)
	if rec.Count() != 30 {
		t.Errorf("%d sends, want 30", rec.Count())
	}
	if got := rec.PeakPrefill(); got > 3 {
		t.Errorf("%d requests before their first token, cap 3", got)
	}
	if got := rec.PeakInFlight(); got <= 3 {
		t.Errorf("peak in flight %d: decode should overlap once first tokens free prefill slots", got)
	}
}

// cancelAfter is a sender that holds every request until its context ends
// and cancels the run once n sends have begun, so cancellation lands in the
// middle of user start-up.
type cancelAfter struct {
	n      int64
	begun  atomic.Int64
	cancel context.CancelFunc
	peak   atomic.Int64 // runtime.NumGoroutine when the cancel fired
}

func (s *cancelAfter) Send(ctx context.Context, _ sdk.Credit) {
	if s.begun.Add(1) == s.n {
		s.peak.Store(int64(runtime.NumGoroutine()))
		s.cancel()
	}
	<-ctx.Done()
}

// runHugeConcurrency runs a phase of two billion users against s and
// fails unless Run returns cleanly within 10 s (a hang bound) of why.
func runHugeConcurrency(t *testing.T, ctx context.Context, s sdk.CreditSender, why string) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		done <- NewConcurrency().Run(ctx, sdk.PhasePlan{Phase: sdk.PhaseProfiling, Concurrency: 2_000_000_000}, s)
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("Run did not return within 10 s of %s", why)
	}
}

// Issue 15: a huge --concurrency used to start one goroutine per slot up
// front and ignore cancellation until all had started.
func TestConcurrencyHugeStartsLazilyAndHonoursCancel(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := &cancelAfter{n: 100, cancel: cancel}
	runHugeConcurrency(t, ctx, s, "a cancel during start-up")
	// One goroutine per credit in flight, plus generous slack: the starter
	// may outrun the scheduler for a time slice before it sees the cancel.
	// Before the fix this was two billion.
	const slack = 50_000
	if got := s.begun.Load(); got < s.n || got > s.n+slack {
		t.Errorf("%d sends began, want %d..%d (start-up must stop at the cancel)", got, s.n, s.n+slack)
	}
	if peak := s.peak.Load(); peak-int64(before) > s.n+slack {
		t.Errorf("%d goroutines at the cancel (%d before), want at most %d more: users must start lazily", peak, before, s.n+slack)
	}
	if after := runtime.NumGoroutine(); after-before > slack {
		t.Errorf("%d goroutines after Run (%d before): users leaked", after, before)
	}
}

// A run cancelled before it starts issues nothing and returns at once,
// however large the concurrency.
func TestConcurrencyHugeCancelledBeforeStart(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := &cancelAfter{n: 1, cancel: cancel}
	runHugeConcurrency(t, ctx, s, "a cancelled context")
	if got := s.begun.Load(); got != 0 {
		t.Errorf("%d sends began on a cancelled context, want 0", got)
	}
	if after := runtime.NumGoroutine(); after-before > 100 {
		t.Errorf("%d goroutines after Run (%d before): users leaked", after, before)
	}
}
