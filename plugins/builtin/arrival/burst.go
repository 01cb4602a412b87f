package arrival

import (
	"context"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Burst is the plugin name of the pattern of concurrency-only runs: every
// gap is zero, so throughput is bounded only by the concurrency ceiling.
const Burst = "concurrency_burst"

// BurstPattern implements sdk.ArrivalPattern. It has no state.
type BurstPattern struct{}

var (
	_ sdk.ArrivalPattern = (*BurstPattern)(nil)
	_ sdk.Initializer    = (*BurstPattern)(nil)
)

// NewBurst returns the pattern.
func NewBurst() *BurstPattern { return &BurstPattern{} }

// Init does nothing: a zero gap needs no seed. It exists so every pattern
// has the same lifecycle.
func (*BurstPattern) Init(context.Context, sdk.RunInfo) error { return nil }

// NextGap is always 0, whatever the rate.
func (*BurstPattern) NextGap(float64) time.Duration { return 0 }
