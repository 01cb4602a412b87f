// Package gaptest has the statistics the pattern tests share: draw a gap
// sequence from a real pattern and summarise it.
package gaptest

import (
	"math"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Draw returns n consecutive gaps at rate.
func Draw(p sdk.ArrivalPattern, rate float64, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = p.NextGap(rate)
	}
	return out
}

// MeanCV returns the mean gap in seconds and the coefficient of variation
// (population standard deviation / mean). Welford's update keeps it exact
// enough for 200k samples.
func MeanCV(gaps []time.Duration) (meanSec, cv float64) {
	var mean, m2 float64
	for i, g := range gaps {
		x := g.Seconds()
		d := x - mean
		mean += d / float64(i+1)
		m2 += d * (x - mean)
	}
	if len(gaps) == 0 || mean == 0 {
		return mean, 0
	}
	return mean, math.Sqrt(m2/float64(len(gaps))) / mean
}

// RelErr is |got-want|/want.
func RelErr(got, want float64) float64 { return math.Abs(got-want) / want }

// FractionBelow returns the share of gaps strictly below x seconds.
func FractionBelow(gaps []time.Duration, x float64) float64 {
	n := 0
	for _, g := range gaps {
		if g.Seconds() < x {
			n++
		}
	}
	return float64(n) / float64(len(gaps))
}

// Equal reports whether two gap sequences are identical.
func Equal(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
