package timing

import (
	"context"
	"strings"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// runStrategy runs one phase of s to completion, failing the test when Run
// errs or hangs.
func runStrategy(t *testing.T, ctx context.Context, s sdk.TimingStrategy, plan sdk.PhasePlan, rec sdk.CreditSender) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, plan, rec) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return")
	}
}

// wantNamed fails unless err names the strategy as its plugin
// (timing_strategy.<name>: ...) and mentions want.
func wantNamed(t *testing.T, err error, name, want string) {
	t.Helper()
	if err == nil {
		t.Errorf("no error, want one naming timing_strategy.%s and %q", name, want)
		return
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "timing_strategy."+name+": ") || !strings.Contains(msg, want) {
		t.Errorf("error %q, want one starting timing_strategy.%s: and naming %q", msg, name, want)
	}
}
