package concurrency

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// recordingSender counts credits and the peak number in flight.
type recordingSender struct {
	mu       sync.Mutex
	indices  map[int]int
	inFlight atomic.Int64
	peak     atomic.Int64
	delay    time.Duration
}

func (r *recordingSender) Send(ctx context.Context, c sdk.Credit) {
	n := r.inFlight.Add(1)
	for {
		p := r.peak.Load()
		if n <= p || r.peak.CompareAndSwap(p, n) {
			break
		}
	}
	select {
	case <-time.After(r.delay):
	case <-ctx.Done():
	}
	r.mu.Lock()
	r.indices[c.Index]++
	r.mu.Unlock()
	r.inFlight.Add(-1)
}

func TestIssuesExactCountAtConcurrency(t *testing.T) {
	cases := []struct{ count, conc int }{{1, 1}, {10, 3}, {100, 8}, {5, 50}}
	for _, c := range cases {
		s := &recordingSender{indices: map[int]int{}, delay: time.Millisecond}
		if err := New().Run(context.Background(), sdk.PhasePlan{Phase: sdk.PhaseProfiling, RequestCount: c.count, Concurrency: c.conc}, s); err != nil {
			t.Fatal(err)
		}
		if len(s.indices) != c.count {
			t.Errorf("count=%d conc=%d: %d distinct credits", c.count, c.conc, len(s.indices))
		}
		for i := range c.count {
			if s.indices[i] != 1 {
				t.Errorf("credit %d issued %d times", i, s.indices[i])
			}
		}
		if peak := s.peak.Load(); peak > int64(c.conc) {
			t.Errorf("count=%d conc=%d: peak in flight %d", c.count, c.conc, peak)
		}
	}
}

func TestStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := &recordingSender{indices: map[int]int{}, delay: 5 * time.Millisecond}
	done := make(chan error)
	go func() { done <- New().Run(ctx, sdk.PhasePlan{Concurrency: 4}, s) }()
	time.Sleep(30 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("unbounded run did not stop after cancel")
	}
}

func TestRejectsBadPlan(t *testing.T) {
	for _, p := range []sdk.PhasePlan{{Concurrency: 0}, {Concurrency: 1, RequestCount: -1}} {
		if err := New().Run(context.Background(), p, &recordingSender{indices: map[int]int{}}); err == nil {
			t.Errorf("plan %+v accepted", p)
		}
	}
}
