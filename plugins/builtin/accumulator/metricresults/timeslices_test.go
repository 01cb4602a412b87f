package metricresults

import (
	"context"
	"math"
	"testing"

	"github.com/aiperf-go/aiperf/core/metrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// slicedRun is newRun for an instance serving phase with the given
// settings (JSON, decoded as the host does).
func slicedRun(t *testing.T, phase, settings string) *run {
	t.Helper()
	a := New()
	if err := sdk.DecodeConfig([]byte(settings), a.PluginConfig()); err != nil {
		t.Fatal(err)
	}
	served := info
	served.Phase = phase
	if err := a.Init(context.Background(), served); err != nil {
		t.Fatal(err)
	}
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	return withMetrics(t, a, info)
}

// slice_duration (--slice-duration) makes the profiling instance's results
// carry the timeslices; without it, or on the warmup instance, there are
// none.
func TestSliceDurationSetting(t *testing.T) {
	cases := []struct {
		name, phase, settings string
		slices                int
	}{
		{"1 s slices", "", `{"slice_duration": 1}`, 2},
		{"one slice for the whole run", sdk.PhaseProfiling, `{"slice_duration": 60}`, 1},
		{"no setting", "", ``, 0},
		{"warmup instance", sdk.PhaseWarmup, `{"slice_duration": 1}`, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := slicedRun(t, tc.phase, tc.settings)
			// Requests at 1 s and 2.75 s: two slices of 1 s, one of 60 s.
			r.add(record(1_000_000_000, 100_000_000, 300), record(2_750_000_000, 250_000_000, 500))
			res := r.results()
			if len(res.Timeslices) != tc.slices {
				t.Fatalf("%d timeslices, want %d", len(res.Timeslices), tc.slices)
			}
			if tc.slices == 2 {
				s := res.Timeslices[1]
				if m, ok := s.Metric(metrics.TagRequestCount); s.StartNs != 2_000_000_000 || !ok || *m.Avg != 1 {
					t.Errorf("slice 1 starts at %d with request_count %+v, want 2 s and 1", s.StartNs, m)
				}
			}
		})
	}
}

// A slice duration that is not a positive number of whole nanoseconds is
// refused before the run starts.
func TestSliceDurationValidation(t *testing.T) {
	for _, sec := range []float64{-1, math.NaN(), math.Inf(1), 1e-10, 1e12} {
		a := New()
		a.settings.SliceDuration = sec
		if err := a.Validate(); err == nil {
			t.Errorf("slice_duration %v accepted", sec)
		}
	}
	for _, sec := range []float64{0, 1e-9, 0.05, 3600} {
		a := New()
		a.settings.SliceDuration = sec
		if err := a.Validate(); err != nil {
			t.Errorf("slice_duration %v: %v", sec, err)
		}
	}
}
