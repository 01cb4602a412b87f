package app

import (
	"log/slog"
	"time"

	"github.com/aiperf-go/aiperf/core/config"
	"github.com/aiperf-go/aiperf/core/engine"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Settings are the resolved, validated values a profile run needs. They are
// derived from config.RunConfig in one place (FromConfig) so the run itself
// does not depend on how flags are spelled.
type Settings struct {
	Models         []string
	CustomEndpoint string
	URLs           []string
	Streaming      bool
	APIKey         string
	UserHeaders    map[string]string
	ExtraInputs    map[string]any
	Timeout        time.Duration
	LegacyMaxToks  bool
	// SkipInputs writes no inputs.json (trace datasets, as AIPerf 0.13).
	SkipInputs bool
	// BeforeSend, when set, runs once the dataset is built and the requests
	// prepared, before anything is sent (the CLI tunes the garbage
	// collector for the timed run there, not while loading).
	BeforeSend func()
	// AfterSend, when set, runs once the last request of the run has
	// ended, before records are summarized and exported: the CLI ends the
	// timed run's GC policy there.
	AfterSend func()
	// SystemPrompt is the verbatim --system-prompt (or the file's text),
	// put before every conversation's own system message; "" for none.
	SystemPrompt string
	// SystemMessageFlags are the flags given that fill a conversation's
	// system prompt or user context: the endpoint must send them.
	SystemMessageFlags []string

	// Profiling and Warmup (nil when there is none) are the phases, with
	// AIPerf's defaults and warmup inheritance applied.
	Profiling config.PhaseSettings
	Warmup    *config.PhaseSettings
	// Shard places this process in a sharded run (Count 1: not sharded);
	// ProfilingStripe and WarmupStripe are the credits it sends of each
	// phase, whose settings above are already its shares (shard.go).
	Shard                         config.Sharding
	ProfilingStripe, WarmupStripe engine.Stripe
	// FixedSchedule replays trace timestamps within ScheduleWindow.
	FixedSchedule  bool
	ScheduleWindow config.ScheduleWindow
	// ModelSelection and ConnectionReuse are the --model-selection-strategy
	// and --connection-reuse-strategy choices ("" = default).
	ModelSelection  string
	ConnectionReuse string
	Cancellation    config.Cancellation
	// VideoPollInterval is how often a job API is polled
	// (AIPERF_HTTP_VIDEO_POLL_INTERVAL); DownloadVideoContent fetches the
	// finished video (--download-video-content).
	VideoPollInterval    time.Duration
	DownloadVideoContent bool

	Dataset sdk.DatasetOptions
	// Tokenizer names the tokenizer (Name is --tokenizer, else the first model).
	Tokenizer           sdk.TokenizerSource
	UseServerTokenCount bool
	Seed                int64

	ArtifactDir string
	Files       sdk.ArtifactFiles
	ExportLevel string

	Goodput  string
	LogLevel slog.Level

	// Gate is the CI gate: thresholds, the failed-request threshold and
	// the report files (gate.go).
	Gate GateSettings

	// Plugins names the plugin of every single-choice category
	// (selectPlugins); PluginSettings are the --plugin-config values.
	Plugins        Selection
	PluginSettings []config.PluginSetting

	InputConfig map[string]any
	CLICommand  string

	// Telemetry (issue 12). ServerMetricsURLs are the Prometheus endpoints
	// scraped (empty: off), ServerMetricsFormats the files written.
	// GPUTelemetryCollector names the gpu_telemetry_collector plugin built
	// once per GPUTelemetryURLs source ("" = GPU telemetry off).
	// TelemetryInterval is the sampling period (0: AIPerf's 333 ms).
	ServerMetricsURLs     []string
	ServerMetricsFormats  []string
	GPUTelemetryCollector string
	GPUTelemetryURLs      []string
	TelemetryInterval     time.Duration
}

// MaxConcurrency is the most requests the run may have in flight: the
// larger phase ceiling, or 0 (unbounded) when a phase has none.
func (s *Settings) MaxConcurrency() int {
	n := s.Profiling.Concurrency
	if s.Warmup != nil {
		if s.Warmup.Concurrency == 0 || n == 0 {
			return 0
		}
		n = max(n, s.Warmup.Concurrency)
	}
	return n
}
