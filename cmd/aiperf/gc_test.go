package main

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestTuneGCUsesASoftMemoryLimit(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	oldPct := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(oldPct); debug.SetMemoryLimit(oldLimit) })

	tuneGC()
	limit := debug.SetMemoryLimit(-1) // -1 reads without changing
	if physicalMemory() == 0 {
		if pct := debug.SetGCPercent(100); pct != 400 {
			t.Errorf("GOGC = %d without a known RAM size, want 400", pct)
		}
		return
	}
	if want := memoryBudget(physicalMemory(), cgroupMemoryLimit()); limit != want || limit > gcMemoryCap {
		t.Errorf("memory limit %d, want %d (at most %d)", limit, want, gcMemoryCap)
	}
	if pct := debug.SetGCPercent(100); pct != -1 {
		t.Errorf("GOGC = %d, want off (-1) under the memory limit", pct)
	}
}

func TestTuneGCRespectsTheEnvironment(t *testing.T) {
	t.Setenv("GOGC", "150")
	old := debug.SetGCPercent(123)
	t.Cleanup(func() { debug.SetGCPercent(old) })
	tuneGC()
	if pct := debug.SetGCPercent(old); pct != 123 {
		t.Errorf("tuneGC changed GOGC to %d despite GOGC in the environment", pct)
	}
}

func TestMemoryBudget(t *testing.T) {
	const gib = 1 << 30
	cases := []struct {
		name        string
		ram, cgroup uint64
		want        int64
	}{
		{"quarter of a small host", 24 * gib, 0, 6 * gib},
		{"capped on a big host", 256 * gib, 0, 8 * gib},
		{"a pod limit below the host share", 64 * gib, 2 * gib, 1536 << 20},
		{"a tiny pod", 64 * gib, 64 << 20, 48 << 20},
		{"cgroup only", 0, 4 * gib, 3 * gib},
		{"nothing known", 0, 0, 0},
	}
	for _, c := range cases {
		if got := memoryBudget(c.ram, c.cgroup); got != c.want {
			t.Errorf("%s: memoryBudget(%d, %d) = %d, want %d", c.name, c.ram, c.cgroup, got, c.want)
		}
	}
}
