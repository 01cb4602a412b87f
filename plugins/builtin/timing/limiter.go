package timing

import (
	"context"
	"sync"
)

// limiter is a counting semaphore whose limit can change while it is in use
// (a concurrency ramp raises it step by step). golang.org/x/sync/semaphore
// has a fixed size, hence this small one. Waiters are served in FIFO order.
// A nil *limiter is unlimited: every method is a no-op, so call sites need
// no branches for "no ceiling".
type limiter struct {
	mu      sync.Mutex
	limit   int
	inUse   int
	waiters []chan struct{} // FIFO; each has capacity 1
}

// newLimiter returns a limiter admitting limit holders at once.
func newLimiter(limit int) *limiter {
	return &limiter{limit: limit}
}

// waiterPool recycles waiter channels: a saturated ceiling blocks on every
// acquire, and a fresh channel each time would be a per-request allocation.
var waiterPool = sync.Pool{New: func() any { return make(chan struct{}, 1) }}

// Acquire takes one slot, blocking until one is free or ctx is done (then
// it returns ctx's error and holds nothing).
func (l *limiter) Acquire(ctx context.Context) error {
	if l == nil {
		return ctx.Err()
	}
	l.mu.Lock()
	if l.inUse < l.limit && len(l.waiters) == 0 {
		l.inUse++
		l.mu.Unlock()
		return nil
	}
	if err := ctx.Err(); err != nil {
		l.mu.Unlock()
		return err
	}
	ch := waiterPool.Get().(chan struct{})
	l.waiters = append(l.waiters, ch)
	l.mu.Unlock()

	select {
	case <-ch:
		waiterPool.Put(ch)
		return nil
	case <-ctx.Done():
		l.mu.Lock()
		if l.removeWaiter(ch) {
			l.mu.Unlock()
			waiterPool.Put(ch)
			return ctx.Err()
		}
		l.mu.Unlock()
		// The slot was granted while ctx ended: hand it on, since the
		// caller will not use it.
		<-ch
		waiterPool.Put(ch)
		l.Release()
		return ctx.Err()
	}
}

// removeWaiter drops ch from the queue; false when it was already granted.
func (l *limiter) removeWaiter(ch chan struct{}) bool {
	for i, w := range l.waiters {
		if w == ch {
			copy(l.waiters[i:], l.waiters[i+1:])
			l.waiters[len(l.waiters)-1] = nil
			l.waiters = l.waiters[:len(l.waiters)-1]
			return true
		}
	}
	return false
}

// Release returns one slot taken by Acquire.
func (l *limiter) Release() {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.inUse--
	if l.inUse < 0 {
		l.mu.Unlock()
		panic("timing: limiter released without an acquire")
	}
	l.grantLocked()
	l.mu.Unlock()
}

// SetLimit changes the number of slots. Raising it admits waiters at once;
// lowering it lets current holders finish and blocks new ones until the
// count drops below the new limit.
func (l *limiter) SetLimit(limit int) {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.limit = limit
	l.grantLocked()
	l.mu.Unlock()
}

// grantLocked hands free slots to the oldest waiters.
func (l *limiter) grantLocked() {
	for len(l.waiters) > 0 && l.inUse < l.limit {
		ch := l.waiters[0]
		l.waiters[0] = nil
		l.waiters = l.waiters[1:]
		l.inUse++
		ch <- struct{}{}
	}
}

// Limit reports the current limit (0 for a nil, unlimited limiter).
func (l *limiter) Limit() int {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.limit
}

// InUse reports how many slots are held.
func (l *limiter) InUse() int {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.inUse
}
