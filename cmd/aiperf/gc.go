package main

import (
	"os"
	"runtime/debug"
)

// gcMemoryFraction is the share of physical memory the profile command may
// use before the garbage collector runs.
const (
	gcMemoryFraction = 4 // 1/4 of RAM
	gcMemoryCap      = 8 << 30
	gcMemoryFloor    = 512 << 20
)

// tuneGC trades memory for timing precision during `aiperf profile`: with
// the default GOGC the collector's mark phase and assists delay scheduled
// sends by milliseconds on small machines (measured: schedule-lag p99 5.2 ms
// at 5k req/s vs 0.84 ms without). Collection is left to a soft memory limit
// instead. GOGC or GOMEMLIMIT in the environment disable this.
func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	limit := int64(physicalMemory() / gcMemoryFraction)
	if limit <= 0 {
		debug.SetGCPercent(400)
		return
	}
	debug.SetMemoryLimit(min(max(limit, gcMemoryFloor), gcMemoryCap))
	debug.SetGCPercent(-1)
}
