package urlselection

import sdk "github.com/aiperf-go/aiperf/plugin-sdk"

// RoundRobin is the plugin name (--url-strategy round_robin), AIPerf's
// default.
const RoundRobin = "round_robin"

// RoundRobinStrategy sends the session of credit i to URL i mod n. Keying on
// the credit index, not on a counter, keeps the assignment the same whatever
// order the sending goroutines run in. It is stateless and safe for
// concurrent use.
type RoundRobinStrategy struct{}

var _ sdk.URLSelectionStrategy = (*RoundRobinStrategy)(nil)

// NewRoundRobin returns the round-robin strategy.
func NewRoundRobin() *RoundRobinStrategy { return &RoundRobinStrategy{} }

// Pick implements sdk.URLSelectionStrategy.
func (*RoundRobinStrategy) Pick(credit, urls int) int {
	if urls <= 1 {
		return 0
	}
	i := credit % urls
	if i < 0 {
		i += urls
	}
	return i
}
