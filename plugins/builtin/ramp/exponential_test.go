package ramp

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestExponentialValue(t *testing.T) {
	const d = 8 * time.Second
	cases := []struct {
		name          string
		t, d          time.Duration
		start, target float64
		want          float64
	}{
		{"start", 0, d, 1, 101, 1},
		{"before start", -time.Second, d, 1, 101, 1},
		{"quarter", d / 4, d, 1, 101, 1 + 100.0/16},
		{"half", d / 2, d, 1, 101, 26},
		{"three quarters", 3 * d / 4, d, 1, 101, 1 + 100*9.0/16},
		{"end", d, d, 1, 101, 101},
		{"beyond", 2 * d, d, 1, 101, 101},
		{"downward half", d / 2, d, 100, 20, 80},
		{"flat", d / 2, d, 7, 7, 7},
		{"zero duration", time.Second, 0, 1, 64, 64},
	}
	r := NewExponential()
	for _, c := range cases {
		if got := r.Value(c.t, c.d, c.start, c.target); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: Value(%v, %v, %v, %v) = %v, want %v", c.name, c.t, c.d, c.start, c.target, got, c.want)
		}
	}
}

func TestExponentialCustomExponent(t *testing.T) {
	r, err := NewExponentialWithExponent(3)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Value(5*time.Second, 10*time.Second, 0, 80); math.Abs(got-10) > 1e-12 {
		t.Errorf("exponent 3 at half: %v, want 10", got)
	}
	var zero ExponentialRamp // the zero value behaves like NewExponential()
	if got := zero.Value(5*time.Second, 10*time.Second, 0, 80); got != 20 {
		t.Errorf("zero-value ramp at half: %v, want 20", got)
	}
}

func TestNewExponentialWithExponentRejects(t *testing.T) {
	for _, e := range []float64{1, 0.5, 0, -2, math.NaN(), math.Inf(1)} {
		r, err := NewExponentialWithExponent(e)
		if err == nil || r != nil {
			t.Errorf("exponent %v: got (%v, %v), want an error", e, r, err)
			continue
		}
		if !strings.Contains(err.Error(), "exponent") {
			t.Errorf("exponent %v: error %q does not name the option", e, err)
		}
	}
}

func TestExponentialMonotoneAndBelowLinear(t *testing.T) {
	const d = 10 * time.Second
	r := NewExponential()
	prev := r.Value(0, d, 1, 500)
	for ts := time.Duration(0); ts <= d+time.Second; ts += 7 * time.Millisecond {
		v := r.Value(ts, d, 1, 500)
		if v < prev {
			t.Fatalf("not monotone at %v: %v after %v", ts, v, prev)
		}
		// Ease-in never runs ahead of the linear ramp.
		if lin := 1 + 499*min(1, float64(ts)/float64(d)); v > lin+1e-9 {
			t.Fatalf("ahead of linear at %v: %v > %v", ts, v, lin)
		}
		prev = v
	}
}

func BenchmarkExponentialValue(b *testing.B) {
	r := NewExponential()
	b.ReportAllocs()
	var sink float64
	i := 0
	for b.Loop() {
		sink += r.Value(time.Duration(i%10_000)*time.Millisecond, 10*time.Second, 1, 1000)
		i++
	}
	_ = sink
}
