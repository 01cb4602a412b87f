package jsonexport

import (
	"slices"
	"testing"
)

// A file dataset's "synthesis" section is written in AIPerf 0.13's
// SynthesisConfig field order, not sorted.
func TestSynthesisSectionOrder(t *testing.T) {
	m := map[string]any{"max_osl": 50, "speedup_ratio": 4.0, "prefix_root_multiplier": 2, "output_len_multiplier": 0.5}
	want := []string{"speedup_ratio", "prefix_root_multiplier", "output_len_multiplier", "max_osl"}
	if got := orderedKeys(m, "synthesis"); !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
