// Package burst is the "concurrency_burst" arrival pattern: every gap is
// zero, so throughput is bounded only by the concurrency ceiling.
package burst

import (
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Name is the plugin name (the pattern of concurrency-only runs).
const Name = "concurrency_burst"

// Pattern implements sdk.ArrivalPattern.
type Pattern struct{}

var _ sdk.ArrivalPattern = (*Pattern)(nil)

// New returns the pattern.
func New() *Pattern { return &Pattern{} }

// Init accepts any options: a zero gap needs none.
func (*Pattern) Init(sdk.ArrivalOptions) error { return nil }

// NextGap is always 0, whatever the rate.
func (*Pattern) NextGap(float64) time.Duration { return 0 }
