package timing

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/timing/timingtest"
)

func TestStartPhaseRejectsBadPlans(t *testing.T) {
	cases := []struct {
		plan sdk.PhasePlan
		want string
	}{
		{sdk.PhasePlan{RequestCount: -1}, "request count"},
		{sdk.PhasePlan{Duration: -time.Second}, "duration"},
		{sdk.PhasePlan{Concurrency: -2}, "concurrency"},
		{sdk.PhasePlan{PrefillConcurrency: -1}, "prefill concurrency"},
		{sdk.PhasePlan{ConcurrencyRamp: -time.Second}, "concurrency ramp"},
		{sdk.PhasePlan{Concurrency: 2, PrefillConcurrency: 3}, "exceeds concurrency"},
	}
	for _, c := range cases {
		c.plan.Phase = sdk.PhaseProfiling
		_, err := startPhase(context.Background(), c.plan, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), sdk.PhaseProfiling) {
			t.Errorf("plan %+v: error %v, want one naming the phase and %q", c.plan, err, c.want)
		}
	}
	if _, err := startPhase(context.Background(), sdk.PhasePlan{}, []Option{WithMaxCatchup(time.Minute)}); err == nil {
		t.Error("out-of-range max catch-up accepted")
	}
}

// drain acquires and sends until the phase stops, like a closed loop with
// one user.
func drain(p *phase, s sdk.CreditSender) {
	for {
		pm, err := p.Acquire()
		if err != nil {
			return
		}
		p.Send(s, pm, sdk.Credit{})
	}
}

func TestPhaseCountIsExact(t *testing.T) {
	for _, n := range []int{1, 7, 100} {
		p, err := startPhase(context.Background(), sdk.PhasePlan{Phase: "profiling", RequestCount: n}, nil)
		if err != nil {
			t.Fatal(err)
		}
		rec := &timingtest.Recorder{}
		drain(p, rec)
		if p.Issuing().Err() == nil {
			t.Errorf("count %d: issuing not stopped after the count was reached", n)
		}
		if p.Due(p.StartNs()) {
			t.Errorf("count %d: Due after the count was reached", n)
		}
		p.Finish()
		sent := rec.Sent()
		if len(sent) != n {
			t.Fatalf("count %d: %d credits sent", n, len(sent))
		}
		for i, s := range sent {
			if s.Credit.Index != i || s.Credit.Phase != "profiling" || s.Credit.IssuedNs == 0 {
				t.Errorf("count %d: credit %d = %+v", n, i, s.Credit)
			}
		}
	}
}

func TestPhaseDurationStopsIssuing(t *testing.T) {
	p, _ := startPhase(context.Background(), sdk.PhasePlan{Duration: 60 * time.Millisecond, GracePeriod: -1}, nil)
	rec := &timingtest.Recorder{Delay: 5 * time.Millisecond}
	drain(p, rec)
	p.Finish()
	sent := rec.Sent()
	if len(sent) < 2 {
		t.Fatalf("only %d credits in a 60 ms phase of 5 ms requests", len(sent))
	}
	for _, s := range sent {
		if s.Credit.IssuedNs >= p.EndNs() {
			t.Errorf("credit %d issued %v after the duration ended", s.Credit.Index, time.Duration(s.Credit.IssuedNs-p.EndNs()))
		}
		if s.Cause != nil {
			t.Errorf("credit %d cancelled (%v) with infinite grace", s.Credit.Index, s.Cause)
		}
	}
	if p.Due(p.EndNs()) {
		t.Error("a credit scheduled at the duration's end is still due")
	}
}

