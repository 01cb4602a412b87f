// Package mtbench is the public dataset loader of MT-Bench prompts
// (HuggingFaceH4/mt_bench_prompts, AIPerf 0.13's MTBenchDatasetLoader):
// each row's "prompt" column is a list of user turns (usually two), so each
// row becomes one multi-turn conversation, the server's answers carried as
// history between its turns. Registered as spec_al_mtbench.
package mtbench

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/base"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/hfsource"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/stream"
	"github.com/aiperf-go/aiperf/plugins/builtin/internal/hfhub"
)

// PromptColumn holds a row's list of turns (AIPerf's PROMPT_COLUMN).
const PromptColumn = "prompt"

// Loader reads MT-Bench prompts.
type Loader struct {
	cfg base.Settings
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
func (l *Loader) Validate() error { return hfsource.CheckSettings(l.cfg) }

// LoadPublic implements sdk.PublicDatasetLoader.
func (l *Loader) LoadPublic(ctx context.Context, opts sdk.DatasetOptions) ([]sdk.Conversation, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	checked := false
	convs, _, err := hfsource.Load(ctx, l.cfg, l.Hub, opts.RandomSeed, func(row stream.Row) ([]sdk.Turn, error) {
		if !checked {
			checked = true
			if _, ok := row[PromptColumn]; !ok {
				return nil, fmt.Errorf("column %q not found; available columns: %s", PromptColumn, strings.Join(base.SortedKeys(row), ", "))
			}
		}
		return Turns(row[PromptColumn]), nil
	})
	return convs, err
}

// Turns is one turn per non-blank entry of a prompt list (trimmed); nil
// when the value is not a list or every entry is blank.
func Turns(v any) []sdk.Turn {
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	var turns []sdk.Turn
	for _, t := range list {
		text := ""
		if base.Truthy(t) {
			text = strings.TrimSpace(base.PyStr(t))
		}
		if text != "" {
			turns = append(turns, sdk.Turn{Texts: []string{text}})
		}
	}
	return turns
}
