// Package gcpolicy is the garbage-collection policy of a timed run: Go's
// own proportional collector (GOGC=100) with a floor under the heap goal,
// and a soft memory limit inside a container.
//
// Why a floor: a run keeps little (records are columns of numbers, the
// per-request lines stream to disk), so with GOGC=100 alone the heap goal is
// a few MB and the collector runs several times a second, each cycle taking
// a core from the senders for a few milliseconds. Keeping the goal at least
// Floor above the live heap makes cycles rare at a fixed, small cost in
// memory; a run that keeps a lot (a million prompts) is collected at twice
// its live heap, exactly as Go's default. After the last response (Settle)
// nothing is timed any more, and summarizing and exporting collect tightly.
package gcpolicy

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// Floor is the minimum headroom of the heap goal over the live heap: at
// 5k req/s a run allocates ~40 MB/s, so collections come every 3 s or so
// (64 MiB measured a worse schedule-lag p99, docs/PERFORMANCE.md).
const Floor = 128 << 20

// The bounds of the GOGC the tuner sets: Go's default, and a cap that keeps
// a near-empty heap from asking for a goal of gigabytes.
const (
	minPercent = 100
	maxPercent = 10000
)

// Tuner applies the policy between Start and Stop. It is reusable: a
// sweep starts and stops it around each timed run, so datasets are built
// under Go's defaults.
type Tuner struct {
	mu      sync.Mutex
	started bool        // Start applied the policy; Stop restores
	watch   *cycleWatch // nil once settled
	percent int         // GOGC before Start
	limit   int64       // memory limit before Start
}

// SettledPercent is the GOGC after the timed run (Settle): summarizing and
// exporting have no schedule to keep, so the heap stays within a quarter
// of what they keep.
const SettledPercent = 25

// Start applies the policy, unless GOGC or GOMEMLIMIT is set in the
// environment (then the user's setting stands). Starting a started tuner
// does nothing.
func (t *Tuner) Start() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.started {
		return
	}
	t.started = true
	t.percent = debug.SetGCPercent(minPercent)
	t.limit = debug.SetMemoryLimit(-1)
	if limit := ContainerBudget(cgroupMemoryLimit()); limit > 0 {
		debug.SetMemoryLimit(limit)
	}
	var w *cycleWatch
	w = watchCycles(func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.watch == w { // not settled or stopped (and restored) meanwhile
			debug.SetGCPercent(Percent(liveHeap(), Floor))
		}
	})
	t.watch = w
	debug.SetGCPercent(Percent(liveHeap(), Floor))
}

// Settle ends the timed part of a started policy: the last request has
// ended, and the run's records are summarized and exported under
// SettledPercent until Stop. It does nothing unless started.
func (t *Tuner) Settle() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.started || t.watch == nil {
		return
	}
	t.watch.stop()
	t.watch = nil
	debug.SetGCPercent(SettledPercent)
}

// Stop restores the collector settings Start found. Stopping a stopped
// tuner does nothing.
func (t *Tuner) Stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.started {
		return
	}
	if t.watch != nil {
		t.watch.stop()
		t.watch = nil
	}
	t.started = false
	debug.SetGCPercent(t.percent)
	debug.SetMemoryLimit(t.limit)
}

// Percent is the GOGC that puts the next heap goal at max(2×live,
// live+floor): GOGC is the goal's growth over the live heap in percent.
func Percent(live, floor uint64) int {
	if live == 0 {
		return maxPercent
	}
	p := float64(floor) / float64(live) * 100
	return int(math.Max(minPercent, math.Min(maxPercent, math.Ceil(p))))
}

// ContainerBudget is the soft memory limit inside a container whose cgroup
// allows limit bytes (0: none): three quarters of it, the rest being stacks,
// buffers and plugin processes. Near it the collector works harder rather
// than let the kernel kill the run.
func ContainerBudget(limit uint64) int64 {
	if limit == 0 {
		return 0
	}
	return int64(limit - limit/4)
}

// liveHeap is the heap the last cycle marked live.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// cycleWatch calls fn after every garbage-collection cycle, from the
// finalizer of an object that is made unreachable again each time: the
// runtime has no other hook at the end of a cycle.
type cycleWatch struct {
	stopped atomic.Bool
}

// sentinel is the object whose finalizer runs once per cycle. It must be
// larger than the tiny-allocator size (16 bytes): tiny objects share a
// block and their finalizers may never run.
type sentinel struct {
	w  *cycleWatch
	fn func()
	_  [16]byte
}

func watchCycles(fn func()) *cycleWatch {
	w := &cycleWatch{}
	runtime.SetFinalizer(&sentinel{w: w, fn: fn}, onCycle)
	return w
}

func onCycle(s *sentinel) {
	if s.w.stopped.Load() {
		return
	}
	s.fn()
	runtime.SetFinalizer(s, onCycle) // resurrected: called again next cycle
}

func (w *cycleWatch) stop() { w.stopped.Store(true) }
