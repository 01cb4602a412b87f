package app

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/aiperf-go/aiperf/core/metrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/registry"
	"go.uber.org/fx"
)

// NewPluginHost builds the plugin host of a run: the run facts known before
// the endpoint is chosen, and the --plugin-config settings. Close it after
// the run.
func NewPluginHost(reg *registry.Registry, s *Settings) *Host {
	return newHost(reg, sdk.RunInfo{
		Models: s.Models, Seed: s.Seed, MaxConcurrency: s.MaxConcurrency(),
		RequestTimeout: s.Timeout, ArtifactDir: s.ArtifactDir, UseServerTokenCount: s.UseServerTokenCount,
		FixedSchedule: s.FixedSchedule,
	}, s.PluginSettings, s.Plugins)
}

// NewEndpoint resolves --endpoint-type.
func NewEndpoint(ctx context.Context, h *Host, s *Settings) (sdk.Endpoint, error) {
	ep, err := UseSelected(ctx, h, sdk.Endpoints)
	if err != nil {
		return nil, fmt.Errorf("--endpoint-type: %w", err)
	}
	return ep, nil
}

// NewRunInfo completes the run facts with the endpoint (streaming only when
// the endpoint supports it) and parses --goodput; plugins built after it are
// initialized with them. Goodput targets are checked against the declared
// metrics in NewOutputs.
func NewRunInfo(h *Host, ep sdk.Endpoint, s *Settings) (sdk.RunInfo, error) {
	info := h.Run()
	info.Endpoint = ep.Metadata()
	info.Streaming = s.Streaming && info.Endpoint.SupportsStreaming
	if len(s.SystemMessageFlags) > 0 && !info.Endpoint.ConsumesSystemMessage {
		// AIPerf's validate_system_prompt_compatibility: the text would never
		// reach the wire, so the run would measure something else.
		return info, fmt.Errorf("%s: endpoint type %q sends no system message or user context (its metadata has no consumes_system_message), so the text would never reach the wire; use an endpoint type that does, such as chat, responses, messages or chat_embeddings",
			strings.Join(s.SystemMessageFlags, ", "), s.Plugins.Names[sdk.CategoryEndpoint])
	}
	if strings.TrimSpace(s.Goodput) != "" {
		slos, err := metrics.ParseGoodput(s.Goodput)
		if err != nil {
			return info, fmt.Errorf("--goodput: %w", err)
		}
		info.Goodput = slos
	}
	h.SetRun(info)
	return info, nil
}

// NewTokenizer loads --tokenizer (default: the first model) with the
// tokenizer plugin the selection names: hf for a tokenizer.json or hub id,
// builtin for o200k_base. A missing, gated or malformed tokenizer fails
// here, before any request is sent.
func NewTokenizer(ctx context.Context, h *Host, _ sdk.RunInfo, s *Settings, log *slog.Logger) (sdk.Tokenizer, error) {
	src := s.Tokenizer
	if src.Name == "" {
		return nil, fmt.Errorf("--tokenizer: no tokenizer and no model name given")
	}
	loader, err := UseSelected(ctx, h, sdk.Tokenizers)
	if err != nil {
		return nil, fmt.Errorf("--tokenizer-plugin: %w", err)
	}
	if src.TrustRemoteCode {
		log.Info("--tokenizer-trust-remote-code has no effect: tokenizer.json never runs remote code")
	}
	tok, err := loader.Load(ctx, src)
	if err != nil {
		// The loader's error names the tokenizer and the cause.
		if !strings.Contains(err.Error(), "--tokenizer builtin") {
			err = fmt.Errorf("%w; or use --tokenizer builtin to count with o200k_base", err)
		}
		return nil, fmt.Errorf("--tokenizer: %w", err)
	}
	log.Info("tokenizer loaded", "tokenizer", src.Name, "plugin", s.Plugins.Name(sdk.CategoryTokenizer), "revision", src.Revision)
	return tok, nil
}

// NewTransport resolves --transport (builtin only: it sits inside the timed
// window); its Init sizes the pool to the run and the host closes it.
func NewTransport(ctx context.Context, h *Host, _ sdk.RunInfo, s *Settings) (sdk.Transport, error) {
	tr, err := UseSelected(ctx, h, sdk.Transports)
	if err != nil {
		return nil, fmt.Errorf("--transport: %w", err)
	}
	return tr, nil
}

