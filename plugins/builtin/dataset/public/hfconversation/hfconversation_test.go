package hfconversation

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/hubtest"
	"github.com/aiperf-go/aiperf/plugins/builtin/internal/hfhub"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
)

func load(t *testing.T, config string) ([]sdk.Conversation, error) {
	t.Helper()
	hub := hubtest.New(t, "../testdata/hub")
	l := New()
	l.Hub = &hfhub.Options{Endpoint: hub.URL(), CacheDir: t.TempDir()}
	if err := sdk.ApplyConfig(l, "public_dataset_loader.test", []byte(config)); err != nil {
		t.Fatal(err)
	}
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	return l.LoadPublic(context.Background(), sdk.DatasetOptions{RandomSeed: 3, Tokenizer: tiktoken.New()})
}

type want struct {
	prompt string
	images int
}

// Values checked against AIPerf 0.13's HFConversationDatasetLoader on the
// same fixture files (README.md).
func TestFirstUserMessageAndImage(t *testing.T) {
	cases := []struct {
		name, config string
		want         []want
	}{
		// VisionArena: list-of-lists messages; the "<image>" placeholder is
		// stripped; the third row's only text is the placeholder: skipped.
		{"vision_arena", `{"hf_dataset_name": "lmarena-ai/VisionArena-Chat", "hf_split": "train", "conversation_column": "conversation",
			"message_content_key": "content", "image_column": "images", "streaming": true}`,
			[]want{{"What breed is this dog?", 1}, {"Describe the chart.", 0}}},
		// LLaVA-OneVision: ShareGPT-style from/value messages, config sharegpt4o.
		{"llava_onevision", `{"hf_dataset_name": "lmms-lab/LLaVA-OneVision-Data", "hf_split": "train", "hf_subset": "sharegpt4o",
			"conversation_column": "conversations", "message_content_key": "value", "image_column": "image", "streaming": true}`,
			[]want{{"What is in the picture?", 1}, {"Tell me a joke about cats.", 0}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			convs, err := load(t, c.config)
			if err != nil {
				t.Fatal(err)
			}
			if len(convs) != len(c.want) {
				t.Fatalf("%d conversations, want %d", len(convs), len(c.want))
			}
			for i, w := range c.want {
				turn := convs[i].Turns[0]
				if len(convs[i].Turns) != 1 || turn.Texts[0] != w.prompt || len(turn.Images) != w.images || turn.MaxTokens != nil {
					t.Errorf("conversation %d = %q with %d images, want %q with %d", i, turn.Texts, len(turn.Images), w.prompt, w.images)
				}
				if w.images == 1 && !strings.HasPrefix(turn.Images[0], "data:image/jpeg;base64,") {
					t.Errorf("conversation %d image %.30q is not a JPEG data URI", i, turn.Images[0])
				}
			}
		})
	}
}

// The streamed datasets stop at the run's cap.
func TestStreamedCap(t *testing.T) {
	convs, err := load(t, `{"hf_dataset_name": "lmarena-ai/VisionArena-Chat", "conversation_column": "conversation", "image_column": "images",
		"streaming": true, "max_conversations": 1}`)
	if err != nil || len(convs) != 1 {
		t.Fatalf("%d conversations, %v; want the cap of 1", len(convs), err)
	}
}

// multi_turn pairs user->assistant messages; every pair must pass the
// length filter, so the one-word answer rejects VisionArena's first row.
func TestMultiTurnPairs(t *testing.T) {
	msgs := func(pairs ...string) []any {
		var out []any
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, map[string]any{"role": pairs[i], "content": pairs[i+1]})
		}
		return out
	}
	l := New()
	l.cfg.ConversationColumn = "m"
	l.cfg.MultiTurn = true
	tok := tiktoken.New()
	turns := l.turns(map[string]any{"m": msgs("system", "Be brief.", "user", "What is the tallest mountain on Earth?", "assistant", "Mount Everest, at 8,849 metres.",
		"user", "And the second tallest one?", "assistant", "K2, at 8,611 metres, on the Pakistan-China border.")}, tok)
	if len(turns) != 2 || turns[0].Texts[0] != "What is the tallest mountain on Earth?" || *turns[0].MaxTokens != tok.Count("Mount Everest, at 8,849 metres.") ||
		turns[1].Texts[0] != "And the second tallest one?" || *turns[1].MaxTokens != tok.Count("K2, at 8,611 metres, on the Pakistan-China border.") {
		t.Fatalf("turns = %+v", turns)
	}
	if got := l.turns(map[string]any{"m": msgs("user", "What is the tallest mountain on Earth?", "assistant", "K2")}, tok); got != nil {
		t.Errorf("a pair whose answer is under 4 tokens was kept: %+v", got)
	}
}
