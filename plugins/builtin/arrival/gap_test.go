package arrival

import (
	"math"
	"testing"
	"time"
)

func TestQuantizerCarriesRemainder(t *testing.T) {
	cases := []struct {
		name string
		sec  float64
		n    int
	}{
		{"third of a second", 1.0 / 3, 1_000_000},
		{"7 rps", 1.0 / 7, 700_000},
		{"sub-ns gap", 0.3e-9, 1000},
		{"20k rps", 1.0 / 20000, 1_000_000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var q quantizer
			var sum time.Duration
			for range c.n {
				sum += q.seconds(c.sec)
			}
			exact := c.sec * 1e9 * float64(c.n)
			if d := math.Abs(float64(sum) - exact); d > 1 {
				t.Fatalf("sum of %d gaps = %d ns, exact %.3f ns (off by %.3f ns)", c.n, sum, exact, d)
			}
		})
	}
}

func TestQuantizerEdgeInputs(t *testing.T) {
	cases := []struct {
		name string
		sec  float64
		want time.Duration
	}{
		{"zero", 0, 0},
		{"negative", -1, 0},
		{"NaN", math.NaN(), 0},
		{"one ms", 0.001, time.Millisecond},
		{"huge", 1e12, MaxGap},
		{"+Inf", math.Inf(1), MaxGap},
	}
	for _, c := range cases {
		var q quantizer
		if got := q.seconds(c.sec); got != c.want {
			t.Errorf("%s: seconds(%v) = %v, want %v", c.name, c.sec, got, c.want)
		}
	}
}

func TestQuantizerNeverNegative(t *testing.T) {
	var q quantizer
	q.residualNs = -0.5
	if got := q.seconds(0); got != 0 {
		t.Fatalf("got %v, want 0", got)
	}
}

func TestNewRandDeterministic(t *testing.T) {
	a, b, c := newRand(42), newRand(42), newRand(43)
	same, diff := true, false
	for range 100 {
		x, y, z := a.Uint64(), b.Uint64(), c.Uint64()
		same = same && x == y
		diff = diff || x != z
	}
	if !same {
		t.Error("seed 42 gave two different sequences")
	}
	if !diff {
		t.Error("seeds 42 and 43 gave the same sequence")
	}
}
