package clock

import (
	"context"
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

func TestSleepReportsWhetherItElapsed(t *testing.T) {
	if !Sleep(context.Background(), time.Millisecond) {
		t.Error("Sleep with a live context reported it was cut short")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if Sleep(ctx, time.Hour) {
		t.Error("Sleep on a cancelled context reported the hour elapsed")
	}
}
