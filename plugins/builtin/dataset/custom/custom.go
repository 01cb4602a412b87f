// Package custom is the "custom" dataset composer: it reads --input-file
// with a custom_dataset_loader chosen by --custom-dataset-type, or, when no
// type is given, by asking each loader's CanLoad in priority order (a record
// declaring "type": "<loader>" is honoured by the loaders themselves, as in
// AIPerf). The loaders come from the core (sdk.LoaderUser), so this package
// does not depend on the plugin registry.
package custom

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Name is the composer's registry name.
const Name = "custom"

// NamedLoader is a custom dataset loader and its --custom-dataset-type name.
type NamedLoader = sdk.NamedLoader

// Composer loads conversations from a dataset file. It is safe for
// concurrent use if its loaders are.
type Composer struct {
	// Loaders returns the available loaders in auto-detection priority
	// order. It is called once per Compose, so loaders can be built lazily.
	Loaders func() ([]NamedLoader, error)
}

var (
	_ sdk.DatasetComposer = (*Composer)(nil)
	_ sdk.LoaderUser      = (*Composer)(nil)
)

// New returns a composer without loaders; the core hands them over with
// UseLoaders.
func New() *Composer { return &Composer{} }

// UseLoaders implements sdk.LoaderUser.
func (c *Composer) UseLoaders(source func() ([]NamedLoader, error)) { c.Loaders = source }

// Static is a loader source for a fixed list.
func Static(loaders ...NamedLoader) func() ([]NamedLoader, error) {
	return func() ([]NamedLoader, error) { return loaders, nil }
}

// Compose implements sdk.DatasetComposer. NumEntries is ignored: the file
// defines the dataset, as in AIPerf.
func (c *Composer) Compose(ctx context.Context, opts sdk.DatasetOptions) ([]sdk.Conversation, error) {
	path := opts.InputFile
	if path == "" {
		return nil, errors.New("custom dataset: no input file (set --input-file)")
	}
	// A directory is a dataset only for a loader that takes one
	// (random_pool); the others refuse it when they open it.
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("custom dataset: input file: %w", err)
	}
	if c.Loaders == nil {
		return nil, errors.New("custom dataset: no loaders configured")
	}
	loaders, err := c.Loaders()
	if err != nil {
		return nil, fmt.Errorf("custom dataset: loaders: %w", err)
	}
	chosen, err := pick(loaders, opts.CustomDatasetType, path)
	if err != nil {
		return nil, err
	}
	convs, err := chosen.Loader.Load(ctx, path, opts)
	if err != nil {
		return nil, fmt.Errorf("custom dataset (%s): %w", chosen.Name, err)
	}
	if len(convs) == 0 {
		return nil, fmt.Errorf("custom dataset (%s): %s holds no conversations", chosen.Name, path)
	}
	assignModels(convs, opts.Models)
	return convs, nil
}

// pick returns the loader named typ, or the first whose CanLoad accepts path.
func pick(loaders []NamedLoader, typ, path string) (NamedLoader, error) {
	names := make([]string, len(loaders))
	for i, l := range loaders {
		names[i] = l.Name
	}
	if typ != "" {
		for _, l := range loaders {
			if l.Name == typ {
				return l, nil
			}
		}
		return NamedLoader{}, fmt.Errorf("custom dataset: unknown --custom-dataset-type %q (available: %s)", typ, strings.Join(names, ", "))
	}
	for _, l := range loaders {
		if l.Loader.CanLoad(path) {
			return l, nil
		}
	}
	return NamedLoader{}, fmt.Errorf("custom dataset: cannot tell the format of %s from its first record; set --custom-dataset-type (one of: %s)", path, strings.Join(names, ", "))
}

// assignModels gives turns without a model the run's models round robin in
// dataset order when there are several, like the synthetic composer (with
// one model the engine fills it in).
func assignModels(convs []sdk.Conversation, models []string) {
	if len(models) < 2 {
		return
	}
	k := 0
	for i := range convs {
		for j := range convs[i].Turns {
			if convs[i].Turns[j].Model == "" {
				convs[i].Turns[j].Model = models[k%len(models)]
			}
			k++
		}
	}
}
