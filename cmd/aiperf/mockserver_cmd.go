package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/hf"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
	"github.com/aiperf-go/aiperf/registry"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// mockServerEnvPrefix matches AIPerf's mock server (MOCK_SERVER_PORT, …).
const mockServerEnvPrefix = "MOCK_SERVER_"

// mockShutdownGrace is how long in-flight streams may finish after a signal.
const mockShutdownGrace = 5 * time.Second

type mockServerOptions struct {
	host       string
	port       int
	ttftMs     float64
	itlMs      float64
	fast       bool
	errorRate  float64
	randomSeed int64
	tokenizer  string
	logLevel   string
	// videoJobSeconds is how long a /v1/videos job runs; embeddingDim the
	// default /v1/embeddings vector length.
	videoJobSeconds float64
	embeddingDim    int
}

func newMockServerCmd() *cobra.Command {
	var o mockServerOptions
	cmd := &cobra.Command{
		Use:     "mock-server",
		Aliases: []string{"mockserver"},
		Short:   "Run a mock OpenAI-compatible inference server (deterministic output, configurable TTFT/ITL)",
		Long: "Run a mock OpenAI-compatible inference server for demos, tests and benchmarks.\n\n" +
			"It answers every API an AIPerf endpoint type talks to, deterministically, with\n" +
			"token-exact usage, streams paced by --ttft/--itl and --error-rate applied to every\n" +
			"inference route:\n\n" + mockRoutesHelp() + "\n" +
			"Every flag can also be set through an environment variable such as\n" +
			"MOCK_SERVER_PORT or MOCK_SERVER_ERROR_RATE.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := applyMockServerEnv(cmd.Flags(), os.LookupEnv); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runMockServer(ctx, o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.host, "host", "127.0.0.1", "Address to listen on")
	f.IntVarP(&o.port, "port", "p", 8000, "Port to listen on (0 picks a free port)")
	f.Float64VarP(&o.ttftMs, "ttft", "t", 20, "Time to first token in milliseconds")
	f.Float64Var(&o.itlMs, "itl", 5, "Inter-token latency in milliseconds")
	f.BoolVarP(&o.fast, "fast", "f", false, "No delays at all; write each stream in one flush (throughput mode)")
	f.Float64Var(&o.errorRate, "error-rate", 0, "Percentage (0-100) of inference requests answered with HTTP 500")
	f.Int64Var(&o.randomSeed, "random-seed", 0, "Seed of the error-injection sequence")
	f.Float64Var(&o.videoJobSeconds, "video-job-seconds", 0.5, "Seconds a /v1/videos job stays in_progress before it completes")
	f.IntVar(&o.embeddingDim, "embedding-dim", mockserver.DefaultEmbeddingDim, "Length of /v1/embeddings vectors when the request sets no \"dimensions\"")
	f.StringVar(&o.tokenizer, "tokenizer", "builtin", "Tokenizer for token counts and output text: builtin (o200k_base), a tokenizer.json path, or a Hugging Face repo id")
	f.StringVar(&o.logLevel, "log-level", "INFO", "Log level: DEBUG, INFO, WARNING or ERROR")
	return cmd
}

// applyMockServerEnv sets every flag not given on the command line from
// MOCK_SERVER_<FLAG_NAME> when that variable exists.
func applyMockServerEnv(fs *pflag.FlagSet, lookup func(string) (string, bool)) error {
	var firstErr error
	fs.VisitAll(func(fl *pflag.Flag) {
		if fl.Changed || firstErr != nil {
			return
		}
		name := mockServerEnvPrefix + strings.ToUpper(strings.ReplaceAll(fl.Name, "-", "_"))
		if v, ok := lookup(name); ok {
			if err := fs.Set(fl.Name, v); err != nil {
				firstErr = fmt.Errorf("environment variable %s=%q: %w", name, v, err)
			}
		}
	})
	return firstErr
}

// runMockServer serves until ctx ends, then shuts down gracefully.
func runMockServer(ctx context.Context, o mockServerOptions, stdout, stderr io.Writer) error {
	cfg, level, err := o.config()
	if err != nil {
		return err
	}
	// The mock's output lengths and usage are exact in the tokenizer the
	// client will count with, resolved exactly as `aiperf profile` does.
	if cfg.Tokenizer, err = mockTokenizer(ctx, o.tokenizer); err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	srv, err := mockserver.New(cfg)
	if err != nil {
		return err
	}
	addr, err := srv.Start()
	if err != nil {
		return err
	}
	logger.Info("mock server started", "addr", addr, "ttft", cfg.TTFT, "itl", cfg.ITL,
		"fast", cfg.Fast, "error_rate", cfg.ErrorRate, "random_seed", cfg.RandomSeed, "tokenizer", o.tokenizer,
		"video_job_time", cfg.VideoJobTime, "embedding_dim", cfg.EmbeddingDim)
	fmt.Fprintf(stdout, "Mock server listening on http://%s\n", addr)

	<-ctx.Done()
	logger.Info("shutting down", "grace", mockShutdownGrace)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), mockShutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return err
	}
	logger.Info("mock server stopped")
	return nil
}

