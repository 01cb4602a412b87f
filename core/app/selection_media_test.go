package app

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Without --input-file a rankings endpoint type gets the rankings composer
// (AIPerf: "rankings" in the endpoint type's name); a file always goes to
// the custom composer.
func TestSelectComposerForRankings(t *testing.T) {
	file := filepath.Join(t.TempDir(), "r.jsonl")
	if err := os.WriteFile(file, []byte(`{"texts": [{"name": "query", "contents": ["q"]}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "synthetic"},
		{[]string{"--endpoint-type", "embeddings"}, "synthetic"},
		{[]string{"--endpoint-type", "nim_rankings"}, "synthetic_rankings"},
		{[]string{"--endpoint-type", "hf-tei-rankings"}, "synthetic_rankings"},
		{[]string{"--endpoint-type", "Cohere_Rankings"}, "synthetic_rankings"},
		{[]string{"--endpoint-type", "my_rankings_v2"}, "synthetic_rankings"},
		{[]string{"--endpoint-type", "cohere_rankings", "--input-file", file}, "custom"},
	} {
		got := selectPlugins(runSettingsConfig(t, c.args...)).Name(sdk.CategoryDatasetComposer)
		if got != c.want {
			t.Errorf("%q: composer %q, want %q", c.args, got, c.want)
		}
	}
}

// The batch, media and rankings flags reach their composers' settings,
// next to the multi-turn ones.
func TestRunSettingsMediaAndRankings(t *testing.T) {
	cfg := runSettingsConfig(t, "--session-turns-mean", "2", "-b", "3",
		"--image-width-mean", "8", "--image-height-mean", "8", "--image-format", "png",
		"--audio-length-mean", "0.5", "--video-width", "16", "--video-height", "16",
		"--rankings-passages-mean", "3", "--rankings-query-prompt-token-mean", "6")
	want := map[string]map[string]any{
		"dataset_composer.synthetic": {"session_turns_mean": 2, "prompt_batch_size": 3,
			"image_batch_size": 1, "image_width_mean": 8.0, "image_height_mean": 8.0, "image_format": "png",
			"audio_batch_size": 1, "audio_length_mean": 0.5,
			"video_batch_size": 1, "video_width": 16, "video_height": 16},
		"dataset_composer.synthetic_rankings": {"passages_mean": 3.0, "query_tokens_mean": 6.0},
	}
	if got := runSettings(cfg); !reflect.DeepEqual(got, want) {
		t.Errorf("runSettings:\n got %#v\nwant %#v", got, want)
	}
	// Only media flags: the synthetic composer gets them alone.
	got := runSettings(runSettingsConfig(t, "--batch-size-image", "2"))
	want = map[string]map[string]any{"dataset_composer.synthetic": {"image_batch_size": 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("image batch only: runSettings = %#v, want %#v", got, want)
	}
}
