package app

import (
	"testing"

	"github.com/aiperf-go/aiperf/core/config"
	"github.com/aiperf-go/aiperf/core/validity"
)

// TestValidityExit checks --fail-on-client-limited against the gate's
// verdicts: too many failed requests outrank an invalid run, which outranks
// breached thresholds (exitcodes.go).
func TestValidityExit(t *testing.T) {
	tests := []struct {
		name    string
		flag    bool
		verdict string
		before  int
		want    int
	}{
		{"flag off", false, validity.ClientLimited, ExitOK, ExitOK},
		{"valid run", true, validity.Valid, ExitOK, ExitOK},
		{"client-limited", true, validity.ClientLimited, ExitOK, ExitInvalidRun},
		{"outranks thresholds", true, validity.ClientLimited, ExitThresholds, ExitInvalidRun},
		{"failed requests outrank it", true, validity.Invalid, ExitFailedRequests, ExitFailedRequests},
		{"an error is kept", true, validity.ClientLimited, ExitFailed, ExitFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &Runner{Settings: &Settings{Gate: GateSettings{FailOnClientLimited: tc.flag}}}
			out := &Outcome{ExitCode: tc.before, Validity: &validity.Report{Verdict: tc.verdict, Reasons: []string{"why"}}}
			r.validityExit(out)
			if out.ExitCode != tc.want {
				t.Errorf("exit %d, want %d", out.ExitCode, tc.want)
			}
			if tc.want == ExitInvalidRun && out.Verdict != "The run is CLIENT-LIMITED (--fail-on-client-limited): why." {
				t.Errorf("verdict %q", out.Verdict)
			}
		})
	}
}

func TestValidityTarget(t *testing.T) {
	tests := []struct {
		p    config.PhaseSettings
		want validity.Target
	}{
		{config.PhaseSettings{Mode: config.ModeRequestRate, Rate: 50, Concurrency: 8, RateRamp: 2e9, ConcurrencyRamp: 1e9},
			validity.Target{Mode: "request_rate", OpenLoop: true, Rate: 50, Concurrency: 8, Ramp: 2e9}},
		{config.PhaseSettings{Mode: config.ModeUserCentric, UserCentricRate: 4, NumUsers: 2},
			validity.Target{Mode: "user_centric_rate", OpenLoop: true, Rate: 4}},
		{config.PhaseSettings{Mode: config.ModeFixedSchedule},
			validity.Target{Mode: "fixed_schedule", OpenLoop: true}},
		{config.PhaseSettings{Mode: config.ModeConcurrency, Concurrency: 16, ConcurrencyRamp: 1e9, RateRamp: 2e9},
			validity.Target{Mode: "concurrency", Concurrency: 16, Ramp: 1e9}},
	}
	for _, tc := range tests {
		r := &Runner{Settings: &Settings{Profiling: tc.p}}
		if got := r.validityTarget(); got != tc.want {
			t.Errorf("%s: target %+v, want %+v", tc.p.Mode, got, tc.want)
		}
	}
}
