package timing

import (
	"syscall"
	"time"
)

// preciseSleep blocks the calling thread in nanosleep(2), which wakes
// within the kernel's timer slack (~50 µs) instead of the whole
// milliseconds of the runtime's epoll-based timers. An interrupted sleep
// (EINTR from runtime preemption signals) simply returns early: the caller
// re-reads the clock and sleeps again.
func preciseSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	_ = syscall.Nanosleep(&ts, nil)
}
