package mmvu

import (
	"context"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/hubtest"
	"github.com/aiperf-go/aiperf/plugins/builtin/internal/hfhub"
)

// Values checked against AIPerf 0.13's MMVUDatasetLoader on the same
// fixture file (README.md).
func TestQuestionChoicesAndVideoURL(t *testing.T) {
	hub := hubtest.New(t, "../testdata/hub")
	l := New()
	l.Hub = &hfhub.Options{Endpoint: hub.URL(), CacheDir: t.TempDir()}
	if err := sdk.ApplyConfig(l, "x", []byte(`{"hf_dataset_name": "yale-nlp/MMVU", "hf_split": "validation", "video_column": "video"}`)); err != nil {
		t.Fatal(err)
	}
	convs, err := l.LoadPublic(context.Background(), sdk.DatasetOptions{RandomSeed: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ prompt, video string }{
		{"Which art movement does the painting in the video belong to? A.Cubism B.Impressionism E.Baroque", "https://huggingface.co/datasets/yale-nlp/MMVU/resolve/main/videos/Art/1.mp4"},
		{"Name the instrument.", "https://example.com/3.mp4"}, // the row without a video is skipped
	}
	if len(convs) != len(want) {
		t.Fatalf("%d conversations, want %d", len(convs), len(want))
	}
	for i, w := range want {
		turn := convs[i].Turns[0]
		if turn.Texts[0] != w.prompt || len(turn.Videos) != 1 || turn.Videos[0] != w.video {
			t.Errorf("conversation %d = %q %q, want %q %q", i, turn.Texts[0], turn.Videos, w.prompt, w.video)
		}
	}
}

func TestPromptShapes(t *testing.T) {
	cases := []struct {
		row  map[string]any
		want string
	}{
		{map[string]any{"question": nil, "choices": map[string]any{"A": "a", "B": "b"}}, "A.a B.b"},
		{map[string]any{"question": " q ", "choices": []any{"x"}}, "q"},
		{map[string]any{}, ""},
	}
	for _, c := range cases {
		if got := Prompt(c.row); got != c.want {
			t.Errorf("Prompt(%v) = %q, want %q", c.row, got, c.want)
		}
	}
}
