// Package clock is the single time base of a run. Every latency is a
// difference of Now() readings (monotonic, immune to wall-clock steps); wall
// time is derived from one anchor taken at process start, so perf and wall
// timestamps can be converted without mixing clocks.
package clock

import (
	"context"
	"sync/atomic"
	"time"
)

var (
	base     = time.Now()
	baseWall atomic.Int64
)

func init() { baseWall.Store(base.UnixNano()) }

// Now returns monotonic nanoseconds since process start.
func Now() int64 { return int64(time.Since(base)) }

// WallNs converts a Now() reading to epoch nanoseconds.
func WallNs(perfNs int64) int64 { return baseWall.Load() + perfNs }

// PerfNs converts epoch nanoseconds to the Now() time base.
func PerfNs(wallNs int64) int64 { return wallNs - baseWall.Load() }

// AlignWall puts the Now() reading perfNs at epoch wallNs from here on: a
// shard of a sharded run places its wall times on shard 0's clock at the
// common start (core/shardbarrier), so the merged records share one time
// axis whatever the hosts' clock skew. Latencies, differences of Now(),
// are unaffected. Call it before anything is recorded.
func AlignWall(perfNs, wallNs int64) { baseWall.Store(wallNs - perfNs) }

// Sleep waits d unless ctx ends first; it reports whether d elapsed. The
// one cancellable sleep of the engine, the transport's job polling and
// the CLI's cooldowns.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
