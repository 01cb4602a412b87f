// Package specbench is the "spec_bench" public dataset loader: the
// Spec-Bench speculative decoding questions (hemingkx/Spec-Bench,
// question.jsonl, pinned to the commit AIPerf 0.13 uses), one single-turn
// conversation per question from its first turn, or every turn with
// multi_turn (AIPerf's SpecBenchLoader). The file is not on the Hugging
// Face hub: it is downloaded from GitHub once into AIPerf's own cache,
// .cache/aiperf/datasets/spec_bench.jsonl under the working directory, and
// read from there ever after (HF_HUB_OFFLINE forbids the download).
package specbench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/internal/jsonl"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/base"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/hfsource"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/stream"
	"github.com/aiperf-go/aiperf/plugins/builtin/internal/hfhub"
)

// Name is the dataset's --public-dataset name.
const Name = "spec_bench"

// URL and File are AIPerf 0.13's (SpecBenchLoader.url, .filename).
const (
	URL  = "https://raw.githubusercontent.com/hemingkx/Spec-Bench/fd2c1cd7d2201ef71db4c5f4e455008f017967bf/data/spec_bench/question.jsonl"
	File = "spec_bench.jsonl"
)

// AIPerfCacheDir is AIPerf's dataset cache, relative to the working
// directory.
const AIPerfCacheDir = ".cache/aiperf/datasets"

// Config is the loader's settings.
type Config struct {
	base.Settings
	MultiTurn bool `json:"multi_turn,omitempty"`
}

// Loader reads Spec-Bench.
type Loader struct {
	cfg Config
	// Hub replaces the environment's options (tests): only Offline and
	// HTTPClient apply, no token is sent to GitHub.
	Hub *hfhub.Options
	// CacheDir is where the file is cached; "" means AIPerfCacheDir.
	CacheDir string
	// URL overrides the download URL (tests); "" means URL.
	URL string
}

var (
	_ sdk.PublicDatasetLoader = (*Loader)(nil)
	_ sdk.Configurable        = (*Loader)(nil)
)

// New returns the loader.
func New() *Loader { return &Loader{} }

// PluginConfig implements sdk.Configurable.
func (l *Loader) PluginConfig() any { return &l.cfg }

// Path returns the cached file, downloading it on a miss.
func (l *Loader) Path(ctx context.Context) (string, error) {
	dir, u := l.CacheDir, l.URL
	if dir == "" {
		dir = AIPerfCacheDir
	}
	if u == "" {
		u = URL
	}
	dest := filepath.Join(dir, File)
	o := hfsource.HubOptions(l.Hub)
	o.Token = "" // the file is on GitHub, never the hub
	if err := hfhub.FetchURL(ctx, u, dest, o, hfhub.FileCheck{Verify: isJSONL}); err != nil {
		return "", err
	}
	return dest, nil
}

// LoadPublic implements sdk.PublicDatasetLoader.
func (l *Loader) LoadPublic(ctx context.Context, opts sdk.DatasetOptions) ([]sdk.Conversation, error) {
	path, err := l.Path(ctx)
	if err != nil {
		return nil, err
	}
	return Read(ctx, path, l.cfg.MultiTurn, opts.RandomSeed)
}

// Read converts a Spec-Bench JSONL file: each record's "turns" list gives
// one conversation of its first turn (all turns with multiTurn); records
// without turns, or whose turns are blank, are skipped.
func Read(ctx context.Context, path string, multiTurn bool, seed int64) ([]sdk.Conversation, error) {
	ids := base.SessionIDs(seed)
	var convs []sdk.Conversation
	err := stream.JSONL(ctx, path, func(_ int, data []byte) error {
		var rec map[string]any
		if err := json.Unmarshal(data, &rec); err != nil {
			return fmt.Errorf("not a JSON object: %w", err)
		}
		raw, ok := rec["turns"].([]any)
		if !ok || len(raw) == 0 {
			return nil
		}
		if !multiTurn {
			raw = raw[:1]
		}
		var turns []sdk.Turn
		for _, t := range raw {
			text := ""
			if base.Truthy(t) {
				text = strings.TrimSpace(base.PyStr(t))
			}
			if text != "" {
				turns = append(turns, sdk.Turn{Texts: []string{text}})
			}
		}
		if len(turns) > 0 {
			convs = append(convs, sdk.Conversation{SessionID: ids(), Turns: turns})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return convs, nil
}

// isJSONL is the download check: the first non-blank line is a JSON object.
func isJSONL(path string) error {
	if _, ok := jsonl.FirstObject(path); !ok {
		return errors.New("the first line is not a JSON object: not a JSON Lines file")
	}
	return nil
}
