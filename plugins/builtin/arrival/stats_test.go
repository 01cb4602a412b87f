package arrival

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// The statistics the pattern tests share: draw a gap sequence from a real
// pattern and summarise it.

// initialized returns p after Init with seed, failing the test on error.
func initialized[P interface {
	sdk.ArrivalPattern
	sdk.Initializer
}](t testing.TB, p P, seed int64) P {
	t.Helper()
	if err := p.Init(context.Background(), sdk.RunInfo{Seed: seed}); err != nil {
		t.Fatal(err)
	}
	return p
}

// draw returns n consecutive gaps at rate.
func draw(p sdk.ArrivalPattern, rate float64, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = p.NextGap(rate)
	}
	return out
}

// meanCV returns the mean gap in seconds and the coefficient of variation
// (population standard deviation / mean). Welford's update keeps it exact
// enough for 200k samples.
func meanCV(gaps []time.Duration) (meanSec, cv float64) {
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

// relErr is |got-want|/want.
func relErr(got, want float64) float64 { return math.Abs(got-want) / want }

// fractionBelow returns the share of gaps strictly below x seconds.
func fractionBelow(gaps []time.Duration, x float64) float64 {
	n := 0
	for _, g := range gaps {
		if g.Seconds() < x {
			n++
		}
	}
	return float64(n) / float64(len(gaps))
}

var equal = slices.Equal[[]time.Duration]
