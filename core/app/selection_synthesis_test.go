package app

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// The --synthesis-* flags become the mooncake_trace loader's "synthesis"
// setting, next to --isl-block-size's block_size; without --input-file
// (a synthetic dataset, where AIPerf ignores them) they set nothing.
func TestRunSettingsSynthesis(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(trace, []byte(`{"input_length": 4}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := runSettingsConfig(t, "--input-file", trace, "--isl-block-size", "16",
		"--synthesis-speedup-ratio", "2", "--synthesis-max-isl", "100")
	want := map[string]any{"block_size": 16, "synthesis": map[string]any{"speedup_ratio": 2.0, "max_isl": 100}}
	if got := runSettings(cfg)[sdk.CustomDatasetLoaders.Name+".mooncake_trace"]; !reflect.DeepEqual(got, want) {
		t.Errorf("mooncake_trace settings:\n got %#v\nwant %#v", got, want)
	}
	if got := runSettings(runSettingsConfig(t, "--synthesis-speedup-ratio", "2")); len(got) != 0 {
		t.Errorf("a synthetic run got settings %v", got)
	}
}
