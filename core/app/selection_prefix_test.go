package app

import (
	"reflect"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func TestRunSettingsSeqDistAndPrefixPrompts(t *testing.T) {
	cfg := runSettingsConfig(t, "--seq-dist", "8,4:100", "--num-prefix-prompts", "2", "--prefix-prompt-length", "5", "-b", "2")
	want := map[string]any{
		"prompt_batch_size":       2,
		"sequence_distribution":   []any{map[string]any{"isl": 8, "isl_stddev": 0.0, "osl": 4, "osl_stddev": 0.0, "prob": 100.0}},
		"prefix_prompt_pool_size": 2,
		"prefix_prompt_length":    5,
	}
	if got := runSettings(cfg)[sdk.DatasetComposers.Name+"."+composerSynthetic]; !reflect.DeepEqual(got, want) {
		t.Errorf("synthetic settings:\n got %#v\nwant %#v", got, want)
	}
}
