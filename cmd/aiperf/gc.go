package main

import (
	"os"
	"runtime/debug"
)

// Memory budget of `aiperf profile` before the garbage collector runs.
const (
	gcHostFraction = 4        // at most 1/4 of the host's RAM
	gcMemoryCap    = 8 << 30  // and never more than 8 GiB
	gcMemoryFloor  = 64 << 20 // below this the GC is left alone
)

// tuneGC trades memory for timing precision during the timed run of
// `aiperf profile` (it runs once the dataset is built): with
// the default GOGC the collector's mark phase and assists delay scheduled
// sends by milliseconds on small machines (measured: schedule-lag p99 5.2 ms
// at 5k req/s vs 0.68 ms without). Collection is left to a soft memory
// limit instead, sized to the host and to the container's memory limit
// (cgroup), so aiperf is not OOM-killed in a pod. GOGC or GOMEMLIMIT in the
// environment disable this.
func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	limit := memoryBudget(physicalMemory(), cgroupMemoryLimit())
	if limit < gcMemoryFloor {
		debug.SetGCPercent(400)
		return
	}
	debug.SetMemoryLimit(limit)
	debug.SetGCPercent(-1)
}

// memoryBudget is the soft memory limit for a host with ram bytes and a
// cgroup limit (0 when none or unknown).
func memoryBudget(ram, cgroup uint64) int64 {
	limit := uint64(gcMemoryCap)
	if ram > 0 {
		limit = min(limit, ram/gcHostFraction)
	} else if cgroup == 0 {
		return 0 // nothing known about the machine
	}
	if cgroup > 0 {
		// 3/4 of a container's limit: the rest is stacks, buffers, plugins.
		limit = min(limit, cgroup-cgroup/4)
	}
	return int64(limit)
}
