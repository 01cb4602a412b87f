package app

import (
	"log/slog"
	"time"

	"github.com/aiperf-go/aiperf/core/config"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Settings are the resolved, validated values a profile run needs. They are
// derived from config.RunConfig in one place (FromConfig) so the run itself
// does not depend on how flags are spelled.
type Settings struct {
	Models         []string
	EndpointType   string
	CustomEndpoint string
	URLs           []string
	Streaming      bool
	APIKey         string
	UserHeaders    map[string]string
	ExtraInputs    map[string]any
	Timeout        time.Duration
	LegacyMaxToks  bool

	// Profiling and Warmup (nil when there is none) are the phases, with
	// AIPerf's defaults and warmup inheritance applied.
	Profiling config.PhaseSettings
	Warmup    *config.PhaseSettings
	// FixedSchedule replays trace timestamps within ScheduleWindow.
	FixedSchedule  bool
	ScheduleWindow config.ScheduleWindow
	// Sampling, ModelSelection and ConnectionReuse are the
	// --dataset-sampling-strategy, --model-selection-strategy and
	// --connection-reuse-strategy choices ("" = default).
	Sampling        string
	ModelSelection  string
	ConnectionReuse string
	Cancellation    config.Cancellation

	Dataset sdk.DatasetOptions
	// Tokenizer names the tokenizer (Name is --tokenizer, else the first model).
	Tokenizer           sdk.TokenizerSource
	UseServerTokenCount bool
	Seed                int64

	ArtifactDir string
	Files       sdk.ArtifactFiles
	ExportLevel string

	Goodput  string
	UI       string
	LogLevel slog.Level

	InputConfig map[string]any
	CLICommand  string
}