// config turns the flag values into a mockserver.Config and a log level.
func (o mockServerOptions) config() (mockserver.Config, slog.Level, error) {
	var cfg mockserver.Config
	level, err := parseMockLogLevel(o.logLevel)
	if err != nil {
		return cfg, 0, err
	}
	if strings.TrimSpace(o.tokenizer) == "" {
		return cfg, 0, fmt.Errorf("--tokenizer must name a tokenizer (builtin, a tokenizer.json path or a Hugging Face repo id)")
	}
	ttft, err := millis("--ttft", o.ttftMs)
	if err != nil {
		return cfg, 0, err
	}
	itl, err := millis("--itl", o.itlMs)
	if err != nil {
		return cfg, 0, err
	}
	if o.port < 0 || o.port > 65535 {
		return cfg, 0, fmt.Errorf("--port must be in [0, 65535], got %d", o.port)
	}
	if math.IsNaN(o.errorRate) || o.errorRate < 0 || o.errorRate > 100 {
		return cfg, 0, fmt.Errorf("--error-rate must be a percentage in [0, 100], got %v", o.errorRate)
	}
	if math.IsNaN(o.videoJobSeconds) || o.videoJobSeconds < 0 || o.videoJobSeconds > 86400 {
		return cfg, 0, fmt.Errorf("--video-job-seconds must be a number of seconds in [0, 86400], got %v", o.videoJobSeconds)
	}
	jobTime := time.Duration(o.videoJobSeconds * float64(time.Second))
	if o.embeddingDim < 0 || o.embeddingDim > mockserver.MaxEmbeddingDim {
		return cfg, 0, fmt.Errorf("--embedding-dim must be in [1, %d] (0: the default %d), got %d",
			mockserver.MaxEmbeddingDim, mockserver.DefaultEmbeddingDim, o.embeddingDim)
	}
	cfg = mockserver.Config{
		Host: o.host, Port: o.port, TTFT: ttft, ITL: itl, Fast: o.fast,
		ErrorRate: o.errorRate, RandomSeed: o.randomSeed,
		VideoJobTime: jobTime, EmbeddingDim: o.embeddingDim,
	}
	if o.fast {
		cfg.TTFT, cfg.ITL, cfg.VideoJobTime = 0, 0, 0
	}
	return cfg, level, nil
}

// mockRoutesHelp lists the mock's routes, one per line, for --help.
func mockRoutesHelp() string {
	var b strings.Builder
	for _, r := range mockserver.Routes() {
		fmt.Fprintf(&b, "  %-4s %-26s %s\n", r.Method, r.Path, r.API)
	}
	return b.String()
}

func millis(flag string, ms float64) (time.Duration, error) {
	if math.IsNaN(ms) || math.IsInf(ms, 0) || ms < 0 {
		return 0, fmt.Errorf("%s must be a non-negative number of milliseconds, got %v", flag, ms)
	}
	if ms > float64(math.MaxInt64/int64(time.Millisecond)) {
		return 0, fmt.Errorf("%s is too large: %v ms", flag, ms)
	}
	return time.Duration(ms * float64(time.Millisecond)), nil
}

func parseMockLogLevel(s string) (slog.Level, error) {
	switch strings.ToUpper(s) {
	case "DEBUG", "TRACE":
		return slog.LevelDebug, nil
	case "INFO", "NOTICE", "SUCCESS":
		return slog.LevelInfo, nil
	case "WARNING", "WARN":
		return slog.LevelWarn, nil
	case "ERROR", "CRITICAL":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("--log-level: unknown level %q (want DEBUG, INFO, WARNING or ERROR)", s)
}

// mockTokenizer resolves --tokenizer through the plugin registry; nil means
// the server's default (builtin).
func mockTokenizer(ctx context.Context, name string) (sdk.Tokenizer, error) {
	if registry.Normalize(name) == tiktoken.Name {
		return nil, nil
	}
	reg, err := embeddedRegistry()
	if err != nil {
		return nil, err
	}
	loader, err := registry.Get(reg, sdk.Tokenizers, hf.Name)
	if err != nil {
		return nil, fmt.Errorf("--tokenizer: %w", err)
	}
	tok, err := loader.Load(ctx, sdk.TokenizerSource{Name: name, Revision: "main"})
	if err != nil {
		return nil, fmt.Errorf("--tokenizer: %w", err) // the loader's error names the tokenizer
	}
	return tok, nil
}
