package noneui

import (
	"context"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

type countingSource struct{ calls int }

func (c *countingSource) Snapshot() sdk.ProgressSnapshot { c.calls++; return sdk.ProgressSnapshot{} }

func TestNeverPolls(t *testing.T) {
	src := &countingSource{}
	u := New()
	u.Start(context.Background(), src)
	u.Stop()
	u.Stop()
	if src.calls != 0 {
		t.Fatalf("headless UI polled the source %d times", src.calls)
	}
}
