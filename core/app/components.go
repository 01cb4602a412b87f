package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	aiperf "github.com/aiperf-go/aiperf"
	"github.com/aiperf-go/aiperf/core/metrics"
	"github.com/aiperf-go/aiperf/core/transport"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/custom"
	"github.com/aiperf-go/aiperf/registry"
	"go.uber.org/fx"
)

// NewRegistry loads the embedded manifest and binds the built-ins.
func NewRegistry() (*registry.Registry, error) {
	m, err := registry.ParseManifest(aiperf.BuiltinManifest, "plugins.yaml (embedded)")
	if err != nil {
		return nil, err
	}
	return registry.New(builtin.Constructors(), m)
}

// NewEndpoint resolves --endpoint-type.
func NewEndpoint(reg *registry.Registry, s *Settings) (sdk.Endpoint, error) {
	ep, err := registry.Get[sdk.Endpoint](reg, sdk.CategoryEndpoint, s.EndpointType)
	if err != nil {
		return nil, fmt.Errorf("--endpoint-type: %w", err)
	}
	return ep, nil
}

// NewTokenizer resolves --tokenizer (default: the first model): "builtin"
// is the embedded o200k_base tokenizer; anything else is loaded by the "hf"
// plugin from a local tokenizer.json or the Hugging Face hub. A missing,
// gated or malformed tokenizer fails here, before any request is sent.
func NewTokenizer(ctx context.Context, reg *registry.Registry, s *Settings, log *slog.Logger) (sdk.Tokenizer, error) {
	src := s.Tokenizer
	if src.Name == "" {
		return nil, fmt.Errorf("--tokenizer: no tokenizer and no model name given")
	}
	if registry.Normalize(src.Name) == "builtin" {
		return registry.Get[sdk.Tokenizer](reg, sdk.CategoryTokenizer, "builtin")
	}
	if src.TrustRemoteCode {
		log.Info("--tokenizer-trust-remote-code has no effect: tokenizer.json never runs remote code")
	}
	loader, err := registry.Get[sdk.TokenizerLoader](reg, sdk.CategoryTokenizer, "hf")
	if err != nil {
		return nil, fmt.Errorf("--tokenizer: %w", err)
	}
	tok, err := loader.Load(ctx, src)
	if err != nil {
		// The loader's error names the tokenizer and the cause.
		if !strings.Contains(err.Error(), "--tokenizer builtin") {
			err = fmt.Errorf("%w; or use --tokenizer builtin to count with o200k_base", err)
		}
		return nil, fmt.Errorf("--tokenizer: %w", err)
	}
	log.Info("tokenizer loaded", "tokenizer", src.Name, "revision", src.Revision)
	return tok, nil
}

// NewTransport resolves the transport (builtin-only: it sits inside the
// timed window) and builds it with its pool sized to the concurrency; it is
// closed when the app stops.
func NewTransport(lc fx.Lifecycle, reg *registry.Registry, s *Settings) (sdk.Transport, error) {
	if _, err := reg.Resolve(sdk.CategoryTransport, "http"); err != nil {
		return nil, err
	}
	// The pool is sized to the concurrency ceiling; open loops without one
	// get an unbounded pool.
	tr := transport.New(transport.Options{MaxConnsPerHost: s.Profiling.Concurrency, Timeout: s.Timeout})
	lc.Append(fx.StopHook(func() error { return tr.Close() }))
	return tr, nil
}

// NewComposer resolves the dataset composer: "custom" for --input-file
// (its loader chosen by --custom-dataset-type or detected), else synthetic.
func NewComposer(reg *registry.Registry, s *Settings) (sdk.DatasetComposer, error) {
	if s.Dataset.InputFile != "" {
		// Every registered loader, external plugins included, in manifest order.
		return custom.New(func() ([]custom.NamedLoader, error) {
			var loaders []custom.NamedLoader
			for _, name := range reg.Names(sdk.CategoryCustomDataset) {
				l, err := registry.Get[sdk.CustomDatasetLoader](reg, sdk.CategoryCustomDataset, name)
				if err != nil {
					return nil, err
				}
				loaders = append(loaders, custom.NamedLoader{Name: name, Loader: l})
			}
			return loaders, nil
		}), nil
	}
	return registry.Get[sdk.DatasetComposer](reg, sdk.CategoryDatasetComposer, "synthetic")
}

// NewUI resolves --ui.
func NewUI(reg *registry.Registry, s *Settings) (sdk.UI, error) {
	ui, err := registry.Get[sdk.UI](reg, sdk.CategoryUI, s.UI)
	if err != nil {
		return nil, fmt.Errorf("--ui: %w", err)
	}
	return ui, nil
}

// Outputs are every "many" plugin of the output side.
type Outputs struct {
	Processors   []sdk.RecordProcessor
	Accumulators []sdk.Accumulator
	Exporters    []sdk.DataExporter
	Consoles     []sdk.ConsoleExporter
}

// NewOutputs instantiates all record processors, accumulators and exporters
// and initializes the metric plugins with the run's facts.
func NewOutputs(reg *registry.Registry, ep sdk.Endpoint, info sdk.RunInfo) (*Outputs, error) {
	var o Outputs
	var err error
	if o.Processors, err = registry.All[sdk.RecordProcessor](reg, sdk.CategoryRecordProcessor); err != nil {
		return nil, err
	}
	if o.Accumulators, err = registry.All[sdk.Accumulator](reg, sdk.CategoryAccumulator); err != nil {
		return nil, err
	}
	if o.Exporters, err = registry.All[sdk.DataExporter](reg, sdk.CategoryDataExporter); err != nil {
		return nil, err
	}
	if o.Consoles, err = registry.All[sdk.ConsoleExporter](reg, sdk.CategoryConsoleExporter); err != nil {
		return nil, err
	}
	for _, p := range o.Processors {
		if err := p.Init(info); err != nil {
			return nil, fmt.Errorf("record processor %T: %w", p, err)
		}
	}
	for _, a := range o.Accumulators {
		if err := a.Init(info); err != nil {
			return nil, fmt.Errorf("accumulator %T: %w", a, err)
		}
	}
	return &o, nil
}

// NewRunInfo parses and checks --goodput against the run's metrics.
func NewRunInfo(ep sdk.Endpoint, s *Settings) (sdk.RunInfo, error) {
	info := sdk.RunInfo{Endpoint: ep.Metadata(), Streaming: s.Streaming && ep.Metadata().SupportsStreaming}
	if strings.TrimSpace(s.Goodput) == "" {
		return info, nil
	}
	slos, err := metrics.ParseGoodput(s.Goodput)
	if err != nil {
		return info, fmt.Errorf("--goodput: %w", err)
	}
	if err := metrics.ValidateGoodputTags(slos, info); err != nil {
		return info, fmt.Errorf("--goodput: %w", err)
	}
	info.Goodput = slos
	return info, nil
}

// NewLogger logs to stderr at the chosen level and to logs/aiperf.log in the
// artifact directory at debug level. Secrets are never passed to the logger.
func NewLogger(lc fx.Lifecycle, s *Settings, stderr io.Writer) (*slog.Logger, error) {
	path := filepath.Join(s.ArtifactDir, s.Files.Log)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create log directory: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create log file: %w", err)
	}
	lc.Append(fx.StopHook(f.Close))
	h := slog.NewMultiHandler(
		slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: s.LogLevel}),
		slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug}),
	)
	return slog.New(h), nil
}
