package clock

import (
	"testing"
	"time"
)

func TestNowIsMonotonicAndConvertible(t *testing.T) {
	a := Now()
	b := Now()
	if b < a {
		t.Fatalf("Now went backwards: %d then %d", a, b)
	}
	if got := PerfNs(WallNs(a)); got != a {
		t.Fatalf("PerfNs(WallNs(%d)) = %d", a, got)
	}
	// The wall conversion must land near the real wall clock (within a minute
	// is enough to catch a wrong unit or anchor).
	if d := time.Duration(WallNs(Now()) - time.Now().UnixNano()); d > time.Minute || d < -time.Minute {
		t.Fatalf("WallNs is %v away from time.Now()", d)
	}
}
