// Package mmvu is the public dataset loader of the MMVU video
// understanding benchmark (yale-nlp/MMVU, AIPerf 0.13's
// MMVUDatasetLoader): one single-turn conversation per row, the question
// followed by its multiple-choice options ("A.x B.y", vLLM's benchmark
// format) and the row's video (a URL passed through). Rows without a video
// are skipped. Registered as mmvu.
package mmvu

import (
	"context"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/base"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/hfmedia"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/hfsource"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/stream"
	"github.com/aiperf-go/aiperf/plugins/builtin/internal/hfhub"
)

// Config is the loader's settings.
type Config struct {
	base.Settings
	// VideoColumn holds the video ("video" when empty).
	VideoColumn string `json:"video_column,omitempty"`
}

// Loader reads MMVU.
type Loader struct {
	cfg Config
	// Hub replaces the environment's hub options (tests); nil reads them.
	Hub *hfhub.Options
}

var (
	_ sdk.PublicDatasetLoader = (*Loader)(nil)
	_ sdk.Configurable        = (*Loader)(nil)
	_ sdk.Validator           = (*Loader)(nil)
)

// New returns a loader; its dataset comes from its settings.
func New() *Loader { return &Loader{} }

// PluginConfig implements sdk.Configurable.
func (l *Loader) PluginConfig() any { return &l.cfg }

// Validate implements sdk.Validator.
func (l *Loader) Validate() error { return hfsource.CheckSettings(l.cfg.Settings) }

// LoadPublic implements sdk.PublicDatasetLoader.
func (l *Loader) LoadPublic(ctx context.Context, opts sdk.DatasetOptions) ([]sdk.Conversation, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	col := l.cfg.VideoColumn
	if col == "" {
		col = "video"
	}
	convs, _, err := hfsource.Load(ctx, l.cfg.Settings, l.Hub, opts.RandomSeed, func(row stream.Row) ([]sdk.Turn, error) {
		prompt := Prompt(row)
		if prompt == "" {
			return nil, nil
		}
		videos := hfmedia.Videos(row[col])
		if len(videos) == 0 {
			return nil, nil
		}
		return []sdk.Turn{{Texts: []string{prompt}, Videos: videos}}, nil
	})
	return convs, err
}

// Prompt is AIPerf's _format_prompt: the trimmed question, then the
// non-empty choices as "K.V" joined by spaces (in key order, which is the
// schema's for MMVU's A..E). A choices value that is not a struct is
// ignored.
func Prompt(row stream.Row) string {
	question := ""
	if q := row["question"]; base.Truthy(q) {
		question = strings.TrimSpace(base.PyStr(q))
	}
	choices, ok := row["choices"].(map[string]any)
	if !ok {
		return question
	}
	var parts []string
	for _, k := range base.SortedKeys(choices) {
		if v := choices[k]; base.Truthy(v) {
			parts = append(parts, k+"."+base.PyStr(v))
		}
	}
	cs := strings.Join(parts, " ")
	switch {
	case question != "" && cs != "":
		return question + " " + cs
	case question != "":
		return question
	}
	return cs
}
