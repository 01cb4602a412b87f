package app

import (
	"reflect"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// --public-dataset selects the public composer and its loader, defaults
// the sampler to sequential (AIPerf's public loaders prefer it) and hands
// the loader --hf-subset and the streamed-dataset cap.
func TestSelectionOfAPublicDataset(t *testing.T) {
	sel := selectPlugins(runSettingsConfig(t, "--public-dataset", "llava-onevision", "--hf-subset", "ai2d", "--request-count", "20"))
	for cat, want := range map[string]string{
		sdk.CategoryDatasetComposer: "public",
		sdk.CategoryPublicDataset:   "llava_onevision",
		sdk.CategoryDatasetSampler:  "sequential",
	} {
		if got := sel.Name(cat); got != want {
			t.Errorf("%s = %q, want %q", cat, got, want)
		}
	}
	want := map[string]any{"hf_subset": "ai2d", "max_conversations": 20}
	if got := sel.Settings["public_dataset_loader.llava_onevision"]; !reflect.DeepEqual(got, want) {
		t.Errorf("loader settings %#v, want %#v", got, want)
	}
	if got := selectPlugins(runSettingsConfig(t, "--public-dataset", "sharegpt", "--dataset-sampling-strategy", "shuffle")).Name(sdk.CategoryDatasetSampler); got != "shuffle" {
		t.Errorf("an explicit sampler is kept: %q", got)
	}
	if got := selectPlugins(runSettingsConfig(t)).Name(sdk.CategoryPublicDataset); got != "" {
		t.Errorf("no --public-dataset selected %q", got)
	}
}
