package app

import (
	"log/slog"
	"time"

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

	Concurrency        int
	RequestCount       int
	WarmupRequestCount int

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
