// Package public is the "public" dataset composer: the conversations of
// the public dataset --public-dataset names (AIPerf 0.13's
// PublicDatasetComposer), read by that public_dataset_loader plugin and
// finished as AIPerf's composer finishes them: a turn without max_tokens
// gets one drawn from --osl (and --osl-stddev) when given, and the run's
// models go round robin over the turns. The loaders are in the
// subpackages, one per family of datasets.
package public

import (
	"context"
	"errors"
	"fmt"
	"math"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/internal/sample"
)

// Name is the composer's registry name (AIPerf's ComposerType.PUBLIC).
const Name = "public"

// Composer builds a run's conversations from a public dataset.
type Composer struct {
	name   string
	source func() (sdk.PublicDatasetLoader, error)
}

var (
	_ sdk.DatasetComposer  = (*Composer)(nil)
	_ sdk.PublicLoaderUser = (*Composer)(nil)
)

// New returns a composer without a loader; the core hands it over with
// UsePublicLoader.
func New() *Composer { return &Composer{} }

// UsePublicLoader implements sdk.PublicLoaderUser.
func (c *Composer) UsePublicLoader(name string, source func() (sdk.PublicDatasetLoader, error)) {
	c.name, c.source = name, source
}

// Compose implements sdk.DatasetComposer. NumEntries does not shorten the
// dataset (AIPerf uses every conversation; the sampler picks from them).
func (c *Composer) Compose(ctx context.Context, opts sdk.DatasetOptions) ([]sdk.Conversation, error) {
	if c.source == nil {
		return nil, errors.New("public dataset: no dataset selected (set --public-dataset)")
	}
	loader, err := c.source()
	if err != nil {
		return nil, fmt.Errorf("public dataset %s: %w", c.name, err)
	}
	convs, err := loader.LoadPublic(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("public dataset %s: %w", c.name, err)
	}
	if len(convs) == 0 {
		return nil, fmt.Errorf("public dataset %s: no conversation passed the loader's checks; nothing to send", c.name)
	}
	Finalize(convs, opts)
	return convs, nil
}

// Finalize is AIPerf's _finalize_turn over every turn: max_tokens drawn
// from the output length options when the dataset gave none (the stddev
// truncated to an integer, as AIPerf does), and the models round robin
// over the turns when there are several (with one, the engine fills it).
func Finalize(convs []sdk.Conversation, opts sdk.DatasetOptions) {
	var draw func() int
	if opts.OutputTokensMean > 0 {
		r := sample.NewStream(opts.RandomSeed, "composer.turn.max_tokens")
		stddev := math.Trunc(opts.OutputTokensStddev)
		draw = func() int { return sample.PositiveNormalInt(r, float64(opts.OutputTokensMean), stddev) }
	}
	k := 0
	for i := range convs {
		for j := range convs[i].Turns {
			t := &convs[i].Turns[j]
			if t.MaxTokens == nil && draw != nil {
				n := draw()
				t.MaxTokens = &n
			}
			if t.Model == "" && len(opts.Models) > 1 {
				t.Model = opts.Models[k%len(opts.Models)]
			}
			k++
		}
	}
}
