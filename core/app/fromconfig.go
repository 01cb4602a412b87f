package app

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/core/config"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// FromConfig derives run settings from a validated configuration.
// serviceKind comes from the endpoint's metadata (it names the artifact
// subdirectory); args are the command-line arguments for the footer.
func FromConfig(cfg *config.RunConfig, serviceKind string, args []string) (*Settings, error) {
	seed, err := runSeed(cfg.RandomSeed)
	if err != nil {
		return nil, err
	}
	level, err := parseLevel(cfg.LogLevel)
	if err != nil {
		return nil, err
	}
	pluginSettings, err := cfg.PluginSettings()
	if err != nil {
		return nil, err
	}
	pollInterval, err := videoPollInterval(os.Getenv(EnvVideoPollInterval))
	if err != nil {
		return nil, err
	}
	gpuCollector, gpuURLs, err := cfg.GPUTelemetry()
	if gpuCollector != "" && cfg.GPUCollectorPlugin != "" {
		// A vendor's collector reads the sources the user named; AIPerf's
		// default DCGM endpoints are for the dcgm collector only.
		gpuCollector = cfg.GPUCollectorPlugin
		if user := withoutDefaultDCGM(gpuURLs); len(user) > 0 {
			gpuURLs = user
		}
	}
	if err != nil {
		return nil, err
	}
	gateCfg, err := gateSettings(cfg)
	if err != nil {
		return nil, err
	}
	s := &Settings{
		Models:               cfg.ModelNames,
		CustomEndpoint:       cfg.CustomEndpoint,
		URLs:                 cfg.URLs(),
		Streaming:            cfg.Streaming,
		APIKey:               cfg.APIKey,
		UserHeaders:          cfg.Headers(),
		ExtraInputs:          cfg.ExtraInputs(),
		Timeout:              time.Duration(cfg.RequestTimeoutSeconds * float64(time.Second)),
		LegacyMaxToks:        cfg.UseLegacyMaxTokens,
		SystemPrompt:         cfg.ResolvedSystemPrompt,
		SkipInputs:           cfg.TraceDataset(),
		SystemMessageFlags:   systemMessageFlags(cfg),
		Profiling:            cfg.Profiling(),
		Warmup:               warmup(cfg),
		FixedSchedule:        cfg.FixedSchedule(),
		ScheduleWindow:       cfg.FixedScheduleWindow(),
		ModelSelection:       cfg.ModelSelectionStrategy,
		ConnectionReuse:      cfg.ConnectionReuseStrategy,
		Cancellation:         cfg.RequestCancellation(),
		VideoPollInterval:    pollInterval,
		DownloadVideoContent: cfg.DownloadVideoContent,
		Dataset:              datasetOptions(cfg, seed),
		Tokenizer: sdk.TokenizerSource{
			Name:            tokenizerName(cfg),
			Revision:        cfg.TokenizerRevision,
			TrustRemoteCode: cfg.TokenizerTrustRemoteCode,
		},
		UseServerTokenCount: cfg.UseServerTokenCount,
		Seed:                seed,
		ArtifactDir:         cfg.ArtifactDirectory(serviceKind),
		Files:               cfg.ExportFiles(),
		ExportLevel:         cfg.ExportLevel,
		Goodput:             cfg.Goodput,
		LogLevel:            level,
		InputConfig:         cfg.InputConfig(),
		CLICommand:          cfg.CLICommand(args),
		Plugins:             selectPlugins(cfg),
		PluginSettings:      pluginSettings,

		// Telemetry (issue 12)
		ServerMetricsURLs:    cfg.ServerMetricsURLs(),
		ServerMetricsFormats: cfg.ServerMetricsFormats,
		// GPU telemetry (issue 12): "" = off.
		GPUTelemetryCollector: gpuCollector,
		GPUTelemetryURLs:      gpuURLs,

		// CI gate (issue 14)
		Gate: gateCfg,
	}
	shardSettings(s, cfg.Sharding())
	return s, nil
}

// runSeed returns --random-seed, or a fresh random seed when none was given
// (so every random choice in the run still flows from one recorded value).
func runSeed(s *int64) (int64, error) {
	if s != nil {
		return *s, nil
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return 0, fmt.Errorf("draw a random seed: %w", err)
	}
	return int64(binary.LittleEndian.Uint64(b[:]) >> 1), nil
}

// parseLevel maps AIPerf's log levels onto slog's.
func parseLevel(name string) (slog.Level, error) {
	switch strings.ToUpper(name) {
	case "TRACE":
		return slog.LevelDebug - 4, nil
	case "DEBUG":
		return slog.LevelDebug, nil
	case "", "INFO", "NOTICE", "SUCCESS":
		return slog.LevelInfo, nil
	case "WARNING":
		return slog.LevelWarn, nil
	case "ERROR", "CRITICAL":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("--log-level %q is not valid", name)
}

// tokenizerName is --tokenizer, or the first model name as in AIPerf (the
// server's own tokenizer gives the counts users can trust).
func tokenizerName(cfg *config.RunConfig) string {
	if cfg.Tokenizer != "" {
		return cfg.Tokenizer
	}
	if len(cfg.ModelNames) > 0 {
		return cfg.ModelNames[0]
	}
	return ""
}

func warmup(cfg *config.RunConfig) *config.PhaseSettings {
	w, ok := cfg.Warmup()
	if !ok {
		return nil
	}
	return &w
}

// datasetOptions are the composer's inputs with the run's seed. The entry
// count is config's EffectiveNumDatasetEntries (AIPerf 0.13: an explicit
// --num-dataset-entries, else --num-sessions, else --request-count, else 100).
func datasetOptions(cfg *config.RunConfig, seed int64) sdk.DatasetOptions {
	o := cfg.DatasetOptions()
	o.RandomSeed = seed
	return o
}

// EnvVideoPollInterval is AIPerf's environment setting for how often a
// video job is polled, in seconds (0.001 to 10, default 0.1).
const EnvVideoPollInterval = "AIPERF_HTTP_VIDEO_POLL_INTERVAL"

// videoPollInterval reads EnvVideoPollInterval; empty means the default.
func videoPollInterval(v string) (time.Duration, error) {
	if v == "" {
		return 100 * time.Millisecond, nil
	}
	s, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || s < 0.001 || s > 10 {
		return 0, fmt.Errorf("%s=%q: want seconds between 0.001 and 10", EnvVideoPollInterval, v)
	}
	return time.Duration(s * float64(time.Second)), nil
}

// systemMessageFlags lists the given flags whose text goes in a
// conversation's system prompt or user context.
func systemMessageFlags(cfg *config.RunConfig) []string {
	var out []string
	if cfg.SystemPrompt != "" {
		out = append(out, "--system-prompt")
	}
	if cfg.SystemPromptFile != "" {
		out = append(out, "--system-prompt-file")
	}
	if cfg.SharedSystemPromptLength != nil {
		out = append(out, "--shared-system-prompt-length")
	}
	if cfg.UserContextPromptLength != nil {
		out = append(out, "--user-context-prompt-length")
	}
	return out
}

// withoutDefaultDCGM is urls without AIPerf's default DCGM endpoints.
func withoutDefaultDCGM(urls []string) []string {
	var out []string
	for _, u := range urls {
		if !slices.Contains(config.DefaultDCGMURLs, u) {
			out = append(out, u)
		}
	}
	return out
}
