package app

import (
	"reflect"
	"testing"
)

// --slice-duration is the metric_results accumulator's slice_duration: the
// accumulator computes the timeslices, the timeslices exporter only writes
// them.
func TestSliceDurationSetsTheAccumulator(t *testing.T) {
	got := runSettings(runSettingsConfig(t, "--slice-duration", "0.05"))
	want := map[string]map[string]any{"accumulator.metric_results": {"slice_duration": 0.05}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("runSettings = %#v, want %#v", got, want)
	}
}
