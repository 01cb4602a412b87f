package shardbarrier

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func startBarrier(t *testing.T, n int) string {
	t.Helper()
	s, err := Listen("127.0.0.1:0", n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return "http://" + s.Addr() + Path
}

// waitAll runs Wait for each shard of hashes at once and returns the
// answers and errors by shard.
func waitAll(url string, n int, hashes []string, indexes []int, timeout time.Duration) ([]Start, []error) {
	starts, errs := make([]Start, len(hashes)), make([]error, len(hashes))
	var wg sync.WaitGroup
	for i := range hashes {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			starts[i], errs[i] = Wait(context.Background(), url, indexes[i], n, hashes[i], timeout)
		}(i)
	}
	wg.Wait()
	return starts, errs
}

func TestBarrierReleasesEveryShardTogether(t *testing.T) {
	url := startBarrier(t, 3)
	starts, errs := waitAll(url, 3, []string{"h", "h", "h"}, []int{2, 0, 1}, 10*time.Second)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
	}
	for i, s := range starts {
		if s != starts[0] {
			t.Errorf("shard %d got %+v, shard 0 %+v: every shard must get the same start", i, s, starts[0])
		}
		if s.In != Lead || s.UnixNs == 0 {
			t.Errorf("start %+v, want In=%v and shard 0's wall time", s, Lead)
		}
	}
}

func TestBarrierFailsEveryShardOnAPlanMismatch(t *testing.T) {
	url := startBarrier(t, 3)
	_, errs := waitAll(url, 3, []string{"sha256:aaaa", "sha256:aaaa", "sha256:bbbb"}, []int{0, 1, 2}, 10*time.Second)
	failed := 0
	for i, err := range errs {
		if errors.Is(err, ErrPlanMismatch) {
			failed++
		} else if err != nil {
			t.Errorf("shard %d: %v, want a plan mismatch", i, err)
		}
	}
	// Whoever arrived first set the plan; the odd one out, and everyone
	// waiting with it, is told the run cannot start.
	if failed == 0 {
		t.Fatal("no shard was told the plans differ")
	}
}

func TestBarrierRejectsTwoShardsWithOneIndex(t *testing.T) {
	url := startBarrier(t, 2)
	_, errs := waitAll(url, 2, []string{"h", "h"}, []int{1, 1}, 10*time.Second)
	for i, err := range errs {
		if !errors.Is(err, ErrPlanMismatch) {
			t.Errorf("shard %d: %v, want the duplicate index refused", i, err)
		}
	}
}

func TestBarrierTimesOutWhenAShardNeverComes(t *testing.T) {
	url := startBarrier(t, 3)
	_, errs := waitAll(url, 3, []string{"h", "h"}, []int{0, 1}, 600*time.Millisecond)
	for i, err := range errs {
		if !errors.Is(err, ErrTimeout) {
			t.Errorf("shard %d: %v, want a barrier timeout", i, err)
		}
	}
}

func TestBarrierWaitsForAServerThatStartsLate(t *testing.T) {
	// Shard 1 knocks before shard 0 listens (a pod scheduled first).
	s, err := Listen("127.0.0.1:0", 2)
	if err != nil {
		t.Fatal(err)
	}
	addr := s.Addr()
	_ = s.Close()
	done := make(chan error, 1)
	go func() {
		_, err := Wait(context.Background(), "http://"+addr+Path, 1, 2, "h", 10*time.Second)
		done <- err
	}()
	time.Sleep(300 * time.Millisecond)
	s2, err := Listen(addr, 2)
	if err != nil {
		t.Fatalf("listen again on %s: %v", addr, err)
	}
	defer s2.Close()
	if _, err := Wait(context.Background(), "http://"+addr+Path, 0, 2, "h", 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the early shard: %v", err)
	}
}
