package gcpolicy

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestPercentKeepsTheGoalAFloorAboveTheLiveHeap(t *testing.T) {
	const mib = 1 << 20
	cases := []struct {
		name        string
		live, floor uint64
		want        int
	}{
		{"small heap: the floor decides", 4 * mib, 64 * mib, 1600},
		{"heap equal to the floor: Go's default", 64 * mib, 64 * mib, 100},
		{"large heap: Go's default", 900 * mib, 64 * mib, 100},
		{"rounding up keeps at least the floor", 3 * mib, 64 * mib, 2134},
		{"near-empty heap: capped", 1024, 64 * mib, maxPercent},
		{"nothing measured yet", 0, 64 * mib, maxPercent},
	}
	for _, c := range cases {
		if got := Percent(c.live, c.floor); got != c.want {
			t.Errorf("%s: Percent(%d, %d) = %d, want %d", c.name, c.live, c.floor, got, c.want)
		}
	}
}

func TestContainerBudget(t *testing.T) {
	const gib = 1 << 30
	cases := []struct {
		limit uint64
		want  int64
	}{
		{0, 0},
		{2 * gib, 1536 << 20},
		{64 << 20, 48 << 20},
	}
	for _, c := range cases {
		if got := ContainerBudget(c.limit); got != c.want {
			t.Errorf("ContainerBudget(%d) = %d, want %d", c.limit, got, c.want)
		}
	}
}

func TestParseCgroupLimit(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		content string
		want    uint64
		ok      bool
	}{
		{"max\n", 0, true},
		{"2147483648\n", 2 << 30, true},
		{"9223372036854771712\n", 0, true}, // cgroup v1's "unlimited"
		{"garbage", 0, false},
	}
	for i, c := range cases {
		path := filepath.Join(dir, "memory.max")
		if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		got, ok := parseCgroupLimit(path)
		if got != c.want || ok != c.ok {
			t.Errorf("case %d %q: (%d, %v), want (%d, %v)", i, c.content, got, ok, c.want, c.ok)
		}
	}
	if _, ok := parseCgroupLimit(filepath.Join(dir, "absent")); ok {
		t.Error("a missing file parsed")
	}
}

// gogc reads the collector's current GOGC without changing it.
func gogc() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}

// waitFor collects until cond holds; the deadline only catches a tuner
// that never reacts (the finalizer runs on its own goroutine after a cycle).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: GOGC is %d", what, gogc())
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

var kept []byte

// The tuner follows the live heap cycle after cycle: Go's default while
// the run keeps more than the floor, a higher GOGC when it keeps little;
// Settle then holds SettledPercent, and Stop restores what was set before.
func TestTunerFollowsTheLiveHeapAndRestores(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetGCPercent(77)
	t.Cleanup(func() { debug.SetGCPercent(before) })

	var tuner Tuner
	tuner.Start()
	kept = make([]byte, Floor+32<<20) // live heap above the floor
	for i := range kept {
		kept[i] = byte(i)
	}
	waitFor(t, "with more than Floor live", func() bool { return gogc() == minPercent })
	kept = nil
	waitFor(t, "with the heap let go", func() bool { return gogc() > 4*minPercent })
	tuner.Settle()
	runtime.GC()
	runtime.GC()
	time.Sleep(20 * time.Millisecond)
	if got := gogc(); got != SettledPercent {
		t.Errorf("GOGC after Settle = %d, want %d, and the cycle watch stopped", got, SettledPercent)
	}
	tuner.Stop()
	if got := gogc(); got != 77 {
		t.Errorf("GOGC after Stop = %d, want the 77 set before Start", got)
	}
	runtime.GC()
	runtime.GC()
	time.Sleep(20 * time.Millisecond)
	if got := gogc(); got != 77 {
		t.Errorf("GOGC changed to %d after Stop: the cycle watch still runs", got)
	}
}

func TestTunerLeavesTheUsersSettingAlone(t *testing.T) {
	t.Setenv("GOGC", "150")
	before := debug.SetGCPercent(123)
	t.Cleanup(func() { debug.SetGCPercent(before) })
	var tuner Tuner
	tuner.Start()
	runtime.GC()
	defer tuner.Stop()
	if got := gogc(); got != 123 {
		t.Errorf("GOGC = %d despite GOGC in the environment, want 123 untouched", got)
	}
}
