package ramp

import (
	"testing"
	"time"
)

func TestLinearValue(t *testing.T) {
	const d = 8 * time.Second
	cases := []struct {
		name          string
		t, d          time.Duration
		start, target float64
		want          float64
	}{
		{"start", 0, d, 1, 101, 1},
		{"before start", -time.Second, d, 1, 101, 1},
		{"quarter", d / 4, d, 1, 101, 26},
		{"half", d / 2, d, 1, 101, 51},
		{"three quarters", 3 * d / 4, d, 1, 101, 76},
		{"end", d, d, 1, 101, 101},
		{"beyond", 3 * d, d, 1, 101, 101},
		{"rate ramp", d / 2, d, 0.5, 10.5, 5.5},
		{"downward", d / 4, d, 100, 20, 80},
		{"flat", d / 2, d, 7, 7, 7},
		{"zero duration", 0, 0, 1, 64, 64},
		{"negative duration", time.Second, -d, 1, 64, 64},
	}
	r := NewLinear()
	for _, c := range cases {
		if got := r.Value(c.t, c.d, c.start, c.target); got != c.want {
			t.Errorf("%s: Value(%v, %v, %v, %v) = %v, want %v", c.name, c.t, c.d, c.start, c.target, got, c.want)
		}
	}
}

func TestLinearMonotone(t *testing.T) {
	const d = 10 * time.Second
	r := NewLinear()
	prevUp, prevDown := r.Value(0, d, 1, 500), r.Value(0, d, 500, 1)
	for ts := time.Duration(0); ts <= d+time.Second; ts += 7 * time.Millisecond {
		up, down := r.Value(ts, d, 1, 500), r.Value(ts, d, 500, 1)
		if up < prevUp || down > prevDown {
			t.Fatalf("not monotone at %v: up %v after %v, down %v after %v", ts, up, prevUp, down, prevDown)
		}
		if up < 1 || up > 500 || down < 1 || down > 500 {
			t.Fatalf("out of [1,500] at %v: up %v down %v", ts, up, down)
		}
		prevUp, prevDown = up, down
	}
}

func BenchmarkLinearValue(b *testing.B) {
	r := NewLinear()
	b.ReportAllocs()
	var sink float64
	i := 0
	for b.Loop() {
		sink += r.Value(time.Duration(i%10_000)*time.Millisecond, 10*time.Second, 1, 1000)
		i++
	}
	_ = sink
}