// NewComposer resolves the dataset composer. A composer that reads files
// (sdk.LoaderUser) gets every registered custom_dataset_loader, external
// plugins included, built only when it asks for them; one that reads a
// public dataset (sdk.PublicLoaderUser) gets the public_dataset_loader
// --public-dataset selects, likewise.
func NewComposer(ctx context.Context, h *Host, _ sdk.RunInfo, s *Settings) (sdk.DatasetComposer, error) {
	c, err := UseSelected(ctx, h, sdk.DatasetComposers)
	if err != nil {
		return nil, err
	}
	if lu, ok := c.(sdk.LoaderUser); ok {
		lu.UseLoaders(func() ([]sdk.NamedLoader, error) {
			all, err := UseAll(ctx, h, sdk.CustomDatasetLoaders)
			if err != nil {
				return nil, err
			}
			out := make([]sdk.NamedLoader, len(all))
			for i, l := range all {
				out[i] = sdk.NamedLoader{Name: l.Name, Loader: l.Plugin}
			}
			return out, nil
		})
	}
	if pu, ok := c.(sdk.PublicLoaderUser); ok {
		pu.UsePublicLoader(s.Plugins.Name(sdk.CategoryPublicDataset), func() (sdk.PublicDatasetLoader, error) {
			return UseSelected(ctx, h, sdk.PublicDatasetLoaders)
		})
	}
	return c, nil
}

// NewUI resolves --ui-type.
func NewUI(ctx context.Context, h *Host, _ sdk.RunInfo, s *Settings) (sdk.UI, error) {
	ui, err := UseSelected(ctx, h, sdk.UIs)
	if err != nil {
		return nil, fmt.Errorf("--ui-type: %w", err)
	}
	return ui, nil
}

// Outputs are every "many" plugin of the output side, each with its
// registry name, and the catalog of the metrics the processors declared.
type Outputs struct {
	Processors   []registry.Named[sdk.RecordProcessor]
	Accumulators []registry.Named[sdk.Accumulator]
	Exporters    []registry.Named[sdk.DataExporter]
	Consoles     []registry.Named[sdk.ConsoleExporter]
	Catalog      *metrics.Catalog
}

// NewOutputs builds every record processor, gathers the metrics they
// declare (a duplicate tag names both plugins), checks --goodput against
// them, then builds the accumulators and exporters and tells those that
// want it (sdk.MetricsAware) which metrics the run has.
func NewOutputs(ctx context.Context, h *Host, info sdk.RunInfo) (*Outputs, error) {
	var o Outputs
	var err error
	if o.Processors, err = UseAll(ctx, h, sdk.RecordProcessors); err != nil {
		return nil, err
	}
	decl := make([]metrics.Declared, len(o.Processors))
	for i, p := range o.Processors {
		decl[i] = metrics.Declared{Plugin: p.ID(), Specs: p.Plugin.Metrics()}
	}
	if o.Catalog, err = metrics.NewCatalog(decl, info); err != nil {
		return nil, err
	}
	if err := metrics.ValidateGoodputTags(info.Goodput, o.Catalog); err != nil {
		return nil, fmt.Errorf("--goodput: %w", err)
	}
	if o.Accumulators, err = UseAll(ctx, h, sdk.Accumulators); err != nil {
		return nil, err
	}
	if o.Exporters, err = UseAll(ctx, h, sdk.DataExporters); err != nil {
		return nil, err
	}
	if o.Consoles, err = UseAll(ctx, h, sdk.ConsoleExporters); err != nil {
		return nil, err
	}
	specs := o.Catalog.Specs()
	tell := func(id string, v any) error {
		if ma, ok := v.(sdk.MetricsAware); ok {
			if err := ma.SetMetrics(specs); err != nil {
				return fmt.Errorf("plugin %s: %w", id, err)
			}
		}
		return nil
	}
	for _, a := range o.Accumulators {
		if err := tell(a.ID(), a.Plugin); err != nil {
			return nil, err
		}
	}
	for _, e := range o.Exporters {
		if err := tell(e.ID(), e.Plugin); err != nil {
			return nil, err
		}
	}
	for _, c := range o.Consoles {
		if err := tell(c.ID(), c.Plugin); err != nil {
			return nil, err
		}
	}
	return &o, nil
}

// PhaseAccumulators builds a fresh set of the run's accumulators for
// another phase than profiling (a warmup phase): their Init sees
// RunInfo.Phase = phase, and they learn the run's metrics as the main set
// did.
func (o *Outputs) PhaseAccumulators(ctx context.Context, h *Host, phase string) ([]registry.Named[sdk.Accumulator], error) {
	specs := o.Catalog.Specs()
	var out []registry.Named[sdk.Accumulator]
	for _, a := range o.Accumulators {
		v, err := Use(ctx, h, sdk.Accumulators, a.Name, nil, phase)
		if err != nil {
			return nil, fmt.Errorf("%s phase: %w", phase, err)
		}
		n := registry.Named[sdk.Accumulator]{Category: a.Category, Name: a.Name, Plugin: v}
		if ma, ok := v.(sdk.MetricsAware); ok {
			if err := ma.SetMetrics(specs); err != nil {
				return nil, fmt.Errorf("plugin %s: %w", n.ID(), err)
			}
		}
		out = append(out, n)
	}
	return out, nil
}

// NewLogger logs to stderr (through the gate a full-screen UI holds) at the chosen level and to logs/aiperf.log in the
// artifact directory at debug level. Secrets are never passed to the logger.
func NewLogger(lc fx.Lifecycle, s *Settings, stderr *LogGate) (*slog.Logger, error) {
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