func TestPhaseGraceCancelsWithCause(t *testing.T) {
	cases := []struct {
		name      string
		grace     time.Duration
		delay     time.Duration
		cancelled bool
	}{
		{"grace expires", 30 * time.Millisecond, time.Minute, true},
		{"zero grace cancels at duration", 0, time.Minute, true},
		{"finishes within grace", 5 * time.Second, 40 * time.Millisecond, false},
		{"infinite grace", -1, 80 * time.Millisecond, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, _ := startPhase(context.Background(), sdk.PhasePlan{Duration: 20 * time.Millisecond, GracePeriod: c.grace}, nil)
			rec := &timingtest.Recorder{Delay: c.delay}
			pm, err := p.Acquire()
			if err != nil {
				t.Fatal(err)
			}
			p.Go(rec, pm, sdk.Credit{})
			done := make(chan struct{})
			go func() { p.Finish(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Finish did not return")
			}
			sent := rec.Sent()
			if len(sent) != 1 {
				t.Fatalf("%d sends recorded", len(sent))
			}
			got := sent[0].Cause
			if c.cancelled != errors.Is(got, sdk.ErrGraceExpired) || (!c.cancelled && got != nil) {
				t.Fatalf("cause %v, want cancelled=%v with ErrGraceExpired", got, c.cancelled)
			}
		})
	}
}

func TestPhaseCancelStopsIssuingAndSends(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p, _ := startPhase(ctx, sdk.PhasePlan{Concurrency: 2}, nil)
	rec := &timingtest.Recorder{Delay: time.Minute}
	for range 2 {
		pm, err := p.Acquire()
		if err != nil {
			t.Fatal(err)
		}
		p.Go(rec, pm, sdk.Credit{})
	}
	// A third acquire blocks on the ceiling until the cancel.
	res := make(chan error, 1)
	go func() { _, err := p.Acquire(); res <- err }()
	cancel()
	if err := <-res; !errors.Is(err, errStopped) {
		t.Fatalf("blocked Acquire = %v, want errStopped", err)
	}
	p.Finish()
	for _, s := range rec.Sent() {
		if !errors.Is(s.Cause, context.Canceled) {
			t.Errorf("send %d: cause %v, want context.Canceled", s.Credit.Index, s.Cause)
		}
	}
	if rec.Count() != 2 {
		t.Fatalf("%d sends, want 2", rec.Count())
	}
}

// doubleCaller calls OnFirstToken twice, as a buggy engine might.
type doubleCaller struct {
	mu     sync.Mutex
	inUse  []int
	phase  *phase
	called int
}

func (d *doubleCaller) Send(_ context.Context, c sdk.Credit) {
	c.OnFirstToken()
	c.OnFirstToken()
	d.mu.Lock()
	d.inUse = append(d.inUse, d.phase.Prefill().InUse())
	d.called++
	d.mu.Unlock()
}

func TestPrefillSlotReleasedOnce(t *testing.T) {
	p, _ := startPhase(context.Background(), sdk.PhasePlan{RequestCount: 20, Concurrency: 4, PrefillConcurrency: 2}, nil)
	d := &doubleCaller{phase: p}
	drain(p, d)
	p.Finish()
	if got := p.Prefill().InUse(); got != 0 {
		t.Fatalf("prefill slots held after the phase: %d", got)
	}
	if got := p.Session().InUse(); got != 0 {
		t.Fatalf("session slots held after the phase: %d", got)
	}
	for i, n := range d.inUse {
		if n != 0 {
			t.Fatalf("send %d: %d prefill slots held after the first token; a double release would show as negative", i, n)
		}
	}
	if d.called != 20 {
		t.Fatalf("%d sends, want 20", d.called)
	}
}

func TestPhaseRampsCeiling(t *testing.T) {
	p, _ := startPhase(context.Background(), sdk.PhasePlan{Concurrency: 8, ConcurrencyRamp: time.Hour, PrefillConcurrency: 4, PrefillConcurrencyRamp: time.Hour}, nil)
	defer p.Finish()
	if p.Session().Limit() != 1 || p.Prefill().Limit() != 1 {
		t.Fatalf("ramped ceilings start at %d/%d, want 1/1", p.Session().Limit(), p.Prefill().Limit())
	}
	q, _ := startPhase(context.Background(), sdk.PhasePlan{Concurrency: 8}, nil)
	defer q.Finish()
	if q.Session().Limit() != 8 || q.Prefill() != nil {
		t.Fatalf("unramped ceilings: session %d, prefill %v", q.Session().Limit(), q.Prefill())
	}
}
