//go:build unix

package validity

import (
	"syscall"
	"time"
)

// processCPU is this process's user+system CPU time so far (getrusage
// RUSAGE_SELF: every thread, so an in-process server counts too).
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
