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
	if limit < gcMemoryFloor || limit > gcMemoryCap {
		t.Errorf("memory limit %d outside [%d, %d]", limit, gcMemoryFloor, gcMemoryCap)
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
