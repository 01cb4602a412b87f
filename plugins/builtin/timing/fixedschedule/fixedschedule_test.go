package fixedschedule

import (
	"context"
	"errors"
	"strings"
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

func ms(v ...int) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x) * time.Millisecond
	}
	return out
}

func TestFiresAtOffsetsInOrder(t *testing.T) {
	offsets := ms(0, 5, 5, 20, 50, 80)
	rec := &timingtest.Recorder{Delay: time.Millisecond}
	run(t, context.Background(), sdk.PhasePlan{Schedule: offsets}, rec)
	sent := rec.Sent()
	if len(sent) != len(offsets) {
		t.Fatalf("%d credits, want %d", len(sent), len(offsets))
	}
	base := sent[0].Credit.ScheduledNs
	for i, s := range sent {
		c := s.Credit
		if c.Index != i {
			t.Fatalf("credit %d issued in position %d", c.Index, i)
		}
		if got := time.Duration(c.ScheduledNs - base); got != offsets[i] {
			t.Errorf("credit %d scheduled at +%v, want +%v", i, got, offsets[i])
		}
		lag := time.Duration(c.IssuedNs - c.ScheduledNs)
		if lag < 0 || lag > 50*time.Millisecond {
			t.Errorf("credit %d issued %v after its offset", i, lag)
		}
	}
}

func TestIgnoresResponses(t *testing.T) {
	// Each request outlasts the whole schedule: open loop fires them all
	// before the first completes.
	rec := &timingtest.Recorder{Delay: 300 * time.Millisecond}
	run(t, context.Background(), sdk.PhasePlan{Schedule: ms(0, 10, 20, 30)}, rec)
	sent := rec.Sent()
	if len(sent) != 4 {
		t.Fatalf("%d credits, want 4", len(sent))
	}
	if last, firstEnd := sent[3].Credit.IssuedNs, sent[0].EndNs; last >= firstEnd {
		t.Fatal("the last credit waited for the first response")
	}
}

func TestStopConditions(t *testing.T) {
	cases := []struct {
		name string
		plan sdk.PhasePlan
		want int
	}{
		{"count below schedule length", sdk.PhasePlan{Schedule: ms(0, 1, 2, 3, 4), RequestCount: 3}, 3},
		{"count above schedule length", sdk.PhasePlan{Schedule: ms(0, 1, 2), RequestCount: 10}, 3},
		{"duration cuts the schedule", sdk.PhasePlan{Schedule: ms(0, 10, 20, 300, 400), Duration: 100 * time.Millisecond, GracePeriod: -1}, 3},
	}
	for _, c := range cases {
		rec := &timingtest.Recorder{}
		run(t, context.Background(), c.plan, rec)
		if rec.Count() != c.want {
			t.Errorf("%s: %d credits, want %d", c.name, rec.Count(), c.want)
		}
	}
}

func TestConcurrencyCeiling(t *testing.T) {
	rec := &timingtest.Recorder{Delay: 10 * time.Millisecond}
	run(t, context.Background(), sdk.PhasePlan{Schedule: ms(0, 0, 0, 0, 0, 0, 0, 0, 0, 0), Concurrency: 2}, rec)
	if rec.Count() != 10 || rec.PeakInFlight() > 2 {
		t.Fatalf("%d credits with peak %d in flight; want 10 with at most 2", rec.Count(), rec.PeakInFlight())
	}
}

func TestCancelStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(30 * time.Millisecond); cancel() }()
	rec := &timingtest.Recorder{Delay: time.Minute}
	run(t, ctx, sdk.PhasePlan{Schedule: ms(0, 3_600_000)}, rec)
	sent := rec.Sent()
	if len(sent) != 1 || !errors.Is(sent[0].Cause, context.Canceled) {
		t.Fatalf("after cancel: %d credits, first cause %v; want 1 cancelled", len(sent), sent)
	}
}

func TestRejectsBadSchedule(t *testing.T) {
	cases := []struct {
		schedule []time.Duration
		want     string
	}{
		{nil, "empty"},
		{ms(0, -1), "entry 1 has a negative offset"},
		{ms(0, 10, 5), "entry 2 (offset 5ms) comes before entry 1"},
	}
	for _, c := range cases {
		err := New().Run(context.Background(), sdk.PhasePlan{Phase: "profiling", Schedule: c.schedule}, &timingtest.Recorder{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("schedule %v: error %v, want %q", c.schedule, err, c.want)
		}
	}
}
