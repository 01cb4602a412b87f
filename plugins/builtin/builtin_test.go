package builtin_test

import (
	"fmt"
	"testing"

	aiperf "github.com/aiperf-go/aiperf"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin"
	"github.com/aiperf-go/aiperf/registry"
)

// The embedded plugins.yaml and the compiled-in implementations must agree,
// and every implementation must satisfy its category's interface.
func TestManifestMatchesBuiltins(t *testing.T) {
	m, err := registry.ParseManifest(aiperf.BuiltinManifest, "plugins.yaml")
	if err != nil {
		t.Fatal(err)
	}
	reg, err := registry.New(builtin.Constructors(), m)
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range reg.Validate() {
		t.Error(err)
	}
	check := map[string]func(string) error{
		sdk.CategoryEndpoint:  func(n string) error { _, err := registry.Get[sdk.Endpoint](reg, sdk.CategoryEndpoint, n); return err },
		sdk.CategoryTransport: func(n string) error { _, err := registry.Get[sdk.Transport](reg, sdk.CategoryTransport, n); return err },
		sdk.CategoryTimingStrategy: func(n string) error {
			_, err := registry.Get[sdk.TimingStrategy](reg, sdk.CategoryTimingStrategy, n)
			return err
		},
		sdk.CategoryArrivalPattern: func(n string) error {
			_, err := registry.Get[sdk.ArrivalPattern](reg, sdk.CategoryArrivalPattern, n)
			return err
		},
		sdk.CategoryRamp: func(n string) error { _, err := registry.Get[sdk.Ramp](reg, sdk.CategoryRamp, n); return err },
		sdk.CategoryCustomDataset: func(n string) error {
			_, err := registry.Get[sdk.CustomDatasetLoader](reg, sdk.CategoryCustomDataset, n)
			return err
		},
		sdk.CategoryDatasetComposer: func(n string) error {
			_, err := registry.Get[sdk.DatasetComposer](reg, sdk.CategoryDatasetComposer, n)
			return err
		},
		// A tokenizer plugin is a fixed tokenizer or a loader of named ones.
		sdk.CategoryTokenizer: func(n string) error {
			v, err := reg.Instantiate(sdk.CategoryTokenizer, n)
			if err != nil {
				return err
			}
			_, isTok := v.(sdk.Tokenizer)
			_, isLoader := v.(sdk.TokenizerLoader)
			if !isTok && !isLoader {
				return fmt.Errorf("%T is neither an sdk.Tokenizer nor an sdk.TokenizerLoader", v)
			}
			return nil
		},
		sdk.CategoryRecordProcessor: func(n string) error {
			_, err := registry.Get[sdk.RecordProcessor](reg, sdk.CategoryRecordProcessor, n)
			return err
		},
		sdk.CategoryAccumulator: func(n string) error {
			_, err := registry.Get[sdk.Accumulator](reg, sdk.CategoryAccumulator, n)
			return err
		},
		sdk.CategoryDataExporter: func(n string) error {
			_, err := registry.Get[sdk.DataExporter](reg, sdk.CategoryDataExporter, n)
			return err
		},
		sdk.CategoryConsoleExporter: func(n string) error {
			_, err := registry.Get[sdk.ConsoleExporter](reg, sdk.CategoryConsoleExporter, n)
			return err
		},
		sdk.CategoryUI: func(n string) error { _, err := registry.Get[sdk.UI](reg, sdk.CategoryUI, n); return err },
	}
	for _, c := range sdk.Categories {
		fn, ok := check[c.Name]
		if !ok {
			t.Errorf("category %s has no interface check here", c.Name)
			continue
		}
		for _, name := range reg.Names(c.Name) {
			if err := fn(name); err != nil {
				t.Errorf("%s.%s: %v", c.Name, name, err)
			}
		}
	}
}
