package timing

import (
	"context"
	"errors"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/timing/timingtest"
)

func runFixedSchedule(t *testing.T, ctx context.Context, plan sdk.PhasePlan, rec sdk.CreditSender) {
	t.Helper()
	runStrategy(t, ctx, NewFixedSchedule(), plan, rec)
}

func ms(v ...int) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x) * time.Millisecond
	}
	return out
}

func TestFixedScheduleFiresAtOffsetsInOrder(t *testing.T) {
	offsets := ms(0, 5, 5, 20, 50, 80)
	rec := &timingtest.Recorder{Delay: time.Millisecond}
	runFixedSchedule(t, context.Background(), sdk.PhasePlan{Schedule: offsets}, rec)
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

func TestFixedScheduleIgnoresResponses(t *testing.T) {
	// Each request outlasts the whole schedule: open loop fires them all
	// before the first completes.
	rec := &timingtest.Recorder{Delay: 300 * time.Millisecond}
	runFixedSchedule(t, context.Background(), sdk.PhasePlan{Schedule: ms(0, 10, 20, 30)}, rec)
	sent := rec.Sent()
	if len(sent) != 4 {
		t.Fatalf("%d credits, want 4", len(sent))
	}
	if last, firstEnd := sent[3].Credit.IssuedNs, sent[0].EndNs; last >= firstEnd {
		t.Fatal("the last credit waited for the first response")
	}
}

func TestFixedScheduleStopConditions(t *testing.T) {
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
		runFixedSchedule(t, context.Background(), c.plan, rec)
		if rec.Count() != c.want {
			t.Errorf("%s: %d credits, want %d", c.name, rec.Count(), c.want)
		}
	}
}

func TestFixedScheduleConcurrencyCeiling(t *testing.T) {
	rec := &timingtest.Recorder{Delay: 10 * time.Millisecond}
	runFixedSchedule(t, context.Background(), sdk.PhasePlan{Schedule: ms(0, 0, 0, 0, 0, 0, 0, 0, 0, 0), Concurrency: 2}, rec)
	if rec.Count() != 10 || rec.PeakInFlight() > 2 {
		t.Fatalf("%d credits with peak %d in flight; want 10 with at most 2", rec.Count(), rec.PeakInFlight())
	}
}

func TestFixedScheduleCancelStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(30 * time.Millisecond); cancel() }()
	rec := &timingtest.Recorder{Delay: time.Minute}
	runFixedSchedule(t, ctx, sdk.PhasePlan{Schedule: ms(0, 3_600_000)}, rec)
	sent := rec.Sent()
	if len(sent) != 1 || !errors.Is(sent[0].Cause, context.Canceled) {
		t.Fatalf("after cancel: %d credits, first cause %v; want 1 cancelled", len(sent), sent)
	}
}

func TestFixedScheduleRejectsBadSchedule(t *testing.T) {
	cases := []struct {
		schedule []time.Duration
		want     string
	}{
		{nil, "empty"},
		{ms(0, -1), "entry 1 has a negative offset"},
		{ms(0, 10, 5), "entry 2 (offset 5ms) comes before entry 1"},
	}
	for _, c := range cases {
		err := NewFixedSchedule().Run(context.Background(), sdk.PhasePlan{Phase: "profiling", Schedule: c.schedule}, &timingtest.Recorder{})
		wantNamed(t, err, FixedSchedule, c.want)
	}
	// Plan errors found when the phase starts are named the same way.
	err := NewFixedSchedule().Run(context.Background(), sdk.PhasePlan{Schedule: ms(0), Duration: -time.Second}, &timingtest.Recorder{})
	wantNamed(t, err, FixedSchedule, "duration")
}
