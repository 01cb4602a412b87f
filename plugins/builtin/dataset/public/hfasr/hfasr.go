// Package hfasr is the public dataset loader of speech recognition
// datasets on the Hugging Face hub (AIPerf 0.13's HFASRDatasetLoader): one
// single-turn conversation per row, the fixed prompt "Transcribe this
// audio." with the row's clip, decoded and re-encoded as 16-bit WAV
// ("wav,<base64>"), as AIPerf does with soundfile. Clips longer than 30 s
// are skipped. FLAC (github.com/mewkiz/flac, pure Go) and WAV clips are
// decoded; rows in other formats (MP3, Opus) are skipped, where AIPerf's
// libsndfile would read them. Registered as librispeech, voxpopuli,
// gigaspeech, ami and spgispeech.
package hfasr

import (
	"context"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/base"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/hfmedia"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/hfsource"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/stream"
	"github.com/aiperf-go/aiperf/plugins/builtin/internal/hfhub"
)

// Prompt is the text of every turn (AIPerf's _ASR_PROMPT).
const Prompt = "Transcribe this audio."

// MaxDurationS is the longest clip kept (AIPerf's _MAX_DURATION_SECONDS).
const MaxDurationS = 30

// Config is the loader's settings.
type Config struct {
	base.Settings
	// AudioColumn holds the clip ("audio" when empty).
	AudioColumn string `json:"audio_column,omitempty"`
}

// Loader reads one speech dataset.
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
	col := l.cfg.AudioColumn
	if col == "" {
		col = "audio"
	}
	convs, _, err := hfsource.Load(ctx, l.cfg.Settings, l.Hub, opts.RandomSeed, func(row stream.Row) ([]sdk.Turn, error) {
		return Turn(row[col]), nil
	})
	return convs, err
}

// Turn is the row's turn, nil when the clip is missing, does not decode or
// is longer than MaxDurationS.
func Turn(v any) []sdk.Turn {
	if _, ok := v.(map[string]any); !ok {
		return nil
	}
	wav, dur, err := hfmedia.Audio(v)
	if err != nil || dur > MaxDurationS {
		return nil
	}
	return []sdk.Turn{{Texts: []string{Prompt}, Audios: []string{wav}, AudioDurationS: &dur}}
}
