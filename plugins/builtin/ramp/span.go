package ramp

import "time"

// progress holds the edge rules every ramp shares, so the shapes only deal
// with the open interval 0 < t < d. It returns t/d in [0,1) for a ramp
// still running, or done=true when the ramp has ended (t >= d) or has no
// length (d <= 0), in which case the value is the target. t <= 0 gives
// progress 0 (the start value).
func progress(t, d time.Duration) (p float64, done bool) {
	if d <= 0 || t >= d {
		return 1, true
	}
	if t <= 0 {
		return 0, false
	}
	return float64(t) / float64(d), false
}
