package sample

import (
	"regexp"
	"testing"
)

func TestStreamsAreIndependentAndSeeded(t *testing.T) {
	a, b, c := NewStream(1, "x"), NewStream(1, "x"), NewStream(1, "y")
	x, y, z := a.Uint64(), b.Uint64(), c.Uint64()
	if x != y || x == z {
		t.Errorf("same seed and name must repeat, another name must differ: %d %d %d", x, y, z)
	}
}

func TestDraws(t *testing.T) {
	r := NewStream(7, "draws")
	for range 1000 {
		if v := Normal(r, 0, 1, 0.5); v < 0.5 {
			t.Fatalf("Normal below its lower bound: %v", v)
		}
		if n := PositiveNormalInt(r, 1, 5); n < 1 {
			t.Fatalf("PositiveNormalInt = %d, want >= 1", n)
		}
	}
	if n := PositiveNormalInt(r, 2.5, 0); n != 2 {
		t.Errorf("PositiveNormalInt(2.5, 0) = %d, want 2 (round half to even)", n)
	}
	if u := NewUUID(r); !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(u) {
		t.Errorf("NewUUID = %q, not a version 4 UUID", u)
	}
}
