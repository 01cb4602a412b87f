// Package app wires a profile run with go.uber.org/fx: every component is a
// plain constructor (usable without fx in tests); fx only resolves the graph
// and runs start/stop hooks in order.
package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/registry"
	"go.uber.org/dig"
	"go.uber.org/fx"
)

// Profile builds the components for s and runs the benchmark. reg is the
// registry the configuration was validated against.
func Profile(ctx context.Context, reg *registry.Registry, s *Settings, stdout, stderr io.Writer) (*Outcome, error) {
	if err := ensureDir(s.ArtifactDir); err != nil {
		return nil, err
	}
	var runner *Runner
	// The host lives outside the graph so the plugins it built are closed
	// (in reverse order) also when a later constructor fails: fx runs no
	// stop hook for an app that never started.
	host := NewPluginHost(reg, s)
	defer func() {
		if err := host.Close(); err != nil {
			fmt.Fprintln(stderr, "Warning:", err)
		}
	}()
	fxApp := fx.New(
		fx.NopLogger,
		fx.Supply(reg, s, host, fx.Annotate(stderr, fx.As(new(io.Writer))), fx.Annotate(ctx, fx.As(new(context.Context)))),
		fx.Provide(
			NewLogGate,
			NewLogger,
			NewEndpoint,
			NewRunInfo,
			NewTokenizer,
			NewComposer,
			NewTransport,
			NewUI,
			NewOutputs,
			func(p runnerParams) *Runner {
				return &Runner{Settings: p.Settings, Log: p.Log, Endpoint: p.Endpoint, Tokenizer: p.Tokenizer,
					Composer: p.Composer, Transport: p.Transport, Host: p.Host, UI: p.UI,
					Outputs: p.Outputs, RunInfo: p.RunInfo, Stdout: stdout, LogGate: p.LogGate}
			},
		),
		// Before anything builds a plugin: plugins log to the run's log.
		fx.Invoke(host.UseLogger),
		fx.Populate(&runner),
	)
	if err := fxApp.Err(); err != nil {
		return nil, unwrapFx(err)
	}
	// Start hooks are quick and must not fail because Ctrl-C already came:
	// the run below handles cancellation and still exports.
	if err := fxApp.Start(context.Background()); err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	out, runErr := runner.Run(ctx)
	if err := fxApp.Stop(context.Background()); err != nil && runErr == nil {
		runErr = fmt.Errorf("stop: %w", err)
	}
	return out, runErr
}

type runnerParams struct {
	fx.In
	Settings  *Settings
	Log       *slog.Logger
	Endpoint  sdk.Endpoint
	Tokenizer sdk.Tokenizer
	Composer  sdk.DatasetComposer
	Transport sdk.Transport
	Host      *Host
	UI        sdk.UI
	Outputs   *Outputs
	RunInfo   sdk.RunInfo
	LogGate   *LogGate
}

// unwrapFx reduces fx's dependency-chain error to the constructor's own
// message, which already names the flag or plugin at fault.
func unwrapFx(err error) error {
	return dig.RootCause(err)
}
