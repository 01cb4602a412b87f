package ramp

import (
	"testing"
	"time"
)

func TestProgress(t *testing.T) {
	cases := []struct {
		t, d     time.Duration
		wantP    float64
		wantDone bool
	}{
		{0, 10 * time.Second, 0, false},
		{-time.Second, 10 * time.Second, 0, false},
		{2500 * time.Millisecond, 10 * time.Second, 0.25, false},
		{5 * time.Second, 10 * time.Second, 0.5, false},
		{10 * time.Second, 10 * time.Second, 1, true},
		{11 * time.Second, 10 * time.Second, 1, true},
		{time.Second, 0, 1, true},
		{time.Second, -time.Second, 1, true},
	}
	for _, c := range cases {
		p, done := progress(c.t, c.d)
		if p != c.wantP || done != c.wantDone {
			t.Errorf("progress(%v, %v) = (%v, %v), want (%v, %v)", c.t, c.d, p, done, c.wantP, c.wantDone)
		}
	}
}
