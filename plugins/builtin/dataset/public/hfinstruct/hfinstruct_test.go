package hfinstruct

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"image/jpeg"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/hubtest"
	"github.com/aiperf-go/aiperf/plugins/builtin/internal/hfhub"
)

// load configures a loader with a plugins.yaml config and reads the
// fixture hub.
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
	return l.LoadPublic(context.Background(), sdk.DatasetOptions{RandomSeed: 7})
}

// Values checked against AIPerf 0.13's HFInstructionResponseDatasetLoader
// on the same fixture files (README.md).
func TestAIMOPromptsSkipEmptyRows(t *testing.T) {
	convs, err := load(t, `{"hf_dataset_name": "AI-MO/NuminaMath-TIR", "hf_split": "train", "prompt_column": "problem"}`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`What is the coefficient of $x^2y^6$ in the expansion of $\left(\frac{3}{5}x-\frac{y}{2}\right)^8$?`,
		`Find the sum of all integers $k$ such that $\binom{23}{4} + \binom{23}{5} = \binom{24}{k}$.`,
	}
	if len(convs) != len(want) {
		t.Fatalf("%d conversations, want %d (the empty and blank problems skipped)", len(convs), len(want))
	}
	for i, c := range convs {
		if len(c.Turns) != 1 || c.Turns[0].Texts[0] != want[i] || c.Turns[0].MaxTokens != nil || len(c.Turns[0].Images) != 0 {
			t.Errorf("conversation %d = %+v, want the single prompt %q", i, c.Turns, want[i])
		}
	}
	if convs[0].SessionID == convs[1].SessionID || len(convs[0].SessionID) != 36 {
		t.Errorf("session ids %q, %q: want two distinct UUIDs", convs[0].SessionID, convs[1].SessionID)
	}
}

func TestMMStarImagesBecomeJPEGDataURIs(t *testing.T) {
	convs, err := load(t, `{"hf_dataset_name": "Lin-Chen/MMStar", "hf_split": "val", "prompt_column": "question", "image_column": "image"}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 3 {
		t.Fatalf("%d conversations, want 3", len(convs))
	}
	sizes := [][2]int{{8, 6}, {10, 4}}
	for i, want := range sizes {
		imgs := convs[i].Turns[0].Images
		if len(imgs) != 1 || !strings.HasPrefix(imgs[0], "data:image/jpeg;base64,") {
			t.Fatalf("row %d images = %.40q, want one JPEG data URI", i, imgs)
		}
		b, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(imgs[0], "data:image/jpeg;base64,"))
		cfg, err := jpeg.DecodeConfig(strings.NewReader(string(b)))
		if err != nil || cfg.Width != want[0] || cfg.Height != want[1] {
			t.Errorf("row %d: JPEG %dx%d (%v), want %dx%d", i, cfg.Width, cfg.Height, err, want[0], want[1])
		}
	}
	// A row whose image does not decode keeps its text, without the image.
	if got := convs[2].Turns[0]; got.Texts[0] != "Is the picture broken? Options: A: yes, B: no" || len(got.Images) != 0 {
		t.Errorf("broken image row = %+v", got)
	}
}

func TestBlazeditTemplateAndMissingColumn(t *testing.T) {
	tmpl := "Given a code file, please apply the change requests and generate the new file.\n\nOriginal file:\n```python\n{code}\n```\n\nChange request:\n{change_request}\n\nPlease generate the new code file in the \"New file\" section below."
	convs, err := load(t, `{"hf_dataset_name": "vdaita/edit_5k_char", "prompt_column": "change_request", "prompt_template": `+jsonString(tmpl)+`}`)
	if err != nil {
		t.Fatal(err)
	}
	want := "Given a code file, please apply the change requests and generate the new file.\n\nOriginal file:\n```python\ndef add(a, b):\n    return a + b\n\n```\n\nChange request:\nRename the function to sum_two and add type hints.\n\nPlease generate the new code file in the \"New file\" section below."
	if len(convs) != 1 || convs[0].Turns[0].Texts[0] != want {
		t.Fatalf("prompt = %q, want %q", convs[0].Turns[0].Texts, want)
	}
	_, err = load(t, `{"hf_dataset_name": "vdaita/edit_5k_char", "prompt_column": "instruction"}`)
	if err == nil || !strings.Contains(err.Error(), `column "instruction" not found; available columns: change_request, code`) {
		t.Errorf("missing column: %v", err)
	}
	_, err = load(t, `{"hf_dataset_name": "vdaita/edit_5k_char", "prompt_template": "{code} {nope}"}`)
	if err == nil || !strings.Contains(err.Error(), `prompt_template: the row has no column "nope"`) {
		t.Errorf("template over a missing column: %v", err)
	}
}

func TestValidateNamesTheSetting(t *testing.T) {
	l := New()
	if err := sdk.ApplyConfig(l, "x", []byte(`{"hf_dataset_name": "a/b"}`)); err != nil {
		t.Fatal(err)
	}
	if err := l.Validate(); err == nil || !strings.Contains(err.Error(), "prompt_column and prompt_template") {
		t.Errorf("Validate = %v", err)
	}
	if err := sdk.ApplyConfig(New(), "x", []byte(`{"prompt_colum": "p"}`)); err == nil || !strings.Contains(err.Error(), "prompt_colum") {
		t.Errorf("a misspelt setting was accepted: %v", err)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
