package main

import (
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
)

// A request count and a session count together are two stop conditions,
// the first reached ending the phase (AIPerf 0.13 accepts both): 2
// sessions of 3 turns stop at 6 requests under --request-count 8, and 4
// sessions of 3 turns stop at 8 under the same count.
func TestRequestCountAndSessionCountBothStop(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true})
	for _, c := range []struct {
		sessions string
		want     float64
	}{{"2", 6}, {"4", 8}} {
		r := profile(t, "-m", "m", "-u", url, "--request-count", "8", "--conversation-num", c.sessions,
			"--conversation-turn-mean", "3", "--isl", "8", "--osl", "4", "--concurrency", "2")
		if r.code != 0 {
			t.Fatalf("sessions %s: exit %d\n%s", c.sessions, r.code, r.stderr)
		}
		if got := r.mustMetric(t, "request_count"); *got.Avg != c.want {
			t.Errorf("sessions %s: request_count %v, want %v", c.sessions, *got.Avg, c.want)
		}
	}
}
