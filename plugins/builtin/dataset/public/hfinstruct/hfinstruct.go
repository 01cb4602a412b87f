// Package hfinstruct is the public dataset loader of flat
// instruction/response datasets on the Hugging Face hub (AIPerf 0.13's
// HFInstructionResponseDatasetLoader): one single-turn conversation per
// row, its prompt a column (prompt_column) or a template over the row's
// columns (prompt_template, Python str.format), with an optional image,
// video or audio column. Registered as aimo, aimo_aime, aimo_numina_cot,
// aimo_numina_1_5, mmstar, spec_al_gsm8k, spec_al_math500,
// spec_al_humaneval, spec_al_mbpp, instruct_coder, blazedit_5k and
// blazedit_10k, each with AIPerf's settings in plugins.yaml.
package hfinstruct

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/base"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/hfmedia"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/hfsource"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/stream"
	"github.com/aiperf-go/aiperf/plugins/builtin/internal/hfhub"
)

// Config is the loader's settings (AIPerf's plugin metadata names).
type Config struct {
	base.Settings
	PromptColumn   string `json:"prompt_column,omitempty"`
	ImageColumn    string `json:"image_column,omitempty"`
	VideoColumn    string `json:"video_column,omitempty"`
	AudioColumn    string `json:"audio_column,omitempty"`
	PromptTemplate string `json:"prompt_template,omitempty"`
}

// Loader reads one instruction/response dataset.
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
func (l *Loader) Validate() error {
	if err := hfsource.CheckSettings(l.cfg.Settings); err != nil {
		return err
	}
	if l.cfg.PromptColumn == "" && l.cfg.PromptTemplate == "" {
		return errors.New("settings prompt_column and prompt_template are both empty: one says where the prompt is")
	}
	return nil
}

// LoadPublic implements sdk.PublicDatasetLoader.
func (l *Loader) LoadPublic(ctx context.Context, opts sdk.DatasetOptions) ([]sdk.Conversation, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	checked := false
	convs, _, err := hfsource.Load(ctx, l.cfg.Settings, l.Hub, opts.RandomSeed, func(row stream.Row) ([]sdk.Turn, error) {
		if !checked {
			checked = true
			if _, ok := row[l.cfg.PromptColumn]; !ok && l.cfg.PromptTemplate == "" {
				return nil, fmt.Errorf("column %q not found; available columns: %s. Set prompt_column to an existing column or give a prompt_template over them",
					l.cfg.PromptColumn, strings.Join(base.SortedKeys(row), ", "))
			}
		}
		return l.turn(row)
	})
	return convs, err
}

// turn is AIPerf's conversion of one row; nil when the prompt is empty or
// blank.
func (l *Loader) turn(row stream.Row) ([]sdk.Turn, error) {
	var prompt string
	if l.cfg.PromptTemplate != "" {
		p, err := base.FormatTemplate(l.cfg.PromptTemplate, row)
		if err != nil {
			return nil, err
		}
		prompt = p
	} else {
		v := row[l.cfg.PromptColumn]
		if !base.Truthy(v) {
			return nil, nil
		}
		prompt = base.PyStr(v)
	}
	if strings.TrimSpace(prompt) == "" {
		return nil, nil
	}
	t := sdk.Turn{Texts: []string{prompt}}
	if l.cfg.ImageColumn != "" {
		t.Images = hfmedia.Images(row[l.cfg.ImageColumn])
	}
	if l.cfg.VideoColumn != "" {
		t.Videos = hfmedia.Videos(row[l.cfg.VideoColumn])
	}
	if l.cfg.AudioColumn != "" {
		if a, _, err := hfmedia.Audio(row[l.cfg.AudioColumn]); err == nil {
			t.Audios = []string{a}
		}
	}
	return []sdk.Turn{t}, nil
}
