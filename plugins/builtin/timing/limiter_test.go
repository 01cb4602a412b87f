package timing

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestLimiterNeverExceedsLimit(t *testing.T) {
	cases := []struct{ limit, goroutines, rounds int }{{1, 4, 50}, {3, 10, 50}, {8, 8, 20}, {16, 64, 10}}
	for _, c := range cases {
		l := newLimiter(c.limit)
		var cur, peak, total atomic.Int64
		var wg sync.WaitGroup
		for range c.goroutines {
			wg.Go(func() {
				for range c.rounds {
					if err := l.Acquire(context.Background()); err != nil {
						t.Error(err)
						return
					}
					n := cur.Add(1)
					for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
					}
					time.Sleep(10 * time.Microsecond)
					cur.Add(-1)
					total.Add(1)
					l.Release()
				}
			})
		}
		wg.Wait()
		if got := peak.Load(); got > int64(c.limit) {
			t.Errorf("limit %d: peak holders %d", c.limit, got)
		}
		if got, want := total.Load(), int64(c.goroutines*c.rounds); got != want {
			t.Errorf("limit %d: %d acquisitions, want %d", c.limit, got, want)
		}
		if l.InUse() != 0 {
			t.Errorf("limit %d: %d slots still held", c.limit, l.InUse())
		}
	}
}

// acquireAsync starts an Acquire and returns a channel with its result.
func acquireAsync(ctx context.Context, l *limiter) chan error {
	ch := make(chan error, 1)
	go func() { ch <- l.Acquire(ctx) }()
	return ch
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func queued(l *limiter) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.waiters)
}

func TestLimiterAcquireHonoursContext(t *testing.T) {
	l := newLimiter(1)
	if err := l.Acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.Acquire(done); !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire on a cancelled ctx = %v, want context.Canceled", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	res := acquireAsync(ctx, l)
	waitFor(t, "waiter queued", func() bool { return queued(l) == 1 })
	cancel()
	if err := <-res; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled waiter got %v", err)
	}
	if queued(l) != 0 || l.InUse() != 1 {
		t.Fatalf("after cancel: %d queued, %d in use; want 0, 1", queued(l), l.InUse())
	}
	l.Release()
	if l.InUse() != 0 {
		t.Fatalf("in use after release: %d", l.InUse())
	}
}

func TestLimiterSetLimitRaisesAndLowers(t *testing.T) {
	l := newLimiter(1)
	_ = l.Acquire(context.Background())
	var results []chan error
	for range 3 {
		results = append(results, acquireAsync(context.Background(), l))
	}
	waitFor(t, "3 waiters", func() bool { return queued(l) == 3 })
	l.SetLimit(4)
	for i, r := range results {
		if err := <-r; err != nil {
			t.Fatalf("waiter %d: %v", i, err)
		}
	}
	if got := l.InUse(); got != 4 {
		t.Fatalf("in use after raising to 4: %d", got)
	}
	// Lower to 2: holders keep their slots; a new waiter needs the count to
	// fall below 2 first.
	l.SetLimit(2)
	res := acquireAsync(context.Background(), l)
	waitFor(t, "waiter queued", func() bool { return queued(l) == 1 })
	l.Release()
	l.Release()
	if queued(l) != 1 {
		t.Fatal("waiter admitted while 2 slots were held at limit 2")
	}
	l.Release()
	if err := <-res; err != nil {
		t.Fatal(err)
	}
	if got := l.InUse(); got != 2 {
		t.Fatalf("in use: %d, want 2", got)
	}
}

func TestLimiterServesWaitersInOrder(t *testing.T) {
	l := newLimiter(1)
	_ = l.Acquire(context.Background())
	order := make(chan int, 5)
	for i := range 5 {
		go func() {
			_ = l.Acquire(context.Background())
			order <- i
		}()
		waitFor(t, "waiter queued", func() bool { return queued(l) == i+1 })
	}
	for want := range 5 {
		l.Release()
		if got := <-order; got != want {
			t.Fatalf("waiter %d admitted, want %d", got, want)
		}
	}
}

func TestNilLimiterIsUnlimited(t *testing.T) {
	var l *limiter
	for range 1000 {
		if err := l.Acquire(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	l.Release()
	l.SetLimit(3)
	if l.Limit() != 0 || l.InUse() != 0 {
		t.Fatalf("nil limiter reports limit %d, in use %d", l.Limit(), l.InUse())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.Acquire(ctx); err == nil {
		t.Fatal("nil limiter ignored a cancelled ctx")
	}
}

func BenchmarkLimiterAcquireRelease(b *testing.B) {
	l := newLimiter(1 << 20)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_ = l.Acquire(ctx)
		l.Release()
	}
}

// BenchmarkLimiterContended measures the blocking path: more goroutines
// than slots, so most acquires queue and are handed a slot by a release.
func BenchmarkLimiterContended(b *testing.B) {
	l := newLimiter(2)
	ctx := context.Background()
	b.ReportAllocs()
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_ = l.Acquire(ctx)
			l.Release()
		}
	})
}
