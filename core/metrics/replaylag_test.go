package metrics

import (
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// AIPerf's replay send-lag family: anchored at the least-late request,
// numpy's linear percentiles in ms, degraded when p99 > 500 ms, count 1,
// only in fixed-schedule runs and only over scheduled successful requests.
func TestReplaySchedLag(t *testing.T) {
	// Send offsets (actual − intended), ms: the least-late one anchors.
	lateMs := []float64{2, 3, 4, 12, 102}
	cases := []struct {
		name     string
		fixed    bool
		extraMs  float64 // one more offset
		want     map[string]float64
		noValues bool
	}{
		// anchored 0,1,2,10,100: p50 2, p90 0.6·100+0.4·10 = 64, p99 0.96·100+0.04·10 = 96.4
		{"on time", true, 0, map[string]float64{TagReplaySchedLagP50: 2, TagReplaySchedLagP90: 64,
			TagReplaySchedLagP99: 96.4, TagReplaySchedDegraded: 0}, false},
		// anchored 0,1,2,10,100,900: p99 = 100 + 0.95·800 = 860 > 500
		{"degraded", true, 902, map[string]float64{TagReplaySchedLagP50: 6, TagReplaySchedDegraded: 1}, false},
		{"not a replay", false, 0, nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			info := streamingInfo()
			info.FixedSchedule = tc.fixed
			acc, err := NewAccumulator(newCatalog(t, info), info)
			if err != nil {
				t.Fatal(err)
			}
			offsets := append([]float64(nil), lateMs...)
			if tc.extraMs > 0 {
				offsets = append(offsets, tc.extraMs)
			}
			for i, ms := range offsets {
				rm := timedRecord(int64(i)*1e9, 10e6, 4)
				rm.Record.ScheduledNs = int64(i+1) * 1e9
				rm.Record.StartPerfNs = rm.Record.ScheduledNs + int64(ms*1e6)
				acc.Add(rm)
			}
			// A failed scheduled request and an unscheduled one do not count.
			failed := errorRecord(0, 500, "Internal Server Error", "boom")
			failed.Record.ScheduledNs, failed.Record.StartPerfNs = 1e9, 1e9
			acc.Add(failed)
			acc.Add(timedRecord(0, 10e6, 4))

			res := acc.Summarize()
			for _, tag := range []string{TagReplaySchedLagP50, TagReplaySchedLagP90, TagReplaySchedLagP99, TagReplaySchedDegraded} {
				m, ok := res.Metric(tag)
				if tc.noValues {
					if ok {
						t.Errorf("%s reported outside a fixed-schedule run", tag)
					}
					continue
				}
				if !ok || m.Avg == nil || m.Count == nil || *m.Count != 1 || m.P50 != nil || !m.Flags.Has(sdk.FlagNoConsole) {
					t.Fatalf("%s = %+v, want a scalar with count 1", tag, m)
				}
				if want, check := tc.want[tag]; check && !near(*m.Avg, want) {
					t.Errorf("%s = %v, want %v", tag, *m.Avg, want)
				}
			}
			// Run-scoped: absent from timeslices (none here) and from the
			// per-record export (derived, never a record value).
			if d, _ := newCatalog(t, info).Lookup(TagReplaySchedLagP50); d.Kind != KindDerived {
				t.Errorf("kind %v", d.Kind)
			}
		})
	}
}
